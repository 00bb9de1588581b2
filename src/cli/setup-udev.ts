// `recdeck setup-udev`: lets recdeck open Stream Decks without root on Linux. It says what it will
// write before writing, needs root, and reloads udev so decks already plugged in are covered.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { parseArgs, promisify } from 'node:util';
import { STREAMDECK_UDEV_RULES_PATH, UDEV_RELOAD_COMMANDS, streamDeckUdevRules } from '../surfaces/streamdeck/udev.js';
import { UsageError } from './usage-error.js';

export const setupUdevUsage = 'recdeck setup-udev [--headless] [--dry-run]';

export interface SetupUdevDeps {
  isRoot: () => boolean;
  write: (path: string, text: string) => Promise<void>;
  run: (command: string) => Promise<void>;
  print: (text: string) => void;
}

const realDeps: SetupUdevDeps = {
  isRoot: () => process.getuid?.() === 0,
  write: (path, text) => writeFile(path, text, { mode: 0o644 }),
  run: async (command) => {
    const [program, ...args] = command.split(' ');
    await promisify(execFile)(program as string, args);
  },
  print: (text) => process.stdout.write(text),
};

export async function setupUdev(args: string[], deps: SetupUdevDeps = realDeps): Promise<void> {
  const { values } = parseArgs({ args, options: { headless: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } }, strict: true });
  const { path, text } = streamDeckUdevRules(values.headless ? 'headless' : 'desktop');
  deps.print(`recdeck will write ${path}:\n\n${text}\nthen run:\n${UDEV_RELOAD_COMMANDS.map((c) => `  ${c}`).join('\n')}\n`);
  if (values['dry-run']) return;
  if (!deps.isRoot()) throw new UsageError(`writing ${STREAMDECK_UDEV_RULES_PATH} needs root: run it with sudo (or --dry-run to only see it)`);
  await deps.write(path, text);
  for (const command of UDEV_RELOAD_COMMANDS) await deps.run(command);
  deps.print(`done: unplug and plug in any Stream Deck that was attached${values.headless ? '; add the user that runs recdeck to plugdev' : ''}.\n`);
}
