// Writes profiles/recdeck-profile.schema.json from the zod schema: `node dist/profiles/write-json-schema.js`.
// The file is committed so editors find it; a test fails when it no longer matches the schema.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { profileJsonSchemaText } from './json-schema.js';

// dist/profiles → the project's profiles/ folder.
const file = fileURLToPath(new URL('../../profiles/recdeck-profile.schema.json', import.meta.url));
writeFileSync(file, profileJsonSchemaText());
console.log(`wrote ${file}`);
