// e2e because the built bin is run as an operator's shell runs it (its exit status 0/1/2, stdout and stderr,
// env and node flags); the walk over every operation runs in this process, on the function the bin calls.
// `recdeck call`: every operation of the table from the shell, against the simulator. The walk goes
// over the operation table itself, so an operation added there and not callable here fails the test.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operations, type OperationId, type Operations } from '../../src/api/operations.js';
import { call, callHelp, commandName } from '../../src/cli/call.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

type WithBody = { [K in OperationId as Operations[K]['request'] extends undefined ? never : K]: unknown };

/** A body, as on the wire, for every operation that takes one (the compiler demands each). */
const bodies = (folder: string): WithBody => ({
  addSource: { Name: 'Shell source', AudioGain: '-3.0' },
  updateSource: { AudioGain: '-1.5' },
  addDestination: { Name: 'Shell destination' },
  updateDestination: { NamingTemplate: '%source%' },
  addPreset: { Name: 'Shell preset' },
  updatePreset: { VideoBitrate: '9000' },
  setConversionConfig: { IsEnabled: true, FrameRate: '25' },
  updateSettings: { PreviewStretch: true },
  saveProject: { Path: join(folder, 'from-shell.json') },
  loadProject: { Path: join(folder, 'from-shell.json') },
  setSchedule: { IsEnabled: true, StartTime: '08:00', StopTime: '09:00', ScheduleType: 'All channels' },
});

const SAMPLE_PARAMS: Record<string, string> = { index: '0', grid_size: '4', source_name: 'Cam 2', destination_name: 'Archive ProRes', action: 'cancel' };

function memoryIo(env: NodeJS.ProcessEnv, stdin = '') {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { io: { env, stdout, stdin: Readable.from([stdin]) }, out: () => out };
}

