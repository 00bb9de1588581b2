import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { busJsonSchemas } from '../../src/cli/bus-json-schemas.js';
import { jsonSchemaText } from '../../src/profiles/json-schema.js';

describe("the bus messages' JSON Schemas", () => {
  it('are shipped in profiles/bus/ as generated from the zod schemas (npm run schema)', () => {
    const schemas = busJsonSchemas();
    expect(schemas.map((s) => s.file)).toContain('channels.schema.json');
    expect(schemas.map((s) => s.file)).toContain('recdeck-facility.schema.json');
    for (const { file, schema } of schemas) {
      const shipped = readFileSync(join(import.meta.dirname, '../../profiles/bus', file), 'utf8');
      expect(shipped, `profiles/bus/${file} is out of date; run npm run schema`).toBe(jsonSchemaText(schema));
    }
  });

  it('describe the wire form: each body in its signed envelope, resources as the recorder sends them, a command with its term and deadline', () => {
    const byFile = Object.fromEntries(busJsonSchemas().map((s) => [s.file, s.schema]));
    expect(JSON.stringify(byFile['resources.schema.json'])).toContain('"array"');
    expect(byFile['cmd.schema.json']).toMatchObject({ required: ['from', 'at', 'body'], properties: { body: { required: ['id', 'call', 'term', 'sentAt', 'deadline'] } } });
  });
});
