// `--audit-file`: every command of the bridge as a JSON line, rotated by size, and a file that cannot
// be written said at once (at start) or once per problem (while running), never a crash.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditFile } from '../../src/cli/audit-file.js';
import { parseRunArgs, startBridge, type RunningBridge } from '../../src/cli/run.js';
import { UsageError } from '../../src/cli/usage-error.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import { until } from '../support/until.js';
import { realTime } from '../../src/engine/engine-time.js';

let folder: string;
const problems: string[] = [];
const log: Logger = { info: () => undefined, warn: (m) => problems.push(m), error: (m) => problems.push(m) };
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-audit-'));
  problems.length = 0;
});
afterEach(() => rm(folder, { recursive: true, force: true }));

const record = (n: number): CommandRecord => ({
  at: Date.UTC(2026, 10, 23, 12, 0, n),
  surface: 'memory:desk',
  control: `key${n}`,
  action: 'rec-start',
  recorder: 'main',
  request: `PUT /api/channels/${n}/rec-start`,
  result: 'ok',
  message: null,
  requestAfterMs: 0.4,
  latencyMs: 2.5,
});
const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as CommandRecord & { time: string });

describe('the audit file', () => {
  it('appends one JSON line per command, in order, with its time', async () => {
    const path = join(folder, 'audit.jsonl');
    await writeFile(path, `${JSON.stringify({ earlier: true })}\n`);
    const audit = await AuditFile.open({ path, maxBytes: 1 << 20, log });
    for (let n = 0; n < 3; n++) audit.write(record(n));
    await audit.close();
    const written = await lines(path);
    expect(written).toHaveLength(4); // appended: the line already there is kept
    expect(written.slice(1)).toEqual([0, 1, 2].map((n) => ({ time: `2026-11-23T12:00:0${n}.000Z`, ...record(n) })));
  });

  it('rotates by size: FILE.1 the newest full file, at most `keep` of them, no line lost or split', async () => {
    const path = join(folder, 'audit.jsonl');
    const lineBytes = Buffer.byteLength(`${JSON.stringify({ time: 'x', ...record(0) })}\n`) + 23;
    const audit = await AuditFile.open({ path, maxBytes: lineBytes * 3, keep: 2, log });
    for (let n = 0; n < 10; n++) audit.write(record(n));
    await audit.close();
    expect((await readdir(folder)).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    const controls = async (file: string) => (await lines(join(folder, file))).map((r) => r.control);
    expect(await controls('audit.jsonl.2')).toEqual(['key3', 'key4', 'key5']);
    expect(await controls('audit.jsonl.1')).toEqual(['key6', 'key7', 'key8']);
    expect(await controls('audit.jsonl')).toEqual(['key9']);
    expect(problems).toEqual([]);
  });

  it('a path that cannot be written is a usage error at start, naming it', async () => {
    const path = join(folder, 'no-such-folder', 'audit.jsonl');
    const error = await AuditFile.open({ path, maxBytes: 1000, log }).then(() => expect.unreachable(), (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(new RegExp(`^--audit-file: cannot write ${path}: ENOENT`));
  });

  it('a write that fails later is said once, and the next good write goes on', async () => {
    const sub = join(folder, 'sub');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(sub);
    const path = join(sub, 'audit.jsonl');
    const audit = await AuditFile.open({ path, maxBytes: 1 << 20, log });
    await rm(sub, { recursive: true });
    audit.write(record(0));
    audit.write(record(1));
    await audit.close();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/audit file .*audit\.jsonl: a command was not recorded: ENOENT/);
    await mkdir(sub);
    audit.write(record(2));
    await audit.close();
    expect((await lines(path)).map((r) => r.control)).toEqual(['key2']);
  });
});

describe('recdeck run --audit-file', () => {
  let running: RunningBridge | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('parses the flags', () => {
    expect(parseRunArgs(['--audit-file', 'a.jsonl'], {}).audit).toEqual({ file: 'a.jsonl', maxBytes: 10 * 1024 * 1024 });
    expect(parseRunArgs(['--audit-file', 'a.jsonl', '--audit-max-mb', '2'], {}).audit).toEqual({ file: 'a.jsonl', maxBytes: 2 * 1024 * 1024 });
    expect(parseRunArgs([], {}).audit).toBeNull();
    expect(() => parseRunArgs(['--audit-file', 'a', '--audit-max-mb', 'big'], {})).toThrow(/--audit-max-mb: expected a whole number of MB from 1, got big/);
  });

  it('records every command the bridge runs, refused ones too', async () => {
    const profiles = join(folder, 'profiles');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(profiles);
    await writeFile(join(profiles, 'desk.yaml'), 'name: desk\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: rec-start, channel: 1 } }\n      key1: { press: { action: rec-pause, channel: 2 } }\n');
    const path = join(folder, 'audit.jsonl');
    const surface = new MemorySurface({ time: realTime, id: 'memory:desk', model: 'test-15', controls: keyGrid(3, 5, 72) });
    running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths: [profiles], pollMs: 100, env: {}, web: null, surfaces: [surface], sources: [], audit: { file: path, maxBytes: 1 << 20 } }, log);
    const waitForLines = (count: number) => until(async () => (await lines(path)).length >= count, `${count} audit lines`);
    surface.press('key0');
    await waitForLines(1);
    surface.press('key1');
    await waitForLines(2);
    const [start, pause] = await lines(path);
    expect(start).toMatchObject({ surface: 'memory:desk', control: 'key0', action: 'rec-start', recorder: 'main', request: 'PUT /api/channels/0/rec-start', result: 'ok' });
    expect(pause).toMatchObject({ control: 'key1', action: 'rec-pause', result: 'failed', message: expect.stringContaining('not recording') });
    expect(JSON.stringify(await lines(path))).not.toContain(running.simulator?.token ?? 'no token');
  });
});
