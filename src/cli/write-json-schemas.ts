// `npm run schema`: writes the JSON Schemas editors use for profiles and MIDI maps, generated from the
// zod schemas. The files are committed; tests fail when they no longer match.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonSchemaText, profileJsonSchema } from '../profiles/json-schema.js';
import { midiMapJsonSchema } from '../surfaces/midi/map-json-schema.js';

// dist/cli → the project's profiles/ folder.
const files = [
  { path: '../../profiles/recdeck-profile.schema.json', schema: profileJsonSchema() },
  { path: '../../profiles/midi/recdeck-midi-map.schema.json', schema: midiMapJsonSchema() },
];
for (const { path, schema } of files) {
  const file = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(file, jsonSchemaText(schema));
  console.log(`wrote ${file}`);
}
