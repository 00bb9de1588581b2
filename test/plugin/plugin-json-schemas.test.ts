// The JSON Schemas of the Stream Deck plugin's settings: shipped in profiles/plugin/ exactly as generated
// from the zod schemas the plugin and its property inspector check with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginJsonSchemas } from '../../src/cli/plugin-json-schemas.js';
import { jsonSchemaText } from '../../src/profiles/json-schema.js';

describe("the plugin settings' JSON Schemas", () => {
  it('are shipped in profiles/plugin/ as generated from the zod schemas (npm run schema)', () => {
    const schemas = pluginJsonSchemas();
    expect(schemas.map((s) => s.file)).toEqual(['recdeck-plugin-global-settings.schema.json', 'recdeck-plugin-action-settings.schema.json']);
    for (const { file, schema } of schemas) {
      const shipped = readFileSync(join(import.meta.dirname, '../../profiles/plugin', file), 'utf8');
      expect(shipped, `profiles/plugin/${file} is out of date; run npm run schema`).toBe(jsonSchemaText(schema));
    }
  });

  it('describe the global settings as the recorders with their tokens or a facility without any, and an action\'s recorder and hold', () => {
    const [global, action] = pluginJsonSchemas().map((s) => s.schema);
    expect(global).toMatchObject({
      anyOf: [
        { additionalProperties: false, properties: { recorders: { items: { required: ['name', 'url', 'token'], additionalProperties: false } } } },
        { additionalProperties: false, required: ['mqtt'], properties: { mqtt: { required: ['url', 'id', 'keyFile', 'facilityFile'], additionalProperties: false } } },
      ],
    });
    // A facility's settings hold paths, never a secret.
    expect(JSON.stringify((global as { anyOf: unknown[] }).anyOf[1])).not.toMatch(/"(token|password)"/);
    expect(action).toMatchObject({ required: ['recorder'], properties: { holdMs: { type: 'integer', minimum: 200, maximum: 10000 } } });
    expect(JSON.stringify(action)).not.toContain('"token"');
  });
});
