#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=100
// The `recdeck` command.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { messageOf } from '../api/errors.js';
import { HELP_WIDTH, helpText, usageLine, wrap, type CommandSpec } from './flags.js';
import { CALL_V8_FLAGS } from './node-flags.js';
import { UsageError } from './usage-error.js';

interface Command {
  /** Resolves to the exit status where it is not simply 0 (a check that found problems). */
  run: (args: string[]) => Promise<void | number>;
  spec: CommandSpec;
}

// Each command's module is imported only when that command runs (or its help is asked for): loading
// every command (the bridge, the simulator, Stream Deck, MIDI, sharp) cost `recdeck --version` a second
// of CPU, paid by every script and test that calls the CLI (npm run bench:cli).
const commands: Record<string, () => Promise<Command>> = {
  run: async () => { const m = await import('./run.js'); return { run: m.run, spec: m.runCommand }; },
  simulate: async () => { const m = await import('./simulate.js'); return { run: m.simulate, spec: m.simulateCommand }; },
  devices: async () => { const m = await import('./devices.js'); return { run: (args) => m.devices(args), spec: m.devicesCommand }; },
  'setup-udev': async () => { const m = await import('./setup-udev.js'); return { run: (args) => m.setupUdev(args), spec: m.setupUdevCommand }; },
  // call prints its own help: the flags and every operation.
  call: async () => { const m = await import('./call.js'); return { run: (args) => m.call(args), spec: m.callCommand }; },
  watch: async () => { const m = await import('./watch.js'); return { run: (args) => m.watch(args), spec: m.watchCommand }; },
  bus: async () => { const m = await import('./bus-keys.js'); return { run: (args) => m.bus(args), spec: m.busKeygenCommand }; },
  service: async () => { const m = await import('./service.js'); return { run: (args) => m.service(args), spec: m.serviceCommand }; },
  profiles: async () => { const m = await import('./profiles-check.js'); return { run: (args) => m.profiles(args), spec: m.profilesCheckCommand }; },
};

/** The version in package.json (two folders up from both src/cli and dist/cli). */
function version(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** The overview: every command's summary, so it loads every command (only when asked for). */
async function usage(): Promise<string> {
  const specs = await Promise.all(Object.values(commands).map(async (load) => (await load()).spec));
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
    process.stdout.write(await usage());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`recdeck ${version()}\n`);
    return 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    process.stderr.write(`recdeck: unknown command ${JSON.stringify(name)}\n${await usage()}`);
    return 2;
  }
  const command = await load();
  if (name !== 'call' && asksForHelp(args)) {
    process.stdout.write(helpText(command.spec));
    return 0;
  }
  try {
    return (await command.run(args)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`recdeck ${name}: ${error.message}\nusage: ${usageLine(command.spec)}\n`);
      return 2;
    }
    process.stderr.write(`recdeck ${name}: ${messageOf(error)}\n`);
    return 1;
  }
}

const args = process.argv.slice(2);
if (args[0] === 'call') for (const flag of CALL_V8_FLAGS) setFlagsFromString(flag);
process.exitCode = await main(args);
