// The web deck's protocol (src/remote/deck-protocol.ts): the JSON Schemas shipped in profiles/web/ are
// those generated from its zod schemas.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { deckJsonSchemas } from '../../src/cli/deck-json-schemas.js';
import { jsonSchemaText } from '../../src/profiles/json-schema.js';

it("the protocol's JSON Schemas are shipped in profiles/web/ as generated from the zod schemas (npm run schema)", () => {
  const schemas = deckJsonSchemas();
  expect(schemas.map((s) => s.file)).toEqual(['deck-server-message.schema.json', 'deck-page-message.schema.json']);
  for (const { file, schema } of schemas) {
    const shipped = readFileSync(join(import.meta.dirname, '../../profiles/web', file), 'utf8');
    expect(shipped, `profiles/web/${file} is out of date; run npm run schema`).toBe(jsonSchemaText(schema));
  }
  expect(JSON.stringify(schemas[0]?.schema)).toContain('"hello"');
  expect(JSON.stringify(schemas[1]?.schema)).toContain('"view"');
});
