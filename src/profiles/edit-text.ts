// Changes to a profile's YAML text that leave everything else in the file as it was written: comments,
// blank lines, quoting, flow or block style. The yaml package's Document API finds the node a change is
// about and writes the new value; only that node's own text is replaced (the package's whole-document
// output would also respace flow lists elsewhere, which a reviewed file must not see). Every result is
// checked to read back as exactly the intended change, so a wrong splice can never be written.
import { isDeepStrictEqual } from 'node:util';
import type { Document, Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

export class EditError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 413 | 428,
    message: string,
  ) {
    super(message);
  }
}

type Json = unknown;
type PlainProfile = { pages: Array<{ name: string; controls: Record<string, Json> }>; match: Record<string, Json>; name: string };

/** One change, as data (the API's routes and the audit log name it the same way). */
export type ProfileEdit =
  | { kind: 'set-control'; page: string; control: string; binding: Json }
  | { kind: 'delete-control'; page: string; control: string }
  | { kind: 'add-page'; name: string }
  | { kind: 'rename-page'; page: string; name: string }
  | { kind: 'move-page'; page: string; index: number }
  | { kind: 'pin'; match: Record<string, Json>; name: string };

export interface EditResult {
  text: string;
  /** The value before and after at the place changed, for the audit log. */
  before: Json;
  after: Json;
}

/** Applies one change to the text, or says why it cannot (no such page or control, a name taken). */
export function editProfileText(text: string, edit: ProfileEdit): EditResult {
  const { isMap, isSeq, parseDocument } = yamlLibrary();
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw new EditError(409, `the file does not read as YAML now (${doc.errors[0]?.message}): fix it by hand first`);
  const plain = doc.toJS() as PlainProfile;
  if (!isMap(doc.contents) || !Array.isArray(plain?.pages)) throw new EditError(409, 'the file holds no list of pages now: fix it by hand first');
  const pages = doc.get('pages', true);
  if (!isSeq(pages)) throw new EditError(409, 'pages is not a list in the file');
  const expected = structuredClone(plain);
  const result = apply(text, doc, pages, plain, expected, edit);
  // The splice must read back as the change and nothing else.
  const reread = parseDocument(result.text);
  if (reread.errors.length > 0 || !isDeepStrictEqual(reread.toJS(), expected)) {
    throw new EditError(409, 'the change could not be written without disturbing the rest of the file (an unusual layout): edit this part by hand');
  }
  return result;
}

