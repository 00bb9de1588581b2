// What `recdeck service install` and `uninstall` do, as data: the files written (path, mode, text), the
// folders made and the commands run, in order. The command prints this plan and then carries it out, so
// --dry-run shows exactly what would be written; the tests check the unit with systemd-analyze.
import { SERVICE_NAME } from './command-overview.js';
import { BRIDGE_NODE_FLAGS } from './node-flags.js';
import { streamDeckUdevRules } from '../surfaces/streamdeck/udev.js';
import { UDEV_RELOAD_COMMANDS } from '../surfaces/udev.js';
import { xkeysUdevRules } from '../surfaces/xkeys/udev.js';

/** The USB device families' udev rules, for the service's group. */
const udevFiles = () => [streamDeckUdevRules('headless'), xkeysUdevRules('headless')];

export const UNIT_PATH = `/etc/systemd/system/${SERVICE_NAME}.service`;
export const CONFIG_FOLDER = '/etc/recdeck';
export const ENV_FILE = `${CONFIG_FOLDER}/recdeck.env`;
export const PROFILE_FOLDER = `${CONFIG_FOLDER}/profiles`;
/** systemd's StateDirectory=recdeck: made and owned for the service's user, writable under ProtectSystem=strict. */
export const STATE_FOLDER = '/var/lib/recdeck';
export const AUDIT_FILE = `${STATE_FOLDER}/audit.jsonl`;
/** Stream Decks and X-keys through the udev rules' group; MIDI through ALSA's. */
export const SERVICE_GROUPS = ['plugdev', 'audio'] as const;

export interface PlannedFile {
  path: string;
  mode: number;
  text: string;
  /** Written only when absent: the operator's settings survive a reinstall. */
  keepExisting: boolean;
}

export interface ServicePlan {
  /** Commands run first (the service's user); each an argv. */
  before: string[][];
  folders: string[];
  files: PlannedFile[];
  /** Commands run last (reloads, enabling); each an argv. */
  after: string[][];
  /** Removed (uninstall). */
  removed: string[];
  /** Said at the end: what to do next, what stays. */
  note: string;
}

export interface ServiceSetup {
  /** The user the bridge runs as; made (a system user) when `createUser`. */
  user: string;
  createUser: boolean;
  /** Absolute path of node and of the installed CLI (dist/cli/main.js). */
  node: string;
  cli: string;
  version: string;
}

