// The profiles and MIDI maps shipped in profiles/, loaded as `recdeck run` loads them (loadProfileFile,
// loadMidiMapFolder: read, YAML, schema), each once per test worker. Test files share a worker's modules
// (`isolate: false`), and several of them bind the bridge to the same shipped profiles in every test:
// parsing the YAML again each time was much of what they spent besides waiting (all 20 profiles: ~0.9 s
// of CPU cold, ~0.2 s warm). Only the load is shared: every caller gets a deep copy of its own, so no
// test sees what another did to its profile or map. A file that does not load fails every caller with
// its problems, by name.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatProfileError, loadProfileFile } from '../../src/profiles/load.js';
import type { LoadedProfile } from '../../src/profiles/schema.js';
import { loadMidiMapFolder } from '../../src/surfaces/midi/load-midi-map.js';
import type { MidiMap } from '../../src/surfaces/midi/midi-map.js';

export const SHIPPED_PROFILES = join(import.meta.dirname, '../../profiles');

/** Loads by path, as loaded: never handed out (see shippedProfile). */
const loads = new Map<string, Promise<LoadedProfile>>();

/** A shipped profile by its file name in profiles/ (e.g. 'web-plus.yaml'), as a copy of its own. */
export async function shippedProfile(file: string): Promise<LoadedProfile> {
  const path = join(SHIPPED_PROFILES, file);
  let load = loads.get(path);
  if (load === undefined) {
    load = loadProfileFile(path).then((result) => {
      if (!result.ok) throw new Error(`shipped profile ${file} does not load: ${result.problems.map(formatProfileError).join('; ')}`);
      return result.loaded;
    });
    loads.set(path, load);
  }
  return structuredClone(await load);
}

/** Every profile in profiles/ itself (not its sub-folders), in the folder's order, each a copy of its own. */
export function shippedProfiles(): Promise<LoadedProfile[]> {
  return Promise.all(
    readdirSync(SHIPPED_PROFILES)
      .filter((file) => file.endsWith('.yaml'))
      .sort()
      .map((file) => shippedProfile(file)),
  );
}

/** The shipped MIDI maps (profiles/midi), loaded once per worker the same way; see shippedMidiMaps. */
let midiMaps: Promise<MidiMap[]> | undefined;

/** Every shipped MIDI map, as loadMidiMapFolder reads the folder (by file name), each a copy of its own. */
export async function shippedMidiMaps(): Promise<MidiMap[]> {
  midiMaps ??= loadMidiMapFolder(join(SHIPPED_PROFILES, 'midi')).then(({ maps, problems }) => {
    if (problems.length > 0) throw new Error(`the shipped MIDI maps do not load: ${problems.map(formatProfileError).join('; ')}`);
    return maps.map((m) => m.map);
  });
  return structuredClone(await midiMaps);
}
