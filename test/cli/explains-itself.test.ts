// e2e because the bin itself is what a new operator meets: its --help, --version, exit status and stderr
// wording, and a start refused before anything listens, as a process; flag tables and messages are
// checked in this process against the functions the bin calls.
// The CLI as a new operator meets it (issue 13): --help on every command (each flag with its meaning and
// default, generated from the command's flag table), --version, numbers out of range in the project's
// words, a busy web port that stops the start at once, and a profile bad at start that comes up (web
// deck included) when it is fixed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callCommand, callHelp } from '../../src/cli/call.js';
import { devicesCommand } from '../../src/cli/devices.js';
import { helpText, usageLine, type CommandSpec } from '../../src/cli/flags.js';
import { profilesCheckCommand } from '../../src/cli/profiles-check.js';
import { parseRunArgs, runCommand, startBridge, type RunningBridge } from '../../src/cli/run.js';
import { setupUdevCommand } from '../../src/cli/setup-udev.js';
import { simulate, simulateCommand } from '../../src/cli/simulate.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { watch, watchCommand } from '../../src/cli/watch.js';
import type { Logger } from '../../src/engine/log.js';
import { until } from '../support/until.js';

const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Help text with each wrapped description joined back onto its first line (continuations are deeply indented). */
const unwrapped = (help: string) => help.replace(/\n {14,}/g, ' ');

function recdeck(args: string[], traceFile?: string) {
  // With a trace file, the process writes there every module it loaded (test/support/module-trace.mjs).
  const preload = traceFile === undefined ? [] : [`--import=${new URL('../support/module-trace.mjs', import.meta.url).href}`];
  const env = traceFile === undefined ? process.env : { ...process.env, MODULE_TRACE_FILE: traceFile };
  const child = spawn(process.execPath, [...preload, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = (once(child, 'exit') as Promise<[number | null, string | null]>).then(([code]) => ({ code, stdout, stderr }));
  return { child, exit };
}

const COMMANDS: CommandSpec[] = [runCommand, simulateCommand, devicesCommand, setupUdevCommand, callCommand, watchCommand];

type Run = ReturnType<typeof recdeck>;
/** The bin's runs the tests below check, started together before them (see below). */
let runs: { overview: Run; commandHelp: Run; callHelp: Run; version: Run; mistake: Run; busyPort: Run };
/** What holds the port the busy-port run is given, until that run has ended. */
let blocker: Server;
let busyPort: number;
/** Where the overview's run and the busy-port run list the modules they loaded. */
let traceFolder: string;

// The bin's runs are started at once, before the tests, and each test waits on its own: each run is a
// Node start and a command's module load (a second of CPU or more for the overview and run's, which load
// the bridge), so they overlap each other and the in-process tests instead of following one another.
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  busyPort = (blocker.address() as { port: number }).port;
  traceFolder = await mkdtemp(join(tmpdir(), 'recdeck-overview-'));
  runs = {
    overview: recdeck(['--help'], join(traceFolder, 'modules.txt')),
    commandHelp: recdeck(['devices', '--help']),
    callHelp: recdeck(['call', '--help']),
    version: recdeck(['--version']),
    mistake: recdeck(['devices', '--bogus']),
    busyPort: recdeck(['run', '--web-port', String(busyPort), '--log-format', 'json'], join(traceFolder, 'run-modules.txt')),
  };
});

afterAll(async () => {
  // A run that did not end by itself (a start that should have been refused) is stopped, not left behind.
  for (const { child, exit } of Object.values(runs ?? {})) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  }
  await new Promise((resolve) => blocker?.close(resolve));
  if (traceFolder) await rm(traceFolder, { recursive: true, force: true });
});

