// e2e because one test runs the built bin as a process (its printed lines, --log-level debug, SIGHUP,
// a clean exit on SIGINT); the others run startBridge, what the bin calls, in this process.
// `recdeck run` as a whole: the embedded simulator when no recorder is given, profiles from a folder,
// a bad edit to a profile while it runs (the last good version keeps the surface working), and
// profiles that fit one surface equally (a tie said once, in the log and GET /state; the operator's
// own profile outranks the shipped one).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Logger } from '../../src/engine/log.js';
import type { StateView } from '../../src/remote/state-view.js';
import { parseRunArgs, startBridge, type RunningBridge } from '../../src/cli/run.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import { TEST_MS, WAIT_MS, until } from '../support/until.js';
import { realClock } from '../../src/api/clock.js';
import { realTime } from '../../src/engine/engine-time.js';

const profile = (action: string) => `name: desk\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: ${action}, channel: 1 } }\n`;

let running: RunningBridge | undefined;
let folder: string | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
  if (folder) await rm(folder, { recursive: true, force: true });
});


describe('recdeck run', () => {
  it('parses its flags and refuses a bad poll interval with a message naming it', () => {
    expect(parseRunArgs(['--recorder', 'http://10.0.0.5:9000', '--poll-ms', '500', '--profile', 'a.yaml'], {})).toMatchObject({ recorderFlags: ['http://10.0.0.5:9000'], pollMs: 500, profilePaths: [SHIPPED_PROFILES, 'a.yaml'] });
    // The operator's own profiles join the shipped ones (a path of the shipped folder is not bound twice), unless told not to.
    expect(parseRunArgs(['--profile', SHIPPED_PROFILES, '--profile', join(SHIPPED_PROFILES, 'web-plus.yaml')], {}).profilePaths).toEqual([SHIPPED_PROFILES]);
    expect(parseRunArgs(['--no-shipped-profiles', '--profile', 'a.yaml'], {}).profilePaths).toEqual(['a.yaml']);
    expect(() => parseRunArgs(['--no-shipped-profiles'], {})).toThrow(/--no-shipped-profiles: give at least one --profile/);
    expect(() => parseRunArgs(['--poll-ms', 'fast'], {})).toThrow(/--poll-ms: expected a whole number of ms from 50 to 10000, got fast/);
    expect(() => parseRunArgs(['--bogus'], {})).toThrow(/bogus/);
  });

  it('uses the embedded simulator, and a bad profile edit keeps the last good profile running and says why', async () => {
    folder = await mkdtemp(join(tmpdir(), 'recdeck-run-'));
    const file = join(folder, 'desk.yaml');
    await writeFile(file, profile('rec-start'));
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const surface = new MemorySurface({ time: realTime, id: 'memory:desk', model: 'test-15', controls: keyGrid(3, 5, 72) });
    running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths: [folder], pollMs: 100, env: {}, web: null, surfaces: [surface], sources: [] }, log);
    const sim = running.simulator;
    expect(sim).not.toBeNull();
    expect(lines.some((l) => l.includes('embedded simulator'))).toBe(true);
    expect(running.bridge.session('memory:desk')?.profileName).toBe('desk');

    const press = async () => {
      const before = sim?.log.list().length ?? 0;
      surface.press('key0');
      await until(() => (sim?.log.list().slice(before).some((r) => r.method === 'PUT') ?? false), 'a PUT');
      return sim?.log.list().slice(before).filter((r) => r.method === 'PUT').map((r) => r.path);
    };
    expect(await press()).toEqual(['/api/channels/0/rec-start']);

    await writeFile(file, profile('rec-strat'));
    await until(() => lines.some((l) => l.includes('rec-strat')), 'the problem to be reported');
    const report = lines.find((l) => l.includes('rec-strat')) ?? '';
    expect(report).toContain(`${file}:6:`);
    expect(report).toContain('pages[0].controls.key0.press');
    expect(await press()).toEqual(['/api/channels/0/rec-start']); // the last good profile still works

    await writeFile(file, profile('rec-stop'));
    await until(() => {
      const binding = running?.bridge.session('memory:desk')?.describeControls().find((c) => c.control.id === 'key0')?.binding;
      return binding?.press?.action === 'rec-stop';
    }, 'the fixed profile to load');
    expect(await press()).toEqual(['/api/channels/0/rec-stop']);
  });
});

