// The MIDI map JSON Schema shipped for editors is exactly what the zod schema generates.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSchemaText } from '../../../src/profiles/json-schema.js';
import { MIDI_MAP_SCHEMA_ID, midiMapJsonSchema } from '../../../src/surfaces/midi/map-json-schema.js';

describe('MIDI map JSON Schema', () => {
  it('is shipped exactly as generated (npm run schema regenerates it)', () => {
    const shipped = readFileSync(join(import.meta.dirname, '../../../profiles/midi/recdeck-midi-map.schema.json'), 'utf8');
    expect(shipped).toBe(jsonSchemaText(midiMapJsonSchema()));
    const schema = JSON.parse(shipped) as { $id: string; properties: Record<string, unknown> };
    expect(schema.$id).toBe(MIDI_MAP_SCHEMA_ID);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['name', 'model', 'ports', 'controls', 'leds']));
  });
});
