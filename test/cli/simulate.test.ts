// e2e because the point is the built command as a process: what it prints (URL, token), and its exit.
// `recdeck simulate` as a user runs it: the built command, a real process, its printed URL and token.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { simulate } from '../../src/cli/simulate.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { until } from '../support/until.js';
import { realClock } from '../../src/api/clock.js';

const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Every process a test started: one a failed test did not stop is stopped after the file (a simulator left running takes CPU from the rest of the suite). */
const children = new Set<ChildProcess>();
afterAll(async () => {
  const running = [...children].filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(running.map((child) => once(child, 'exit')));
});

/** With a trace file, the process writes there every module it loaded, at its exit (test/support/module-trace.mjs). */
function run(args: string[], traceFile?: string) {
  const preload = traceFile === undefined ? [] : [`--import=${new URL('../support/module-trace.mjs', import.meta.url).href}`];
  const env = traceFile === undefined ? process.env : { ...process.env, MODULE_TRACE_FILE: traceFile };
  const child = spawn(process.execPath, [...preload, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, out: () => stdout, err: () => stderr, exit: once(child, 'exit') as Promise<[number | null, string | null]> };
}


// Each test starts its own process on its own port: they run side by side.
describe.concurrent('recdeck simulate', () => {
  // Every test and script that starts a simulator pays for what its start loads (issue 31): the server, the
  // operation table and zod. sharp and the font code come with the first preview (0.62-0.67 against 0.31-0.42 s of
  // CPU to the listening line, docs/performance.md); the traced process here answers a read, no preview.
  it('prints a URL and token that work, and stops cleanly on SIGTERM; it loaded only the server, the operation table and their packages', async ({ onTestFinished }) => {
    const token = 'perm:0b5e8f52-3a4d-4c2e-9c4e-1f2a3b4c5d6e';
    const folder = await mkdtemp(join(tmpdir(), 'recdeck-simulate-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const trace = join(folder, 'modules.txt');
    const p = run(['simulate', '--port', '0', '--token', `Bearer ${token}`, '--grid', '9', '--seed', '3'], trace);
    await until(() => p.out().includes('Press Ctrl+C'), 'the ready line');
    const url = /listening on (http:\/\/\S+)/.exec(p.out())?.[1];
    expect(p.out()).toContain(`token:   ${token}`);
    const client = new RecorderClient({ clock: realClock, url: url ?? '', token });
    expect(await client.listChannels()).toHaveLength(9);
    await client.close();
    p.child.kill('SIGTERM');
    expect(await p.exit).toEqual([0, null]);

    const files = (await readFile(trace, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const dist = new URL('../../dist/', import.meta.url).href;
    const ours = files.flatMap((url) => (url.startsWith(dist) ? [url.slice(dist.length)] : []));
    expect(ours).toContain('simulator/server.js');
    expect(ours.filter((file) => !/^(api\/|simulator\/|cli\/(main|node-flags|command-overview|flags|usage-error|interrupted|simulate)\.js$)/.test(file))).toEqual([]);
    const packages = new Set(files.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
    expect([...packages].sort()).toEqual(['rxjs', 'zod']);
  });

  it('generates a token when none is given', async () => {
    const p = run(['simulate', '--port', '0']);
    await until(() => p.out().includes('Press Ctrl+C'), 'the ready line');
    expect(p.out()).toMatch(/token: {3}perm:[0-9a-f-]{36}/);
    p.child.kill('SIGINT');
    expect((await p.exit)[0]).toBe(0);
  });

  // The flag mistakes are checked in process, against the function the bin calls (the bin's exit 2 with
  // the message is explains-itself's); the bin is spawned for a command it does not know.
  it.each([
    [['--grid', '5'], '--grid: expected 1, 4, 9 or 16, got 5'],
    [['--port', 'x'], '--port: expected a whole number from 0 to 65535, got x'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('simulate %j is a usage error naming what is wrong', async (args, message) => {
    const refusal = await simulate(args).then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as UsageError).message).toContain(message);
  });

  it('an unknown command exits 2 naming it', async () => {
    const p = run(['fly']);
    expect((await p.exit)[0]).toBe(2);
    expect(p.err()).toContain('unknown command "fly"');
  });

  it('a project file that cannot be loaded is reported, exit 1', async () => {
    const p = run(['simulate', '--port', '0', '--project', '/nonexistent/show.json']);
    expect((await p.exit)[0]).toBe(1);
    expect(p.err()).toContain('no project file at /nonexistent/show.json');
  });
});