describe('the web port', () => {
  it('a port in use is a clear error, and nothing is left running', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await expect(
        startBridge({ recorderFlags: [], tokenFlags: [], profilePaths: [], pollMs: 100, env: {}, web: { host: '127.0.0.1', port, password: null }, surfaces: [], sources: [] }, { info: () => undefined, warn: () => undefined, error: () => undefined }),
      ).rejects.toThrow(`--web-port: port ${port} on 127.0.0.1 is in use; give another --web-port, or --no-web`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('recorders declared in a profile', () => {
  it('take URL and token from the environment, beside those from flags, and never print the token', async () => {
    const { startSimulator } = await import('../../src/simulator/server.js');
    const studio = await startSimulator({ clock: realClock, port: 0, tickMs: 0 });
    folder = await mkdtemp(join(tmpdir(), 'recdeck-run-'));
    await writeFile(
      join(folder, 'studio.yaml'),
      'name: studio\nmatch: { kind: memory }\nrecorders:\n  studio: { url: "${STUDIO_URL}", token: "${STUDIO_TOKEN}" }\npages:\n  - name: main\n    controls:\n      key0: { recorder: studio, press: { action: rec-start, channel: 1 } }\n',
    );
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const surface = new MemorySurface({ time: realTime, id: 'memory:studio', model: 'test', controls: keyGrid(1, 1, 72) });
    try {
      running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths: [folder], pollMs: 100, env: { STUDIO_URL: studio.url, STUDIO_TOKEN: studio.token }, web: null, surfaces: [surface], sources: [] }, log);
      expect(running.simulator).toBeNull(); // a recorder was given (by the profile), so no embedded simulator
      expect(running.bridge.recorderStates().map((s) => s.name)).toEqual(['studio']);
      surface.press('key0');
      await until(() => studio.log.list().some((r) => r.method === 'PUT'), 'the request at the studio recorder');
      expect(studio.log.list().filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);
      expect(lines.join('\n')).not.toContain(studio.token);
    } finally {
      await running?.stop();
      running = undefined;
      await studio.close();
    }
  });
});

// The operator's folders are made in the repository's own (git-ignored) tmp/: beside profiles/, and
// after it by path, so that a choice by file path alone would take the shipped profile.
const OPERATOR_ROOT = fileURLToPath(new URL('../../tmp/', import.meta.url));
const SHIPPED_PROFILES = fileURLToPath(new URL('../../profiles', import.meta.url));

async function startWithWeb(profilePaths: string[]): Promise<{ bridge: RunningBridge; lines: string[]; state: () => Promise<StateView> }> {
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths, pollMs: 100, env: {}, web: { host: '127.0.0.1', port: 0, password: null }, surfaces: [], sources: [] }, log);
  const url = `${running.remote?.url}/state`;
  return { bridge: running, lines, state: async () => (await (await request(url)).body.json()) as StateView };
}

const operatorFolder = async () => {
  await mkdir(OPERATOR_ROOT, { recursive: true });
  folder = await mkdtemp(join(OPERATOR_ROOT, 'profiles-'));
  return folder;
};
const shippedWeb15 = () => readFile(join(SHIPPED_PROFILES, 'web-15-keys.yaml'), 'utf8');

