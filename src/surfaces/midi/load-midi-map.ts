// Reads MIDI map files: YAML text in, a validated MidiMap or a list of problems out, through the same
// loader as profiles (file:line:column: path: message), because the person reading them is editing YAML.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../../api/errors.js';
import { loadYamlFile, parseYamlFile, type ProfileProblem, type YamlFileKind, type YamlFileResult } from '../../profiles/load.js';
import { MidiMap } from './midi-map.js';

export { formatProfileError as formatMidiMapProblem } from '../../profiles/load.js';

export type MidiMapProblem = ProfileProblem;

export interface LoadedMidiMap {
  map: MidiMap;
  file: string;
}

export type MidiMapResult = { ok: true; loaded: LoadedMidiMap } | { ok: false; problems: MidiMapProblem[] };

const MAP_FILE = /\.ya?ml$/i;

export const MIDI_MAP_FILE: YamlFileKind<typeof MidiMap> = { schema: MidiMap, name: 'a MIDI map', needs: 'name, model, ports and controls' };

export async function loadMidiMap(file: string): Promise<MidiMapResult> {
  return loaded(await loadYamlFile(file, MIDI_MAP_FILE), file);
}

/** Every map directly inside a folder (*.yaml, *.yml), by file name; two maps may not share a name. */
export async function loadMidiMapFolder(folder: string): Promise<{ maps: LoadedMidiMap[]; problems: MidiMapProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true })).filter((e) => (e.isFile() || e.isSymbolicLink()) && MAP_FILE.test(e.name)).map((e) => e.name).sort();
  } catch (error) {
    return { maps: [], problems: [{ file: folder, line: null, column: null, path: '', message: `cannot read the folder: ${messageOf(error)}` }] };
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
  return loaded(parseYamlFile(text, file, MIDI_MAP_FILE), file);
}

function loaded(result: YamlFileResult<MidiMap>, file: string): MidiMapResult {
  return result.ok ? { ok: true, loaded: { map: result.value, file } } : result;
}
