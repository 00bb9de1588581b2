// The profiles and MIDI maps shipped in profiles/, loaded as `recdeck run` loads them (loadParsedProfile,
// loadMidiMapFolder: read, YAML, schema), each parsed once per test worker (profiles through the
// product's own once-per-process record, src/profiles/parsed-profiles.ts). Test files share a worker's modules
// (`isolate: false`), and several of them bind the bridge to the same shipped profiles in every test:
// parsing the YAML again each time was much of what they spent besides waiting (all 20 profiles: ~0.9 s
// of CPU cold, ~0.2 s warm). Only the load is shared: every caller gets a deep copy of its own, so no
// test sees what another did to its profile or map. A file that does not load fails every caller with
// its problems, by name.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatProfileError } from '../../src/profiles/load.js';
import { loadParsedProfile } from '../../src/profiles/parsed-profiles.js';
import type { LoadedProfile } from '../../src/profiles/schema.js';
import { loadMidiMapFolder } from '../../src/surfaces/midi/load-midi-map.js';
import type { MidiMap } from '../../src/surfaces/midi/midi-map.js';

export const SHIPPED_PROFILES = join(import.meta.dirname, '../../profiles');

/** A shipped profile by its file name in profiles/ (e.g. 'web-plus.yaml'), as a copy of its own. */
export async function shippedProfile(file: string): Promise<LoadedProfile> {
  const result = await loadParsedProfile(join(SHIPPED_PROFILES, file));
  if (!result.ok) throw new Error(`shipped profile ${file} does not load: ${result.problems.map(formatProfileError).join('; ')}`);
  return structuredClone(result.loaded);
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
