// `recdeck service install [--user NAME] [--dry-run]` and `recdeck service uninstall [--dry-run]`: the
// bridge as a systemd service on a studio machine (see service-plan.ts for what is written). It prints
// the whole plan first; --dry-run stops there. Needs root.
import { execFile } from 'node:child_process';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HELP_FLAG, parseFlags, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW, SERVICE_NAME } from './command-overview.js';
import { describePlan, installPlan, uninstallPlan, type ServicePlan } from './service-plan.js';
import { UsageError } from './usage-error.js';

export const serviceCommand = {
  ...COMMAND_OVERVIEW.service,
  positionals: 'install|uninstall',
  flags: {
    user: { type: 'string', value: 'NAME', description: 'run the service as this existing user (added to plugdev and audio) instead of making the system user recdeck' },
    'dry-run': { type: 'boolean', default: false, description: 'only print what would be written and run, change nothing' },
    ...HELP_FLAG,
  },
} satisfies CommandSpec;

export interface ServiceDeps {
  isRoot: () => boolean;
  exists: (path: string) => Promise<boolean>;
  userExists: (name: string) => Promise<boolean>;
  makeFolder: (path: string) => Promise<void>;
  write: (path: string, text: string, mode: number) => Promise<void>;
  remove: (path: string) => Promise<void>;
  run: (argv: string[]) => Promise<void>;
  print: (text: string) => void;
}

const exec = promisify(execFile);

const realDeps: ServiceDeps = {
  isRoot: () => process.getuid?.() === 0,
  exists: (path) => access(path).then(() => true, () => false),
  userExists: (name) => exec('id', ['-u', name]).then(() => true, () => false),
  makeFolder: async (path) => void (await mkdir(path, { recursive: true, mode: 0o755 })),
  write: (path, text, mode) => writeFile(path, text, { mode }),
  remove: (path) => rm(path, { force: true }),
  run: async ([program, ...args]) => void (await exec(program as string, args)),
  print: (text) => process.stdout.write(text),
};

/** The installed CLI and the node running it: what the unit's ExecStart runs. */
function installed(): { node: string; cli: string; version: string } {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return { node: process.execPath, cli: fileURLToPath(new URL('./main.js', import.meta.url)), version: manifest.version };
}

async function carryOut(plan: ServicePlan, deps: ServiceDeps): Promise<void> {
  for (const argv of plan.before) await deps.run(argv);
  for (const folder of plan.folders) await deps.makeFolder(folder);
  for (const file of plan.files) {
    if (file.keepExisting && (await deps.exists(file.path))) deps.print(`kept ${file.path} as it is\n`);
    else await deps.write(file.path, file.text, file.mode);
  }
  for (const path of plan.removed) await deps.remove(path);
  for (const argv of plan.after) await deps.run(argv);
}

export async function service(args: string[], deps: ServiceDeps = realDeps): Promise<void> {
  const { values, positionals } = parseFlags(serviceCommand, args, true);
  const [action, ...extra] = positionals;
  if ((action !== 'install' && action !== 'uninstall') || extra.length > 0) throw new UsageError(`expected install or uninstall, got ${positionals.length === 0 ? 'none' : positionals.map((p) => JSON.stringify(p)).join(' ')}`);
  if (action === 'uninstall' && values.user !== undefined) throw new UsageError('--user is for install');
  let plan: ServicePlan;
  if (action === 'install') {
    const user = values.user ?? SERVICE_NAME;
    // A named user must be there already; the default one is made unless an earlier install made it.
    const exists = await deps.userExists(user);
    if (values.user !== undefined && !exists) throw new UsageError(`--user: there is no user ${JSON.stringify(user)}`);
    plan = installPlan({ user, createUser: !exists, ...installed() });
  } else plan = uninstallPlan();
  deps.print(`recdeck service ${action} will:\n${describePlan(plan)}`);
  if (values['dry-run']) return;
  if (!deps.isRoot()) throw new UsageError(`service ${action} changes /etc and systemd: run it with sudo (or --dry-run to only see it)`);
  await carryOut(plan, deps);
  deps.print(`done. ${plan.note}\n`);
}