describe('profiles that tie for a surface', () => {
  it('a backup copy beside a profile: the tie is logged once (not again at a reload), given in GET /state, and gone with the copy', async () => {
    const dir = await operatorFolder();
    const original = join(dir, 'web-15-keys.yaml');
    const copy = join(dir, 'web-15-copy.yaml');
    const text = await shippedWeb15();
    await writeFile(original, text);
    await writeFile(copy, text.replace('name: Web 15 keys', 'name: Web 15 keys (copy)'));
    const { bridge, lines, state } = await startWithWeb([dir]);
    const ties = () => lines.filter((l) => l.includes('profiles tie'));
    const session = () => bridge.bridge.session('web:web-15');

    // The copy wins by file name ("web-15-c" before "web-15-k"), and that is said, naming both.
    expect(session()?.profileFile).toBe(copy);
    expect(ties()).toHaveLength(1);
    expect(ties()[0]).toBe(
      `web:web-15 (Web deck, 15 keys): profiles tie: ${copy} is in use; ${original} fits it just as well (as specific a match, none shipped with recdeck) and loses by file name only: make the one meant more specific (match: name or serial) or remove the others`,
    );
    const surface = (s: StateView) => s.surfaces.find((x) => x.id === 'web:web-15');
    expect(surface(await state())?.profileTie).toEqual({ winner: copy, others: [original], origin: 'operator' });

    // A reload that leaves the tie as it was says nothing more.
    await writeFile(copy, text.replace('name: Web 15 keys', 'name: Web 15 keys (copy, edited)'));
    await until(() => session()?.profileName === 'Web 15 keys (copy, edited)', 'the edit to be loaded');
    expect(ties()).toHaveLength(1);

    await rm(copy);
    await until(() => session()?.profileFile === original, 'the original in use again');
    expect(surface(await state())?.profileTie).toBeNull();
    expect(ties()).toHaveLength(1);

    // A tie that comes back is news again.
    await writeFile(copy, text);
    await until(() => session()?.profileFile === copy, 'the copy back');
    expect(ties()).toHaveLength(2);
  });

  it("the operator's own profile outranks the shipped one as specific: no tie, and the shipped decks untied", async () => {
    const dir = await operatorFolder();
    const studio = join(dir, 'studio-a.yaml');
    await writeFile(studio, (await shippedWeb15()).replace('name: Web 15 keys', 'name: Studio A'));
    // `--profile DIR` alone: the shipped profiles are bound beside it.
    const { bridge, lines, state } = await startWithWeb(parseRunArgs(['--profile', dir], {}).profilePaths);
    expect(bridge.bridge.session('web:web-15')?.profileFile).toBe(studio);
    expect(bridge.bridge.session('web:web-15')?.profileName).toBe('Studio A');
    expect(lines.filter((l) => l.includes('profiles tie'))).toEqual([]);
    const surfaces = (await state()).surfaces;
    expect(surfaces.map((s) => [s.id, s.profile, s.profileTie])).toEqual([
      ['web:web-15', 'Studio A', null],
      ['web:web-32', 'Web 32 keys', null],
      ['web:web-plus', 'Web Plus', null],
    ]);
  });
});