describe('recdeck call against the simulator', () => {
  let f: SimulatorFixture;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    f = await startFixture();
    env = { RECDECK_RECORDER: f.sim.url, RECDECK_TOKEN: f.sim.token };
  });
  afterEach(() => f.close());

  const shell = async (args: string[], stdin?: string) => {
    const { io, out } = memoryIo(env, stdin);
    await call(args, io);
    return out();
  };

  /** Arguments that make each operation succeed on the demo project, in the table's order. */
  const argsFor = async (id: OperationId, body: WithBody): Promise<string[]> => {
    const operation = operations[id];
    const params = [...operation.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => SAMPLE_PARAMS[m[1] as string] as string);
    // A delete takes the last item (the one this walk added), so the demo's assignments stay valid.
    if (id === 'deleteSource') params[0] = String((await f.client.listSources()).length - 1);
    if (id === 'deleteDestination') params[0] = String((await f.client.listDestinations()).length - 1);
    if (id === 'deletePreset') params[0] = String((await f.client.listPresets()).length - 1);
    if (id === 'unsetChannelSource') params[0] = '1';
    if (id === 'syncOn' || id === 'syncOff') params[0] = '2';
    const withBody = id in body ? ['--body', JSON.stringify(body[id as keyof WithBody])] : [];
    return [commandName(id), ...params, ...withBody];
  };

  it('calls every operation of the table, each answering JSON on stdout', async () => {
    const body = bodies(f.folder);
    const ids = Object.keys(operations) as OperationId[];
    expect(ids).toHaveLength(52);
    for (const id of ids) {
      // State some operations need first: an InSync channel for the sync take, a dialog to answer.
      if (id === 'syncRecStart') await f.client.syncOn(3);
      if (id === 'answerDialog') await f.raw('POST', '/_sim/dialog', { body: '{"content":"from the shell","buttons":"Yes_No"}' });
      const args = await argsFor(id, body);
      const before = f.sim.log.list().length;
      const out = await shell(args).catch((error: unknown) => {
        throw new Error(`recdeck call ${args.join(' ')}: ${String(error)}`);
      });
      const sent = f.sim.log.list().slice(before);
      expect(sent.map((r) => r.operation), args.join(' ')).toContain(id);
      expect(sent.find((r) => r.operation === id)?.status, args.join(' ')).toBe(200);
      const answer: unknown = JSON.parse(out);
      if (operations[id].method !== 'GET') expect(answer, args.join(' ')).toEqual({});
      else expect(answer, args.join(' ')).not.toEqual({});
    }
  });

  it('a read prints the decoded answer; --json prints it on one line', async () => {
    const pretty = await shell(['list-channels']);
    const compact = await shell(['list-channels', '--json']);
    expect(compact.trim().split('\n')).toHaveLength(1);
    expect(pretty.split('\n').length).toBeGreaterThan(10);
    const channels = JSON.parse(compact) as Array<{ Index: number; RecordingDuration: number }>;
    expect(channels.map((c) => c.Index)).toEqual([0, 1, 2, 3]);
    expect(typeof channels[0]?.RecordingDuration).toBe('number'); // seconds, as the client decodes hh:mm:ss
    const source = JSON.parse(await shell(['get-source', '0'])) as { AudioGain: unknown };
    expect(typeof source.AudioGain).toBe('number');
  });

  it('the preview prints as the Base64 of its PNG', async () => {
    const text: unknown = JSON.parse(await shell(['get-channel-preview', '0']));
    expect(text).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(text as string, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('a body from a file, inline or stdin is written as on the wire and reaches the recorder', async () => {
    const { writeFile } = await import('node:fs/promises');
    const file = join(f.folder, 'source.json');
    await writeFile(file, JSON.stringify({ Name: 'From file', AudioGain: '-4.5' }));
    await shell(['add-source', '--body', file]);
    await shell(['add-source', '--body', '-'], JSON.stringify({ Name: 'From stdin' }));
    const names = (await f.client.listSources()).map((s) => s.Name);
    expect(names).toEqual(expect.arrayContaining(['From file', 'From stdin']));
    const index = names.indexOf('From file');
    expect(await f.client.getSource(index)).toMatchObject({ AudioGain: -4.5 });
    expect(JSON.parse(f.sim.log.list().find((r) => r.body.includes('From file'))?.body ?? '')).toEqual({ Name: 'From file', AudioGain: '-4.5' });
  });

  it("a refusal throws the recorder's own message; nothing else was sent", async () => {
    await f.client.recStop(3);
    const error = await shell(['rec-pause', '3']).then(() => expect.unreachable(), (e: unknown) => e as Error);
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^Channel 4 is not recording; there is nothing to pause \(PUT \/api\/channels\/3\/rec-pause: 400\)$/);
  });

  it('bad input is a usage error naming what is wrong, and sends nothing', async () => {
    const before = f.sim.log.list().length;
    const usage = (args: string[]) => shell(args).then(() => expect.unreachable(), (e: unknown) => e as Error);
    expect((await usage(['get-channels'])).message).toMatch(/unknown operation "get-channels" \(did you mean "get-channel" or "list-channels"/);
    expect((await usage(['rec-start'])).message).toBe('rec-start takes <index>, got none');
    expect((await usage(['rec-start', 'one'])).message).toBe('<index>: expected a whole number (0-based position), got "one"');
    expect((await usage(['add-source'])).message).toMatch(/add-source needs --body/);
    expect((await usage(['add-source', '--body', '{"Name":"x","AudioGain":-3}'])).message).toBe('--body: AudioGain: expected a string, got -3');
    expect((await usage(['add-source', '--body', '{"Name":'])).message).toMatch(/^--body: --body is not JSON/);
    expect((await usage(['rec-start', '0', '--body', '{}'])).message).toBe('rec-start takes no --body');
    for (const error of await Promise.all([usage(['get-channels']), usage(['rec-start'])])) expect(error).toBeInstanceOf(UsageError);
    expect(f.sim.log.list().length).toBe(before);
  });

  it('flags work as for run: --recorder with the token from a file (never visible in ps); none at all is a usage error', async () => {
    await f.client.recStart(1);
    const tokenFile = join(f.folder, 'token');
    await writeFile(tokenFile, `${f.sim.token}\n`);
    const { io, out } = memoryIo({});
    await call(['get-channel', '1', '--json', '--recorder', f.sim.url, '--token-file', tokenFile], io);
    expect(JSON.parse(out())).toMatchObject({ Index: 1, IsRecording: true });
    const none = await call(['list-channels'], memoryIo({}).io).then(() => expect.unreachable(), (e: unknown) => e as Error);
    expect(none).toBeInstanceOf(UsageError);
    expect(none.message).toContain('no recorder');
  });

  it('the help is generated from the table: every operation, its parameters and body fields', () => {
    const help = callHelp();
    // One line per operation (the options start with -); that the bin prints exactly this is explains-itself's.
    expect(help.match(/^ {2}[a-z][a-z-]*/gm)).toHaveLength(52);
    for (const [id, operation] of Object.entries(operations)) {
      expect(help).toContain(commandName(id as OperationId));
      expect(help).toContain(`${operation.method} ${operation.path}`);
    }
    expect(help).toContain('set-channel-source <index> <source_name>');
    expect(help).toMatch(/add-source --body FILE\|JSON\|- +POST \/api\/sources +body: Name, VideoDevice, .*AudioGain/);
  });
});

// The built bin's runs below: one per exit status (0, 1, 2), started at once (each a Node start and a
// module load, mostly CPU) and each waited on by its test. What the bin adds to call() is its exit
// status, stdout and stderr, and its Node flags; call()'s own flags, messages and help are checked in
// this process above. They start after the in-process tests, not beside them: Node starts beside those
// would starve their requests (a preview's PNG is made within the client's 2 s timeout).
const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
type Ran = { code: number | null; stdout: string; stderr: string };

function run(args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Ran> {
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return (once(child, 'exit') as Promise<[number | null]>).then(([code]) => ({ code, stdout, stderr }));
}

describe('the built recdeck call', () => {
  let f: SimulatorFixture;
  let ran: Record<'started' | 'unknown' | 'badToken', Promise<Ran>>;
  let trace: string;

  beforeAll(async () => {
    f = await startFixture();
    const env = { RECDECK_RECORDER: f.sim.url, RECDECK_TOKEN: f.sim.token };
    trace = join(f.folder, 'modules.txt');
    ran = {
      // The modules this call loads are traced (see the last test).
      started: run(['call', 'rec-start', '1'], { ...env, MODULE_TRACE_FILE: trace }, [`--import=${new URL('../support/module-trace.mjs', import.meta.url).href}`]),
      unknown: run(['call', 'get-channels', '--json'], env),
      badToken: run(['call', 'list-channels'], { ...env, RECDECK_TOKEN: 'perm:wrong' }),
    };
  });

  afterAll(async () => {
    // Every run ends by itself (a call answers or fails, bounded by its request timeout).
    if (ran) await Promise.allSettled(Object.values(ran));
    await f?.close();
  });

  it('exits 0 with JSON, 1 with the recorder\'s message on stderr (never the token), 2 on a usage error; the recorder from the environment', async () => {
    const [started, unknown, badToken] = await Promise.all([ran.started, ran.unknown, ran.badToken]);
    expect(started).toMatchObject({ code: 0, stdout: '{}\n' });
    expect((await f.client.getChannel(1)).IsRecording).toBe(true);

    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/^recdeck call: .*Authorization token is not valid/);
    expect(badToken.stderr).not.toContain(f.sim.token);
    expect(badToken.stdout).toBe('');

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^recdeck call: unknown operation "get-channels" \(did you mean/);
    expect(unknown.stdout).toBe('');
  });

  // What one call costs every script and health check is mostly what it loads (npm run bench:cli): the
  // recorder client, zod and the operation table (and the commands' one-line summaries, a module importing
  // nothing), nothing of the bridge, its log or its devices.
  it('loads the client, the operation table and their packages, nothing else', async () => {
    const called = await ran.started;
    expect(called.code).toBe(0);
    const files = (await readFile(trace, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const dist = new URL('../../dist/', import.meta.url).href;
    const ours = files.flatMap((url) => (url.startsWith(dist) ? [url.slice(dist.length)] : []));
    expect(ours.filter((file) => !/^(api\/|cli\/(main|node-flags|command-overview|call|flags|usage-error|recorder-config|secret-file)\.js$)/.test(file))).toEqual([]);
    const packages = new Set(files.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
    expect([...packages].sort()).toEqual(['rxjs', 'undici', 'zod']);
    // Of rxjs only the clock's scheduler: its index loads the whole library (223 files).
    const rxjs = files.filter((url) => url.includes('/node_modules/rxjs/'));
    expect(rxjs.some((url) => url.endsWith('/rxjs/dist/cjs/index.js'))).toBe(false);
    expect(rxjs.length).toBeLessThan(20);
  });
});
