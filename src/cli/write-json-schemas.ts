// `npm run schema`: writes the JSON Schemas editors use for profiles and MIDI maps, and those of the
// state bus's messages, the web deck's WebSocket messages and the Stream Deck plugin's settings, generated from the zod schemas. The files are committed; tests fail when they
// no longer match.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busJsonSchemas } from './bus-json-schemas.js';
import { deckJsonSchemas } from './deck-json-schemas.js';
import { pluginJsonSchemas } from './plugin-json-schemas.js';
import { jsonSchemaText, profileJsonSchema } from '../profiles/json-schema.js';
import { midiMapJsonSchema } from '../surfaces/midi/map-json-schema.js';

// dist/cli → the project's profiles/ folder.
const files = [
  { path: '../../profiles/recdeck-profile.schema.json', schema: profileJsonSchema() },
  { path: '../../profiles/midi/recdeck-midi-map.schema.json', schema: midiMapJsonSchema() },
  ...busJsonSchemas().map(({ file, schema }) => ({ path: `../../profiles/bus/${file}`, schema })),
  ...deckJsonSchemas().map(({ file, schema }) => ({ path: `../../profiles/web/${file}`, schema })),
  ...pluginJsonSchemas().map(({ file, schema }) => ({ path: `../../profiles/plugin/${file}`, schema })),
];
for (const { path, schema } of files) {
  const file = fileURLToPath(new URL(path, import.meta.url));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, jsonSchemaText(schema));
  console.log(`wrote ${file}`);
}
