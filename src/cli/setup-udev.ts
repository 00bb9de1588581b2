// `recdeck setup-udev`: lets recdeck open Stream Decks and X-keys without root on Linux. It says what it
// will write before writing, needs root, and reloads udev so devices already plugged in are covered.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { streamDeckUdevRules } from '../surfaces/streamdeck/udev.js';
import { UDEV_RELOAD_COMMANDS } from '../surfaces/udev.js';
import { xkeysUdevRules } from '../surfaces/xkeys/udev.js';
import { HELP_FLAG, parseFlags, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { UsageError } from './usage-error.js';

export const setupUdevCommand = {
  ...COMMAND_OVERVIEW['setup-udev'],
  flags: {
    headless: { type: 'boolean', default: false, description: 'rules for a machine without a desktop session (group plugdev instead of uaccess)' },
    'dry-run': { type: 'boolean', default: false, description: 'only print the rules and the commands, change nothing' },
    ...HELP_FLAG,
  },
} satisfies CommandSpec;

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
  const { values } = parseFlags(setupUdevCommand, args);
  const variant = values.headless ? 'headless' : 'desktop';
  const files = [streamDeckUdevRules(variant), xkeysUdevRules(variant)];
  for (const { path, text } of files) deps.print(`recdeck will write ${path}:\n\n${text}\n`);
  deps.print(`then run:\n${UDEV_RELOAD_COMMANDS.map((c) => `  ${c}`).join('\n')}\n`);
  if (values['dry-run']) return;
  if (!deps.isRoot()) throw new UsageError(`writing ${files.map((f) => f.path).join(' and ')} needs root: run it with sudo (or --dry-run to only see it)`);
  for (const { path, text } of files) await deps.write(path, text);
  for (const command of UDEV_RELOAD_COMMANDS) await deps.run(command);
  deps.print(`done: unplug and plug in any Stream Deck or X-keys that was attached${values.headless ? '; add the user that runs recdeck to plugdev' : ''}.\n`);
}
