#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=100
// The `recdeck` command.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { messageOf } from '../api/errors.js';
import { HELP_WIDTH, helpText, usageLine, wrap, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW, type CommandName } from './command-overview.js';
import { CALL_V8_FLAGS } from './node-flags.js';
import { UsageError } from './usage-error.js';

/** What a command does with its arguments; resolves to the exit status where it is not simply 0 (a check that found problems). */
type Run = (args: string[]) => Promise<void | number>;

/** A command's two halves, each imported only when needed: its spec (help, usage, the overview) and its work. */
interface Command {
  spec: () => Promise<CommandSpec>;
  run: () => Promise<Run>;
}

/** A command whose spec and work are in one module. */
function inOneModule<M>(load: () => Promise<M>, spec: (module: M) => CommandSpec, run: (module: M) => Run): Command {
  return { spec: async () => spec(await load()), run: async () => run(await load()) };
}

// Each command's module is imported only when that command runs (or its help is asked for): loading
// every command (the bridge, the simulator, Stream Deck, MIDI, sharp) cost `recdeck --version` a second
// of CPU, paid by every script and test that calls the CLI (npm run bench:cli). `run`'s spec is in a
// module of its own: printing the overview, `run --help` or a usage error for an unknown command no
// longer loads the bridge (run.js: about 1.7 s of CPU against 0.7 s for run-flags.js, measured by the
// browserspeed engineer at load ~20). The overview loads none of them: its lines are command-overview.ts's.
const commands: Record<CommandName, Command> = {
  run: { spec: async () => (await import('./run-flags.js')).runCommand, run: async () => (await import('./run.js')).run },
  simulate: inOneModule(() => import('./simulate.js'), (m) => m.simulateCommand, (m) => m.simulate),
  devices: inOneModule(() => import('./devices.js'), (m) => m.devicesCommand, (m) => (args) => m.devices(args)),
  'setup-udev': inOneModule(() => import('./setup-udev.js'), (m) => m.setupUdevCommand, (m) => (args) => m.setupUdev(args)),
  // call prints its own help: the flags and every operation.
  call: inOneModule(() => import('./call.js'), (m) => m.callCommand, (m) => (args) => m.call(args)),
  watch: inOneModule(() => import('./watch.js'), (m) => m.watchCommand, (m) => (args) => m.watch(args)),
  bus: inOneModule(() => import('./bus-keys.js'), (m) => m.busKeygenCommand, (m) => (args) => m.bus(args)),
  service: inOneModule(() => import('./service.js'), (m) => m.serviceCommand, (m) => (args) => m.service(args)),
  profiles: inOneModule(() => import('./profiles-check.js'), (m) => m.profilesCheckCommand, (m) => (args) => m.profiles(args)),
};

/** The version in package.json (two folders up from both src/cli and dist/cli). */
function version(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** The overview: every command's summary, in the table's order, without loading any command. */
function usage(): string {
  const specs = Object.keys(commands).map((name) => COMMAND_OVERVIEW[name as CommandName]);
  return [
    'usage: recdeck COMMAND [OPTION …]   (recdeck COMMAND --help: its options, their meaning and defaults)',
    '       recdeck --version',
    '',
    'Commands:',
    ...specs.flatMap((spec) => wrap(spec.summary, HELP_WIDTH - 18).map((line, i) => `  ${(i === 0 ? spec.name : '').padEnd(14)}  ${line}`)),
    '',
  ].join('\n');
}

/** --help anywhere before a lone "--" (so a value after "--" is never taken for it). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`recdeck ${version()}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name as CommandName] : undefined;
  if (!command) {
    process.stderr.write(`recdeck: unknown command ${JSON.stringify(name)}\n${usage()}`);
    return 2;
  }
  if (name !== 'call' && asksForHelp(args)) {
    process.stdout.write(helpText(await command.spec()));
    return 0;
  }
  try {
    return (await (await command.run())(args)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`recdeck ${name}: ${error.message}\nusage: ${usageLine(await command.spec())}\n`);
      return 2;
    }
    process.stderr.write(`recdeck ${name}: ${messageOf(error)}\n`);
    return 1;
  }
}

const args = process.argv.slice(2);
if (args[0] === 'call') for (const flag of CALL_V8_FLAGS) setFlagsFromString(flag);
process.exitCode = await main(args);
