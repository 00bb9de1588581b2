#!/usr/bin/env -S node --max-semi-space-size=2
// The `recdeck` command.
import { call, callUsage } from './call.js';
import { devices, devicesUsage } from './devices.js';
import { run, runUsage } from './run.js';
import { setupUdev, setupUdevUsage } from './setup-udev.js';
import { simulate, simulateUsage } from './simulate.js';
import { UsageError } from './usage-error.js';
import { watch, watchUsage } from './watch.js';

const commands: Record<string, { run: (args: string[]) => Promise<void>; usage: string }> = {
  run: { run, usage: runUsage },
  simulate: { run: simulate, usage: simulateUsage },
  devices: { run: (args) => devices(args), usage: devicesUsage },
  'setup-udev': { run: (args) => setupUdev(args), usage: setupUdevUsage },
  call: { run: (args) => call(args), usage: callUsage },
  watch: { run: (args) => watch(args), usage: watchUsage },
};

const usage = `usage:\n${Object.values(commands).map((c) => `  ${c.usage}`).join('\n')}\n`;

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`recdeck: unknown command ${JSON.stringify(name)}\n${usage}`);
    return 2;
  }
  try {
    await command.run(args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`recdeck ${name}: ${(error as Error).message}\nusage: ${command.usage}\n`);
      return 2;
    }
    process.stderr.write(`recdeck ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