// Each spawn of the built CLI costs a Node start and a command's module load (about a second of CPU
// here), so the bin itself is run where the bin is the point (the overview, one command's help, call's
// own help, --version, a mistake's exit status and wording, a busy port) and every command's flag table
// and every mistake's message are checked in this process against the same functions the bin calls.
// The command help and the mistake the bin is run for are the lightest command's (devices: a third of a
// second of CPU each, against twice that for watch's, which loads zod and the recorder client, and 1.7 s
// for run's, which loads the whole bridge): the bin's way to a command's help and to a usage error is the
// same for every command; each command's own flags and messages are checked in this process, and the bin
// loads run's module for the busy port below.
describe('--help and --version', () => {
  it('recdeck --help lists every command with what it does', async () => {
    const { code, stdout } = await runs.overview.exit;
    expect(code).toBe(0);
    for (const spec of [...COMMANDS, profilesCheckCommand]) expect(unwrapped(stdout)).toContain(`  ${spec.name.padEnd(14)}  ${spec.summary}`);
  });

  // The overview is what an unknown command and a bare `recdeck` print too: it needs each command's one
  // line (command-overview.ts), not the command. Loading every command's module for it cost 1.2 s of CPU.
  it('recdeck --help loads no command\'s module and no package', async () => {
    expect((await runs.overview.exit).code).toBe(0);
    const files = (await readFile(join(traceFolder, 'modules.txt'), 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const dist = new URL('../../dist/', import.meta.url).href;
    expect(files.filter((url) => !url.startsWith(dist))).toEqual([]);
    expect(files.map((url) => url.slice(dist.length)).sort()).toEqual(['api/errors.js', 'cli/command-overview.js', 'cli/flags.js', 'cli/main.js', 'cli/node-flags.js', 'cli/usage-error.js']);
  });

  it('the bin prints a command\'s help, exit 0 (call --help its own); run --help says what the defaults are, e.g. --poll-ms and --web-port', async () => {
    const [command, call] = await Promise.all([runs.commandHelp.exit, runs.callHelp.exit]);
    expect({ code: command.code, stderr: command.stderr, stdout: command.stdout }).toEqual({ code: 0, stderr: '', stdout: helpText(devicesCommand) });
    expect({ code: call.code, stderr: call.stderr, stdout: call.stdout }).toEqual({ code: 0, stderr: '', stdout: callHelp() });
    const stdout = unwrapped(helpText(runCommand));
    expect(stdout).toMatch(/--poll-ms N +poll the recorder every N ms \(50 to 10000\) \[default: 250\]/);
    expect(stdout).toMatch(/--web-port PORT +port of the web deck and remote API \(0: any free port\) \[default: 7900\]/);
  });

  it('--version prints the version in package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const { code, stdout } = await runs.version.exit;
    expect({ code, stdout }).toEqual({ code: 0, stdout: `recdeck ${version}\n` });
  });

  it.each(COMMANDS.map((spec) => [spec.name, spec] as const))('recdeck %s --help: every flag of its table with its meaning and default', (name, spec) => {
    expectEveryFlag(name, spec, name === 'call' ? callHelp() : helpText(spec));
  });
});

describe('mistakes on the command line', () => {
  const quietOut = new Writable({ write: (_chunk, _encoding, done) => done() });
  // What `recdeck NAME ARGS` runs: the same function the bin calls (the usage errors come before anything starts).
  const commandOf: Record<string, (args: string[]) => Promise<unknown>> = {
    run: async (args) => parseRunArgs(args, {}),
    watch: (args) => watch(args, {}, quietOut),
    simulate: (args) => simulate(args),
  };
  it.each([
    [['run', '--poll-ms', '-5'], 'recdeck run: --poll-ms: expected a whole number of ms from 50 to 10000, got -5'],
    [['run', '--poll-ms', '5'], 'recdeck run: --poll-ms: expected a whole number of ms from 50 to 10000, got 5'],
    [['run', '--web-port', '70000'], 'recdeck run: --web-port: expected a whole number from 0 to 65535, got 70000'],
    [['watch', '--poll-ms', '-1'], 'recdeck watch: --poll-ms: expected a whole number of ms from 50 to 60000, got -1'],
    [['simulate', '--seed', '-3'], 'recdeck simulate: --seed: expected a whole number from 0 to 4294967295, got -3'],
    [['run', '--bogus'], "recdeck run: Unknown option '--bogus'; recdeck run --help lists the options"],
  ])('%j is a usage error in the project\'s own words', async ([name, ...args], message) => {
    const refusal = await Promise.resolve()
      .then(() => commandOf[name as string]?.(args))
      .then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(UsageError);
    expect(`recdeck ${name}: ${(refusal as UsageError).message}`).toBe(message);
  });

  it('the bin exits 2 with the message first and the usage line after', async () => {
    const { code, stderr } = await runs.mistake.exit;
    expect(code).toBe(2);
    expect(stderr).toBe(`recdeck devices: Unknown option '--bogus'; recdeck devices --help lists the options\nusage: ${usageLine(devicesCommand)}\n`);
  });
});

/** Every flag of a command's table in its help, with its meaning and its default. */
function expectEveryFlag(name: string, spec: CommandSpec, help: string): void {
  expect(help).toMatch(new RegExp(`^usage: recdeck ${name}\\b`));
  for (const [flag, definition] of Object.entries(spec.flags)) {
    const line = unwrapped(help).split('\n').find((l) => l.includes(`--${flag}${definition.type === 'string' ? ' ' : ''}`) && l.includes(definition.description));
    expect(line, `--${flag} in ${name} --help`).toBeDefined();
    const shown = definition.shownDefault ?? (typeof definition.default === 'string' ? definition.default : undefined);
    if (shown !== undefined) expect(line).toContain(`[default: ${shown}]`);
  }
}

describe('a busy web port', () => {
  it('stops the start at once: exit 2 before anything else starts, saying which port and what to do', async () => {
    const port = busyPort;
    const { code, stdout, stderr } = await runs.busyPort.exit;
    expect(code).toBe(2);
    // "At once": the port is checked first, so no simulator, poll, device or log line comes before the
    // refusal (how fast that is on a quiet machine is the bench's to show, not a timed test's).
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(`recdeck run: --web-port: port ${port} on 127.0.0.1 is in use; give another --web-port, or --no-web`);
  });

  // Every `recdeck run` pays for what its start loads (2.4 s of CPU a spawned run before 2026-11-28's
  // cuts; several times that on a Raspberry Pi, issue 35). The refused run above has loaded the whole
  // command (run.js and everything it imports) and made its logger: what a feature or a format only some
  // starts use is imported where it is used, not there. Which packages the bridge needs is not listed
  // here (the renderer, the web server, the devices): only what a start must not carry.
  it('recdeck run does not load what only some starts use: the embedded simulator, the web server, pino-pretty for JSON logs, MQTT, Satellite, network decks, the drawing libraries before a picture, other commands', async () => {
    expect((await runs.busyPort.exit).code).toBe(2);
    const files = (await readFile(join(traceFolder, 'run-modules.txt'), 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
    const dist = new URL('../../dist/', import.meta.url).href;
    const ours = files.flatMap((url) => (url.startsWith(dist) ? [url.slice(dist.length)] : []));
    expect(ours).toContain('cli/start-bridge.js'); // the trace saw the bridge's wiring: the list below is not empty by accident
    // The simulator is imported where it starts (no recorder given), the web server where it starts (after
    // the port check that refused this run: a --no-web bridge never loads it); no other command's module, nor the plugin's.
    const otherCommands = /^cli\/(simulate|call|watch|devices|setup-udev|service|service-plan|profiles-check|write-json-schemas|\w+-json-schemas)\.js$/;
    expect(ours.filter((file) => /^(simulator|plugin|surfaces\/satellite)\//.test(file) || file === 'remote/server.js' || otherCommands.test(file))).toEqual([]);
    const packages = new Set(files.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
    expect(packages).toContain('pino'); // the logger was made
    // pino-pretty: for --log-format pretty only; mqtt: --mqtt; the network Stream Deck library: --streamdeck-tcp;
    // ws and prom-client: the web server's; sharp (with libvips and semver) and opentype.js: the first
    // picture's (src/render/sharp-library.ts, opentype-library.ts), which a bridge that draws nothing never makes.
    expect(['pino-pretty', 'mqtt', '@elgato-stream-deck/tcp', 'ws', 'prom-client', 'sharp', '@img/sharp-linux-x64', 'semver', 'opentype.js'].filter((name) => packages.has(name))).toEqual([]);
  });
});

describe('a profile bad at start', () => {
  let running: RunningBridge | undefined;
  let folder: string | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    if (folder) await rm(folder, { recursive: true, force: true });
  });


  it('comes up when fixed, web deck included, and the log says so; it never claims a last good version it does not have', async () => {
    folder = await mkdtemp(join(tmpdir(), 'recdeck-fixed-'));
    const file = join(folder, 'web.yaml');
    const good = readFileSync(new URL('../../profiles/web-15-keys.yaml', import.meta.url), 'utf8');
    await writeFile(file, good.replace('action: rec-start, channel: 1 }', 'action: rec-strat, channel: 1 }'));
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
    running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths: [folder], pollMs: 100, env: {}, web: { host: '127.0.0.1', port: 0, password: null }, surfaces: [], sources: [] }, log);
    const remote = running.remote;
    if (!remote) throw new Error('no web server');
    const surfaceIds = async () => ((await (await request(`${remote.url}/surfaces`)).body.json()) as Array<{ id: string }>).map((s) => s.id);

    expect(running.bridge.session('web:web-15')).toBeUndefined();
    expect(await surfaceIds()).toEqual([]);
    const warning = lines.find((l) => l.startsWith('warn profile problems:')) ?? '';
    expect(warning).toContain('rec-strat');
    expect(warning).toContain(`${file}: not in use until it loads (recdeck watches it)`);
    expect(lines.join('\n')).not.toContain('last good version');

    await writeFile(file, good);
    await until(() => running?.bridge.session('web:web-15') !== undefined, 'the web deck to come up');
    await until(async () => (await surfaceIds()).includes('web:web-15'), 'the remote API to list it');
    expect(lines).toContain(`info ${file}: loads now; in use`);
    expect(lines.some((l) => l.startsWith('info web:web-15 (Web deck, 15 keys): profile "Web 15 keys"'))).toBe(true);

    // A bad edit now keeps the last good version, and says so.
    await writeFile(file, good.replace('action: rec-start, channel: 1 }', 'action: rec-strat, channel: 1 }'));
    await until(() => lines.some((l) => l.includes(`${file}: its last good version stays in use`)), 'the bad edit to be reported');
    expect(running.bridge.session('web:web-15')?.profileName).toBe('Web 15 keys');
  });
});
