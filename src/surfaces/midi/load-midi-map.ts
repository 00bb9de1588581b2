// Reads MIDI map files: YAML text in, a validated MidiMap or a list of problems out, in the same form as
// profile problems (file:line:column: path: message), because the person reading them is editing YAML.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { explainIssue } from '../../profiles/explain.js';
import type { ProfileProblem } from '../../profiles/load.js';
import { formatPath, offsetOf, position } from '../../profiles/locate.js';
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
  const at = (offset: number | undefined) => position(lineCounter, offset);
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
  const findings = parsed.error.issues.flatMap((issue) => explainIssue(issue, [], data));
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
