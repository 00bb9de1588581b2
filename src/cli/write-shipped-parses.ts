// Run by `npm run build` after tsc: writes dist/profiles/shipped-parses.json, the shipped profiles and
// MIDI maps as this build's loader parsed and checked them (src/profiles/shipped-parses.ts says when a
// start uses them). A shipped file that does not load is left out and said: a start then reports it.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PROFILE_FILE } from '../profiles/load.js';
import { makeShippedParses } from '../profiles/make-shipped-parses.js';
import { SHIPPED_PROFILES } from '../profiles/origin.js';
import { SHIPPED_PARSES_FILE } from '../profiles/shipped-parses.js';
import { MIDI_MAP_FILE } from '../surfaces/midi/load-midi-map.js';

const { cache, left } = makeShippedParses({
  shippedFolder: SHIPPED_PROFILES,
  folders: [
    { folder: '', kind: PROFILE_FILE },
    { folder: 'midi', kind: MIDI_MAP_FILE },
  ],
  // dist/: the loader (with the schemas it imports) and the MIDI maps' loader (with theirs).
  codeRoot: fileURLToPath(new URL('..', import.meta.url)),
  codeEntries: ['profiles/load.js', 'profiles/shipped-parses.js', 'surfaces/midi/load-midi-map.js'],
});
writeFileSync(SHIPPED_PARSES_FILE, `${JSON.stringify(cache)}\n`);
for (const reason of left) process.stderr.write(`recdeck build: shipped-parses: left out ${reason}\n`);
