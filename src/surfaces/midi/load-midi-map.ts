// Reads MIDI map files: YAML text in, a validated MidiMap or a list of problems out, in the same form as
// profile problems (file:line:column: path: message), because the person reading them is editing YAML.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type * as z from 'zod';
import type { ProfileProblem } from '../../profiles/load.js';
import { MidiMap } from './midi-map.js';

export { formatProfileError as formatMidiMapProblem } from '../../profiles/load.js';

export type MidiMapProblem = ProfileProblem;

export interface LoadedMidiMap {
  map: MidiMap;
  file: string;
}

export type MidiMapResult = { ok: true; loaded: LoadedMidiMap } | { ok: false; problems: MidiMapProblem[] };

const MAP_FILE = /\.ya?ml$/i;

export async function loadMidiMap(file: string): Promise<MidiMapResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ file, line: null, column: null, path: '', message: `cannot read the file: ${why}` }] };
  }
  return parseMidiMap(text, file);
}

/** Every map directly inside a folder (*.yaml, *.yml), by file name; two maps may not share a name. */
export async function loadMidiMapFolder(folder: string): Promise<{ maps: LoadedMidiMap[]; problems: MidiMapProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true })).filter((e) => (e.isFile() || e.isSymbolicLink()) && MAP_FILE.test(e.name)).map((e) => e.name).sort();
  } catch (error) {
    return { maps: [], problems: [{ file: folder, line: null, column: null, path: '', message: `cannot read the folder: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  const maps: LoadedMidiMap[] = [];
  const problems: MidiMapProblem[] = [];
  for (const name of names) {
    const result = await loadMidiMap(join(folder, name));
    if (!result.ok) {
      problems.push(...result.problems);
      continue;
    }
    const twin = maps.find((m) => m.map.name === result.loaded.map.name);
    if (twin) problems.push({ file: result.loaded.file, line: null, column: null, path: 'name', message: `the name "${twin.map.name}" is already used by ${twin.file}; surfaces are told apart by it` });
    else maps.push(result.loaded);
  }
  return { maps, problems };
}

export function parseMidiMap(text: string, file: string): MidiMapResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return { line: null, column: null };
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (doc.errors.length > 0) return { ok: false, problems: doc.errors.map((error) => ({ file, ...at(error.pos[0]), path: '', message: error.message.replace(/:\s*$/, '') })) };
  if (doc.contents === null) return { ok: false, problems: [{ file, line: null, column: null, path: '', message: 'the file is empty; a MIDI map needs at least name, model, ports and controls' }] };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ file, ...at(doc.contents.range?.[0]), path: '', message: error instanceof Error ? error.message : String(error) }] };
  }
  const parsed = MidiMap.safeParse(data);
  if (parsed.success) return { ok: true, loaded: { map: parsed.data, file } };
  const findings = parsed.error.issues.flatMap((issue) => explain(issue, [], data));
  const seen = new Set<string>();
  const problems = findings
    .map((finding) => ({ file, ...at(offsetOf(doc, finding)), path: formatPath(finding.path), message: finding.message }))
    .filter((problem) => {
      const key = `${problem.line}:${problem.column}:${problem.path}:${problem.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { ok: false, problems };
}

// Explaining zod's issues in the words of someone who wrote YAML -----------------------------------

type Issue = z.core.$ZodIssue;
type Segment = PropertyKey;

interface Finding {
  path: readonly Segment[];
  message: string;
  /** An unknown field is shown at its name, everything else at its value. */
  at: 'key' | 'value';
}

function explain(issue: Issue, base: readonly Segment[], data: unknown): Finding[] {
  const path = [...base, ...issue.path];
  const value = valueAt(data, path);
  const found = (message: string): Finding[] => [{ path, message, at: 'value' }];
  const own = !/^(Invalid|Too (small|big))\b/.test(issue.message);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"`, at: 'key' }));
    case 'invalid_type':
      return found(value === undefined ? `missing: expected ${typeName(issue.expected)}` : `expected ${typeName(issue.expected)}${received(value)}`);
    case 'invalid_value':
      return found(`${expectedValues(issue.values)}${received(value)}${suggestion(value, issue.values)}`);
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
      const what = issue.origin === 'array' ? (small && limit === 1 ? 'at least one item' : `${small ? 'at least' : 'at most'} ${limit} items`) : issue.origin === 'string' ? 'some text, not an empty string' : `${small ? 'at least' : 'at most'} ${limit}`;
      return found(`expected ${what}${received(value)}`);
    }
    case 'invalid_format':
      return found(`${own ? issue.message : `expected text matching ${'pattern' in issue ? String(issue.pattern) : issue.format}`}${received(value)}`);
    case 'invalid_union':
      return explainUnion(issue.errors, path, data);
    case 'custom':
      return found(own ? issue.message : `${issue.message}${received(value)}`);
    default:
      return found(issue.message.replace(/^Invalid (input|value): /, ''));
  }
}

/** A union failed: explain the branch of the right type; when none is, say what would have done. */
function explainUnion(branches: readonly (readonly Issue[])[], path: readonly Segment[], data: unknown): Finding[] {
  const value = valueAt(data, path);
  const wrongType = (branch: readonly Issue[]) => branch.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || (i.code === 'invalid_value' && !i.values.some((v) => typeof v === typeof value))));
  const fitting = branches.filter((branch) => !wrongType(branch));
  const [best] = fitting;
  if (best !== undefined) return best.flatMap((issue) => explain(issue, path, data));
  const expected = branches.flatMap((branch) =>
    branch.flatMap((issue) => (issue.path.length > 0 ? [] : issue.code === 'invalid_type' ? [typeName(issue.expected)] : issue.code === 'invalid_value' ? [expectedValues(issue.values).replace(/^expected /, '')] : [])),
  );
  return [{ path, message: `${value === undefined ? 'missing: ' : ''}expected ${[...new Set(expected)].join(' or ')}${value === undefined ? '' : received(value)}`, at: 'value' }];
}

