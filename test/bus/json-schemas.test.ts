import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { busJsonSchemas } from '../../src/cli/bus-json-schemas.js';
import { loadFacility } from '../../src/cli/facility-file.js';
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
    // A panel's acknowledgement of alarms: a command of its own on the same topic, with its term and deadline too.
    expect(byFile['alarm-ack.schema.json']).toMatchObject({ title: 'recdeck bus: recdeck/<recorder>/cmd/<panel>', properties: { body: { required: ['id', 'ack', 'term', 'sentAt', 'deadline'], properties: { ack: { required: ['alarms', 'by'], properties: { alarms: { maxItems: 50 } } } } } } });
    expect(byFile['alarm-ack-reply.schema.json']).toMatchObject({ properties: { body: { required: ['id', 'ok', 'acks'] } } });
  });
});

describe("the README's facility file", () => {
  it('loads as written', async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const example = /```yaml\n {3}# facility\.yaml\n([\s\S]*?) {3}```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const folder = mkdtempSync(join(tmpdir(), 'recdeck-readme-'));
    try {
      const file = join(folder, 'facility.yaml');
      writeFileSync(file, (example as string).replace(/^ {3}/gm, ''));
      const facility = await loadFacility(file);
      expect([...facility.pollers.keys(), ...facility.panels.keys()]).toEqual(['poller-main', 'poller-main-standby', 'desk-1', 'gallery']);
      expect(facility.panels.get('gallery')?.may.get('*')?.has('getChannelPreview')).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
