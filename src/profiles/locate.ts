// Where in the YAML text a problem is: the line and column of the deepest node that exists along a
// path, and the path written the way a person reads it.
import type { Document, LineCounter } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

export type PathSegment = PropertyKey;

/** One thing wrong, at a path; `key` points at the field's name rather than its value. */
export interface Finding {
  path: readonly PathSegment[];
  message: string;
  at: 'value' | 'key';
}

export function position(lineCounter: LineCounter, offset: number | undefined): { line: number | null; column: number | null } {
  if (offset === undefined) return { line: null, column: null };
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** The start of the deepest node that exists along the finding's path (the path may name a missing field). */
export function offsetOf(doc: Document, finding: Finding): number | undefined {
  const { isMap, isScalar, isSeq } = yamlLibrary();
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const [index, segment] of finding.path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      const last = index === finding.path.length - 1;
      node = pair.value;
      // A field's name is the place to show for an unknown field, and for an empty value (`press:`).
      offset = (last && finding.at === 'key') || isEmptyValue(node) ? rangeStart(pair.key) : rangeStart(node);
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      node = item;
      offset = rangeStart(node) ?? offset;
    } else {
      break;
    }
  }
  return offset;
}

/** `press:` with nothing after it: there is no value to point at, only the field's name. */
function isEmptyValue(node: unknown): boolean {
  if (node === null || node === undefined) return true;
  if (!yamlLibrary().isScalar(node) || node.value !== null) return false;
  return node.range === undefined || node.range === null || node.range[0] === node.range[1];
}

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range?.[0];
}

/** `pages[0].controls.key3.press.action`; names that would read ambiguously are quoted. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(segment))) text += text === '' ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}