function apply(text: string, doc: Document, pages: YAMLSeq, plain: PlainProfile, expected: PlainProfile, edit: ProfileEdit): EditResult {
  switch (edit.kind) {
    case 'set-control': {
      const index = pageIndex(plain, edit.page);
      const controls = controlsOf(pages, index);
      const pair = pairOf(controls, edit.control);
      const before = plain.pages[index]?.controls[edit.control] ?? null;
      (expected.pages[index] as PlainProfile['pages'][number]).controls[edit.control] = edit.binding;
      const spliced = pair ? replaceNode(text, pair.value as Node, edit.binding, isFlow(pair.value)) : addPair(text, controls, edit.control, edit.binding);
      return { text: spliced, before, after: edit.binding };
    }
    case 'delete-control': {
      const index = pageIndex(plain, edit.page);
      const controls = controlsOf(pages, index);
      const pair = pairOf(controls, edit.control);
      if (!pair) throw new EditError(404, `page "${edit.page}" has no control "${edit.control}"`);
      const before = plain.pages[index]?.controls[edit.control] ?? null;
      delete (expected.pages[index] as PlainProfile['pages'][number]).controls[edit.control];
      return { text: removePair(text, controls, pair), before, after: null };
    }
    case 'add-page': {
      if (plain.pages.some((p) => p.name === edit.name)) throw new EditError(409, `a page is named "${edit.name}" already`);
      expected.pages.push({ name: edit.name, controls: {} });
      return { text: appendItem(text, pages, { name: edit.name, controls: {} }), before: null, after: { name: edit.name } };
    }
    case 'rename-page': {
      const index = pageIndex(plain, edit.page);
      if (plain.pages.some((p) => p.name === edit.name)) throw new EditError(409, `a page is named "${edit.name}" already`);
      (expected.pages[index] as PlainProfile['pages'][number]).name = edit.name;
      const page = pages.items[index];
      const name = yamlLibrary().isMap(page) ? pairOf(page, 'name') : undefined;
      if (!name) throw new EditError(409, `page "${edit.page}" has no name field in the file`);
      return { text: replaceNode(text, name.value as Node, edit.name, true), before: edit.page, after: edit.name };
    }
    case 'move-page': {
      const index = pageIndex(plain, edit.page);
      if (!Number.isInteger(edit.index) || edit.index < 0 || edit.index >= plain.pages.length) throw new EditError(400, `index: expected 0 to ${plain.pages.length - 1}, got ${edit.index}`);
      const [moved] = expected.pages.splice(index, 1);
      expected.pages.splice(edit.index, 0, moved as PlainProfile['pages'][number]);
      return { text: moveItem(text, pages, index, edit.index), before: index, after: edit.index };
    }
    case 'pin': {
      const match = pairOf(doc.contents as YAMLMap, 'match');
      const name = pairOf(doc.contents as YAMLMap, 'name');
      if (!match || !name) throw new EditError(409, 'the file has no match or name field');
      expected.match = edit.match;
      expected.name = edit.name;
      // The later node first, so the earlier one's offsets still hold.
      const [first, second] = [
        { node: name.value as Node, value: edit.name as Json, flow: true },
        { node: match.value as Node, value: edit.match as Json, flow: isFlow(match.value) },
      ].sort((a, b) => rangeOf(a.node)[0] - rangeOf(b.node)[0]) as [{ node: Node; value: Json; flow: boolean }, { node: Node; value: Json; flow: boolean }];
      const later = replaceNode(text, second.node, second.value, second.flow);
      return { text: replaceNode(later, first.node, first.value, first.flow), before: plain.match, after: edit.match };
    }
  }
}

function pageIndex(plain: PlainProfile, name: string): number {
  const index = plain.pages.findIndex((p) => p.name === name);
  if (index < 0) throw new EditError(404, `no page "${name}"; the pages are ${plain.pages.map((p) => `"${p.name}"`).join(', ')}`);
  return index;
}

function controlsOf(pages: YAMLSeq, index: number): YAMLMap {
  const { isMap } = yamlLibrary();
  const page = pages.items[index];
  const controls = isMap(page) ? page.get('controls', true) : undefined;
  if (!isMap(controls)) throw new EditError(409, `page ${index} has no controls mapping in the file`);
  return controls;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === key);
}

const isFlow = (node: unknown) => (node as { flow?: boolean } | null)?.flow === true;

function rangeOf(node: Node): [number, number] {
  const range = node.range;
  if (!range) throw new EditError(409, 'the file has a node without a place in the text');
  return [range[0], range[1]];
}

/** A value as YAML text: one flow line, or block lines indented by `indent` after the first. */
function yamlOf(value: Json, flow: boolean, indent: number): string {
  const doc = new (yamlLibrary().Document)(value, { flow: false });
  if (flow && doc.contents && typeof doc.contents === 'object') (doc.contents as { flow?: boolean }).flow = true;
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: true }).replace(/\n$/, '');
  return text.split('\n').map((line, i) => (i === 0 ? line : `${' '.repeat(indent)}${line}`)).join('\n');
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end < 0 ? text.length : end + 1;
}

/** Replaces a node's own text; a block value keeps its column (a scalar is written on its line). */
function replaceNode(text: string, node: Node, value: Json, flow: boolean): string {
  const [start, end] = rangeOf(node);
  const scalar = value === null || typeof value !== 'object';
  const written = yamlOf(value, flow || scalar, columnOf(text, start));
  // A block collection's range runs to the start of the next line; the replacement ends its own line.
  const tail = !flow && !scalar && text[end - 1] === '\n' ? '\n' : '';
  return text.slice(0, start) + written + tail + text.slice(end);
}