describe('recdeck run as a process', () => {
  // Its own bound: the start alone may take most of the project's 60 s on a loaded machine (below).
  it('prints the surfaces and their profiles and the URL to open, at --log-level debug each request and answer, answers SIGHUP, exits cleanly on SIGINT, and never loaded what it was not asked for', { timeout: 2 * TEST_MS }, async () => {
    const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
    // The process lists every module it loaded at its exit (test/support/module-trace.mjs): checked at the end.
    folder = await mkdtemp(join(tmpdir(), 'recdeck-run-modules-'));
    const traceFile = join(folder, 'modules.txt');
    const preload = `--import=${new URL('../support/module-trace.mjs', import.meta.url).href}`;
    const child = spawn(process.execPath, [preload, main, 'run', '--web-port', '0', '--log-format', 'pretty', '--log-level', 'debug'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MODULE_TRACE_FILE: traceFile } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = once(child, 'exit') as Promise<[number | null, string | null]>;
    // A failed check below must not leave the bridge running (polling and serving for the rest of the suite).
    onTestFinished(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exit;
    });
    // The whole start of the heaviest configuration (the embedded simulator, the web deck, every request
    // logged at debug) is ~3 s of CPU: with a second copy of the suite beside it, it took over 15 s in both
    // copies of two paired runs (2026-11-28 14:35-14:48), and 20-36 s by hand beside six busy loops (the
    // build before that day's start-up cuts 26-36 s, after 20-28 s). What is checked is what it prints, not how soon.
    await until(() => output.includes('open http://'), 'the URL to open', 3 * WAIT_MS);
    expect(output).toContain('using the embedded simulator');
    expect(output).toMatch(/web:web-15 \(Web deck, 15 keys\): Web 15 keys/);
    const url = /open (http:\/\/\S+)/.exec(output)?.[1] as string;
    const health = await request(`${url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    // Readiness waits on the recorder every web deck uses, the embedded simulator (live or not yet: both are answers).
    const ready = await request(`${url}/readyz`);
    expect({ status: ready.statusCode, body: await ready.body.json() }).toMatchObject({ status: expect.toBeOneOf([200, 503]), body: { recorders: [{ name: 'main' }] } });
    // At debug, a command is followed from the press to the recorder's answer.
    const press = await request(`${url}/surfaces/web:web-15/keys/0/press`, { method: 'POST' });
    expect(press.statusCode).toBe(200);
    await press.body.dump();
    await until(() => output.includes('web:web-15: key0: PUT /api/channels/0/rec-start: answered OK'), 'the answer at debug');
    expect(output).toMatch(/DEBUG.*web:web-15: key0: rec-start: sending PUT \/api\/channels\/0\/rec-start to "main"/);
    // SIGHUP reads the web password file again; with none it says so and runs on (its default would end the process).
    child.kill('SIGHUP');
    await until(() => output.includes('SIGHUP: the web password is not from a file; nothing to read again'), 'SIGHUP to be answered');
    const again = await request(`${url}/healthz`);
    expect(again.statusCode).toBe(200);
    await again.body.dump();
    child.kill('SIGINT');
    expect(await exit).toEqual([0, null]);
    expect(output).toContain('stopping: clearing the surfaces');

    // What this configuration (no --mqtt, no profile edited, only the shipped profiles and MIDI maps, whose
    // parses come from the build) does not use is never loaded: each is a live heap the collector marks at
    // every full collection (docs/performance.md, "A smaller live heap"). The bus's two name checks
    // (names.ts, limits.ts) are what run's flags use of it. The MIDI, Stream Deck and X-keys stacks are
    // loaded: they watch for a controller plugged in at any time.
    const loaded = (await readFile(traceFile, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    expect(loaded.some((url) => url.endsWith('/dist/cli/start-bridge.js'))).toBe(true); // the trace saw the bridge's modules
    const unused = [
      /\/dist\/bus\/(?!names\.js$|limits\.js$)/, // the state bus (--mqtt)
      /\/dist\/cli\/(bus-setup|alarm-bus)\.js$/, // its wiring
      /\/node_modules\/mqtt\//,
      /\/node_modules\/yaml\//, // YAML is parsed only for a profile or map the build did not parse, an edit, an alarm settings file
      /\/dist\/remote\/profiles-api\.js$/, // the profile editor's API, at its first request
      /\/dist\/plugin\//,
      /\/node_modules\/@elgato\/streamdeck\//, // the Stream Deck app's plugin SDK
      /\/dist\/surfaces\/satellite\//, // --satellite
      /\/node_modules\/@elgato-stream-deck\/tcp\//, // --streamdeck-tcp
      // undici's index (fetch, WebSocket, mocks, and through globalThis.Headers Node's own copy): the client
      // takes only the pool (src/api/undici-pool.ts), the alarms' request() is loaded at a first webhook.
      /\/node_modules\/undici\/index\.js$/,
      /\/node_modules\/undici\/lib\/(web|mock|cache)\//,
    ];
    expect(loaded.filter((url) => unused.some((pattern) => pattern.test(url)))).toEqual([]);
  });
});