/** Paths under a home folder stay readable under ProtectHome=read-only; otherwise homes are hidden. */
function protectHome(setup: ServiceSetup): string {
  const inHome = [setup.node, setup.cli].some((path) => /^\/(home|root|run\/user)\//.test(path));
  return inHome ? 'read-only' : 'yes';
}

export function serviceUnit(setup: ServiceSetup): string {
  const exec = [setup.node, ...BRIDGE_NODE_FLAGS, setup.cli, 'run', '--profile', PROFILE_FOLDER, '--audit-file', AUDIT_FILE].join(' ');
  return [
    `# Written by recdeck service install (recdeck ${setup.version}). Settings: ${ENV_FILE}; your profiles: ${PROFILE_FOLDER}.`,
    `# recdeck service uninstall removes it; recdeck service install --dry-run shows what it writes.`,
    '[Unit]',
    'Description=recdeck: Stream Deck, MIDI and web deck control of the recorder',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `User=${setup.user}`,
    `SupplementaryGroups=${SERVICE_GROUPS.join(' ')}`,
    `EnvironmentFile=${ENV_FILE}`,
    // $RECDECK_OPTIONS (unbraced: split into words) carries the operator's own run flags from the env file.
    `ExecStart=${exec} $RECDECK_OPTIONS`,
    // SIGHUP: the web password file is read again (profiles are watched and reload on their own).
    'ExecReload=/bin/kill -HUP $MAINPID',
    'Restart=on-failure',
    'RestartSec=2',
    // Twice the CPU weight of the host's other services: a press, and on a facility a poller's lease
    // renewals, must not wait behind a busy host's other work (issue 34: a poller not run for 3 polls
    // loses its lease whatever its code does; measured with the suite's flood, docs/facility.md).
    'CPUWeight=200',
    `StateDirectory=${SERVICE_NAME}`,
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    `ProtectHome=${protectHome(setup)}`,
    'PrivateTmp=yes',
    `ReadWritePaths=${STATE_FOLDER}`,
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectControlGroups=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

export function environmentFile(): string {
  return [
    `# recdeck's settings for the service (read by systemd as root; keep it mode 0600). After a change:`,
    `#   systemctl restart ${SERVICE_NAME}`,
    '# The recorder to drive (without one the embedded simulator runs):',
    '#RECDECK_RECORDER=http://recorder.example:8080',
    "# Its token, from a file the service's user can read (chgrp recdeck FILE; chmod 0640 FILE):",
    '#RECDECK_TOKEN_FILE=/etc/recdeck/token',
    '# The web deck beyond this machine needs a password (a file: read again on systemctl reload):',
    '#RECDECK_WEB_PASSWORD_FILE=/etc/recdeck/web-password',
    '# More flags of recdeck run (recdeck run --help), e.g. the web deck on every address:',
    '#RECDECK_OPTIONS=--web-host 0.0.0.0',
    '',
  ].join('\n');
}

export function installPlan(setup: ServiceSetup): ServicePlan {
  const user = setup.createUser
    ? [['useradd', '--system', '--home-dir', STATE_FOLDER, '--no-create-home', '--shell', '/usr/sbin/nologin', '--groups', SERVICE_GROUPS.join(','), setup.user]]
    : [['usermod', '--append', '--groups', SERVICE_GROUPS.join(','), setup.user]];
  return {
    before: user,
    folders: [CONFIG_FOLDER, PROFILE_FOLDER],
    files: [
      { path: ENV_FILE, mode: 0o600, text: environmentFile(), keepExisting: true },
      { path: UNIT_PATH, mode: 0o644, text: serviceUnit(setup), keepExisting: false },
      ...udevFiles().map((udev) => ({ path: udev.path, mode: 0o644, text: udev.text, keepExisting: false })),
    ],
    after: [...UDEV_RELOAD_COMMANDS.map((command) => command.split(' ')), ['systemctl', 'daemon-reload'], ['systemctl', 'enable', SERVICE_NAME]],
    removed: [],
    note: `Set the recorder in ${ENV_FILE}, put your profiles in ${PROFILE_FOLDER}, then: systemctl start ${SERVICE_NAME}; journalctl -u ${SERVICE_NAME} -f`,
  };
}

export function uninstallPlan(): ServicePlan {
  return {
    before: [['systemctl', 'disable', '--now', SERVICE_NAME]],
    folders: [],
    files: [],
    after: [['systemctl', 'daemon-reload'], ...UDEV_RELOAD_COMMANDS.map((command) => command.split(' '))],
    removed: [UNIT_PATH, ...udevFiles().map((udev) => udev.path)],
    note: `Kept: ${CONFIG_FOLDER} (settings and profiles), ${STATE_FOLDER} (the audit file) and the service's user.`,
  };
}

/** The plan in words, in the order done: each command, folder, and file with its mode and its text verbatim. */
export function describePlan(plan: ServicePlan): string {
  const command = (argv: string[]) => `run: ${argv.join(' ')}\n`;
  const file = (f: PlannedFile) => `write ${f.path} (mode ${f.mode.toString(8).padStart(4, '0')}${f.keepExisting ? ', only if absent' : ''}):\n${f.text}\n`;
  return [
    ...plan.before.map(command),
    ...plan.folders.map((folder) => `make folder ${folder}\n`),
    ...plan.files.map(file),
    ...plan.removed.map((path) => `remove ${path}\n`),
    ...plan.after.map(command),
  ].join('');
}