function typeName(expected: string): string {
  if (expected === 'int') return 'a whole number';
  if (expected === 'object') return 'a mapping of fields';
  if (expected === 'array') return 'a list';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function expectedValues(values: readonly unknown[]): string {
  const quoted = values.map((v) => JSON.stringify(v));
  return quoted.length === 1 ? `expected ${quoted[0]}` : `expected one of ${quoted.join(', ')}`;
}

function received(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return ', got an empty value';
  if (Array.isArray(value)) return ', got a list';
  if (typeof value === 'object') return ', got a mapping';
  const text = JSON.stringify(value);
  return `, got ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

/** ` (did you mean "twos-complement"?)` for a near miss of exactly one allowed word. */
function suggestion(given: unknown, allowed: readonly unknown[]): string {
  if (typeof given !== 'string') return '';
  const near = allowed.filter((v): v is string => typeof v === 'string' && distance(given.toLowerCase(), v) <= Math.max(1, Math.floor(v.length / 4)));
  return near.length === 1 ? ` (did you mean "${near[0]}"?)` : '';
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length] ?? 0;
}

function valueAt(data: unknown, path: readonly Segment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) value = (value as Record<string, unknown>)[String(segment)];
    else return undefined;
  }
  return value;
}

/** The start of the deepest node that exists along the path (the path may name a missing field). */
function offsetOf(doc: Document, finding: Finding): number | undefined {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const [index, segment] of finding.path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      node = pair.value;
      const last = index === finding.path.length - 1;
      offset = (last && finding.at === 'key') || node === null || node === undefined ? rangeStart(pair.key) : rangeStart(node);
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

function rangeStart(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  return (node as { range?: readonly number[] | null }).range?.[0];
}

/** `controls[3].led.values.recording`. */
function formatPath(path: readonly Segment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(segment))) text += text === '' ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}
