#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=100
// The `recdeck` command.
import { readFileSync } from 'node:fs';
import { messageOf } from '../api/errors.js';
import { bus, busKeygenCommand } from './bus-keys.js';
import { call, callCommand } from './call.js';
import { devices, devicesCommand } from './devices.js';
import { HELP_WIDTH, helpText, usageLine, wrap, type CommandSpec } from './flags.js';
import { run, runCommand } from './run.js';
import { setupUdev, setupUdevCommand } from './setup-udev.js';
import { simulate, simulateCommand } from './simulate.js';
import { UsageError } from './usage-error.js';
import { watch, watchCommand } from './watch.js';

const commands: Record<string, { run: (args: string[]) => Promise<void>; spec: CommandSpec }> = {
  run: { run, spec: runCommand },
  simulate: { run: simulate, spec: simulateCommand },
  devices: { run: (args) => devices(args), spec: devicesCommand },
  'setup-udev': { run: (args) => setupUdev(args), spec: setupUdevCommand },
  // call prints its own help: the flags and every operation.
  call: { run: (args) => call(args), spec: callCommand },
  watch: { run: (args) => watch(args), spec: watchCommand },
  bus: { run: (args) => bus(args), spec: busKeygenCommand },
};

/** The version in package.json (two folders up from both src/cli and dist/cli). */
function version(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

const usage = [
  'usage: recdeck COMMAND [OPTION …]   (recdeck COMMAND --help: its options, their meaning and defaults)',
  '       recdeck --version',
  '',
  'Commands:',
  ...Object.values(commands).flatMap(({ spec }) => wrap(spec.summary, HELP_WIDTH - 14).map((line, i) => `  ${(i === 0 ? spec.name : '').padEnd(10)}  ${line}`)),
  '',
].join('\n');

/** --help anywhere before a lone "--" (so a value after "--" is never taken for it). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`recdeck ${version()}\n`);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`recdeck: unknown command ${JSON.stringify(name)}\n${usage}`);
    return 2;
  }
  if (name !== 'call' && asksForHelp(args)) {
    process.stdout.write(helpText(command.spec));
    return 0;
  }
  try {
    await command.run(args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`recdeck ${name}: ${error.message}\nusage: ${usageLine(command.spec)}\n`);
      return 2;
    }
    process.stderr.write(`recdeck ${name}: ${messageOf(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