function addPair(text: string, map: YAMLMap, key: string, value: Json): string {
  const last = map.items.at(-1);
  if (isFlow(map) || !last) {
    const entries = Object.fromEntries([...map.items.map((item) => [String((item.key as { value?: unknown }).value), (item.value as Node | null)?.toJSON() ?? null]), [key, value]]);
    return replaceNode(text, map as unknown as Node, entries, true);
  }
  const indent = columnOf(text, rangeOf(last.key as Node)[0]);
  const at = lineEnd(text, rangeOf(last.value as Node)[1] - 1);
  const line = `${' '.repeat(indent)}${yamlOf(key, true, 0)}: ${yamlOf(value, true, 0)}\n`;
  return text.slice(0, at) + (at > 0 && text[at - 1] !== '\n' ? '\n' : '') + line + text.slice(at);
}

function removePair(text: string, map: YAMLMap, pair: Pair): string {
  if (isFlow(map) || map.items.length === 1) {
    const entries = Object.fromEntries(map.items.filter((item) => item !== pair).map((item) => [String((item.key as { value?: unknown }).value), (item.value as Node | null)?.toJSON() ?? null]));
    // An emptied block mapping is written `{}`, on the key's line.
    if (!isFlow(map)) {
      const [start, end] = rangeOf(map as unknown as Node);
      const keyLineStart = text.lastIndexOf('\n', start - 1);
      const colon = text.lastIndexOf(':', start);
      const from = colon > keyLineStart ? colon + 1 : start;
      return `${text.slice(0, from)} {}\n${text.slice(end)}`;
    }
    return replaceNode(text, map as unknown as Node, entries, true);
  }
  const keyStart = rangeOf(pair.key as Node)[0];
  const from = text.lastIndexOf('\n', keyStart - 1) + 1;
  const to = lineEnd(text, rangeOf(pair.value as Node)[1] - 1);
  return text.slice(0, from) + text.slice(to);
}

/** The text of a list item, from the start of its `-` line to the end of its last line. */
function itemSpan(text: string, seq: YAMLSeq, index: number): [number, number] {
  const item = seq.items[index] as Node;
  const [start, end] = rangeOf(item);
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const next = seq.items[index + 1] as Node | undefined;
  const to = next ? text.lastIndexOf('\n', rangeOf(next)[0] - 1) + 1 : lineEnd(text, Math.max(start, end - 1));
  return [from, to];
}

function appendItem(text: string, seq: YAMLSeq, value: Json): string {
  if (isFlow(seq) || seq.items.length === 0) throw new EditError(409, 'pages is written as a flow list; add the page by hand');
  const first = rangeOf(seq.items[0] as Node)[0];
  const dash = text.lastIndexOf('-', first);
  const indent = columnOf(text, dash);
  const [, to] = itemSpan(text, seq, seq.items.length - 1);
  const body = yamlOf(value, false, indent + 2);
  const addition = `${' '.repeat(indent)}- ${body}\n`;
  return text.slice(0, to) + (to > 0 && text[to - 1] !== '\n' ? '\n' : '') + addition + text.slice(to);
}

function moveItem(text: string, seq: YAMLSeq, from: number, to: number): string {
  if (isFlow(seq)) throw new EditError(409, 'pages is written as a flow list; reorder it by hand');
  const spans = seq.items.map((_, i) => itemSpan(text, seq, i));
  const pieces = spans.map(([a, b]) => {
    const piece = text.slice(a, b);
    return piece.endsWith('\n') ? piece : `${piece}\n`;
  });
  const [moved] = pieces.splice(from, 1);
  pieces.splice(to, 0, moved as string);
  const start = (spans[0] as [number, number])[0];
  const end = (spans.at(-1) as [number, number])[1];
  const joined = pieces.join('');
  return text.slice(0, start) + (text[end - 1] === '\n' || end === text.length ? joined : joined.replace(/\n$/, '')) + text.slice(end);
}
