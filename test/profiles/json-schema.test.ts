import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILE_SCHEMA_ID, jsonSchemaText, profileJsonSchema } from '../../src/profiles/json-schema.js';
import { parseProfile } from '../../src/profiles/load.js';

const SHIPPED = join(import.meta.dirname, '../../profiles/recdeck-profile.schema.json');
const REGENERATE = 'regenerate it: npm run schema';

describe('the profile JSON Schema', () => {
  it('is shipped exactly as generated from the zod schema', () => {
    const shipped = readFileSync(SHIPPED, 'utf8');
    expect(JSON.parse(shipped), `profiles/recdeck-profile.schema.json is out of date; ${REGENERATE}`).toEqual(profileJsonSchema());
    expect(shipped, `profiles/recdeck-profile.schema.json is not formatted as generated; ${REGENERATE}`).toBe(jsonSchemaText(profileJsonSchema()));
  });

  it('names itself and describes the top-level fields of a profile', () => {
    const schema = profileJsonSchema();
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: PROFILE_SCHEMA_ID, title: expect.any(String), type: 'object' });
    const sample = parseProfile('name: x\nmatch: { kind: memory, model: [a, b] }\nbrightness: 50\npages: [{ name: main, controls: {} }]\noverlays: { dialog: main }\n', 'sample.yaml');
    if (!sample.ok) throw new Error(JSON.stringify(sample.problems));
    const properties = schema.properties as Record<string, unknown>;
    for (const key of Object.keys(sample.loaded.profile)) expect(properties, key).toHaveProperty(key);
    expect(schema.required).toEqual(['name', 'match', 'pages']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('resolves every reference it makes', () => {
    const schema = profileJsonSchema();
    const text = JSON.stringify(schema);
    const definitions = (schema.$defs ?? {}) as Record<string, unknown>;
    const references = [...text.matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)].map((match) => match[1] as string);
    expect(references.length).toBeGreaterThan(0);
    for (const name of references) expect(definitions, name).toHaveProperty(name);
    // Definitions used only once are written in place, so the file reads top to bottom.
    for (const name of Object.keys(definitions)) expect(references.filter((r) => r === name).length, name).not.toBe(1);
  });

  it('lets an editor see the actions and what fields with defaults may leave out', () => {
    const schema = profileJsonSchema();
    const text = JSON.stringify(schema);
    for (const action of ['rec-start', 'sync-rec-toggle', 'gain-fader', 'page-next', 'macro']) expect(text.includes(`"const":"${action}"`), action).toBe(true);
    // io: 'input': hold.ms has a default, so a profile may leave it out.
    const binding = dig(schema, ['properties', 'pages', 'items', 'properties', 'controls', 'additionalProperties']);
    expect(dig(binding, ['properties', 'hold', 'required'])).toEqual(['do']);
    expect(dig(binding, ['properties', 'hold', 'properties', 'ms', 'default'])).toBe(800);
  });
});

function dig(node: unknown, path: readonly string[]): unknown {
  let value = node;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
