// `recdeck run`'s flags: the table (its usage line and --help), and parseRunArgs, which checks every
// value and gives the typed setup that startBridge (start-bridge.ts) wires. The feature flags are tables
// of their own (bus-flags.ts, satellite-flags.ts, streamdeck-tcp-flags.ts, alarm-setup.ts), composed
// here. Nothing here starts anything: a bad flag is a UsageError before any port or file is touched.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { messageOf } from '../api/errors.js';
import { trustedProxies } from '../remote/client-address.js';
import { SHIPPED_PROFILES, profileOrigin } from '../profiles/origin.js';
import { ALARM_FLAGS, alarmSetup } from './alarm-setup.js';
import { BUS_FLAGS } from './bus-flags.js';
import { busSettings } from './bus-settings.js';
import { HELP_FLAG, parseFlags, wholeNumber, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { cpuBudgetSetting } from './cpu-quota-watch.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log-options.js';
import { recorderGroupsFrom } from './recorder-groups.js';
import { SATELLITE_FLAGS, satelliteSettings } from './satellite-flags.js';
import { readSecretFile } from './secret-file.js';
import type { BridgeSetup, WebSetup } from './start-bridge.js';
import { STREAMDECK_TCP_FLAGS, streamDeckTcpSetup, type StreamDeckTcpSetup } from './streamdeck-tcp-flags.js';
import { UsageError } from './usage-error.js';

/**
 * Pictures are drawn on the main thread unless --render-thread on: side by side, the worker cut the main
 * thread's CPU by 0.6 points and its scavenges by 16 %, but cost the process 1-3 points more, longer
 * throttling under a CPU quota (which counts every thread) and a slower start, for no press p99 shown
 * better (docs/performance.md, "Pictures on a thread of their own").
 */
const RENDER_THREAD_DEFAULT = 'off';

/** `recdeck run`'s flags: what it parses, its usage line and its --help. */
export const runCommand = {
  ...COMMAND_OVERVIEW.run,
  flags: {
    recorder: { type: 'string', multiple: true, default: [], value: '[NAME=]URL', description: 'a recorder to drive (NAME defaults to main)', shownDefault: 'RECDECK_RECORDER, else the embedded simulator' },
    'token-file': { type: 'string', multiple: true, default: [], value: '[NAME=]FILE', description: "a file holding a recorder's token", shownDefault: 'RECDECK_TOKEN[_FILE], RECDECK_TOKEN_<NAME>[_FILE]' },
    token: { type: 'string', multiple: true, default: [], value: '[NAME=]TOKEN', description: "a recorder's token (visible in ps: prefer --token-file or the environment)" },
    'recorder-group': { type: 'string', multiple: true, default: [], value: 'NAME=REC,REC', description: 'recorders driven as one: a binding with recorder: NAME sends each command to every member once and shows REC only when all record' },
    profile: { type: 'string', multiple: true, default: [], value: 'FILE|DIR', description: "your own profiles, bound beside the shipped ones (watched: edits are reloaded); where one fits a surface as specifically as a shipped one, yours is used", shownDefault: 'none: the shipped profiles/ only' },
    'allow-edit': { type: 'boolean', default: false, description: 'let the page and the API edit your profile files (GET /profiles reads them always; shipped ones are copied, never edited)' },
    'no-shipped-profiles': { type: 'boolean', default: false, description: 'bind only the --profile files and folders, not the shipped profiles/' },
    ...BUS_FLAGS,
    ...SATELLITE_FLAGS, // the Companion Satellite server: --satellite, --satellite-*
    ...ALARM_FLAGS, // the alarm engine (issue 36): --alarm-*
    'disk-amber-min': { type: 'string', default: '30', value: 'N', description: "a resources key turns amber when a recording disk is full in under N minutes at the rate it fills" },
    'disk-red-min': { type: 'string', default: '10', value: 'N', description: 'and red under N minutes' },
    'poll-ms': { type: 'string', default: '250', value: 'N', description: 'poll the recorder every N ms (50 to 10000)' },
    'web-port': { type: 'string', default: '7900', value: 'PORT', description: 'port of the web deck and remote API (0: any free port)' },
    'web-host': { type: 'string', default: '127.0.0.1', value: 'HOST', description: 'address the web deck listens on (beyond loopback it needs a password)' },
    'web-password-file': { type: 'string', value: 'FILE', description: 'a file holding the web password (read again on SIGHUP: a new one ends every session)', shownDefault: 'RECDECK_WEB_PASSWORD[_FILE], else none' },
    'web-password': { type: 'string', value: 'PASSWORD', description: 'the web password (visible in ps: prefer --web-password-file or the environment)' },
    'web-allow-host': { type: 'string', multiple: true, default: [], value: 'NAME', description: "another host name to answer to (a reverse proxy's public name)" },
    'web-trust-proxy': { type: 'string', multiple: true, default: [], value: 'ADDRESS', description: "a reverse proxy (IP or CIDR range) whose X-Forwarded-For names the client: the login throttle then counts each of its clients on its own" },
    'web-tls-cert': { type: 'string', value: 'FILE', description: 'PEM certificate: serve HTTPS and WSS (with --web-tls-key)' },
    'web-tls-key': { type: 'string', value: 'FILE', description: 'PEM private key for --web-tls-cert' },
    'no-web': { type: 'boolean', default: false, description: 'no web deck and no remote API' },
    ...STREAMDECK_TCP_FLAGS, // network Stream Decks (issue 33): --streamdeck-tcp, --streamdeck-mdns
    'midi-maps': { type: 'string', multiple: true, default: [], value: 'DIR', description: 'folders of MIDI controller maps', shownDefault: 'the shipped profiles/midi/' },
    'render-thread': { type: 'string', default: RENDER_THREAD_DEFAULT, value: 'on|off', description: "draw key images and decode previews on a thread of their own (off: on the bridge's main thread, beside input)" },
    'cpu-budget': { type: 'string', default: 'auto', value: 'auto|off|PERCENT', description: "keep pictures and the page's frames to part of the CPU the bridge may use, so a press never waits for a CPU quota's hold (auto: the bridge's cgroup quota, read again every 5 s; PERCENT: a share of one core)" },
    'log-format': { type: 'string', default: process.stderr.isTTY ? 'pretty' : 'json', value: 'pretty|json', description: 'log lines for people or for a log shipper', shownDefault: 'pretty on a terminal, json otherwise' },
    'log-level': { type: 'string', default: 'info', value: LOG_LEVELS.join('|'), description: 'the least important messages logged' },
    'audit-file': { type: 'string', value: 'FILE', description: 'append every command as a JSON line to FILE', shownDefault: 'none' },
    'audit-max-mb': { type: 'string', default: '10', value: 'N', description: 'start a new audit file past N MB (keeps FILE.1 … FILE.5)' },
    ...HELP_FLAG,
  },
  notes: [
    'Secrets come from the environment or files, never from the command line: RECDECK_TOKEN, RECDECK_TOKEN_FILE,',
    'RECDECK_TOKEN_<NAME>[_FILE], RECDECK_WEB_PASSWORD, RECDECK_WEB_PASSWORD_FILE. Ctrl+C blanks every surface and exits.',
  ],
} satisfies CommandSpec;

/** The MIDI controller maps shipped with recdeck. */
export const SHIPPED_MIDI_MAPS = fileURLToPath(new URL('../../profiles/midi', import.meta.url));

/** What `recdeck run`'s flags ask for: the bridge's setup (its surfaces and sources are found by run()), and what run() itself uses. */
export type RunOptions = Omit<BridgeSetup, 'surfaces' | 'sources'> & {
  /** Folders of MIDI controller maps. */
  midiMapFolders: string[];
  /** Network Stream Decks (issue 33). */
  streamDeckTcp: StreamDeckTcpSetup;
  log: { format: LogFormat; level: LogLevel };
};

/**
 * The shipped profiles, and the operator's own beside them: an operator's profile outranks a shipped one
 * that fits a surface as specifically (src/engine/profile-match.ts), and a device the operator wrote
 * nothing for still gets the shipped profile for its model.
 */
function profilePaths(own: readonly string[], noShipped: boolean): string[] {
  if (noShipped && own.length === 0) throw new UsageError('--no-shipped-profiles: give at least one --profile FILE|DIR to bind');
  // A path in (or of) the shipped folder is bound once, as shipped: twice, it would tie with itself.
  return noShipped ? [...own] : [SHIPPED_PROFILES, ...own.filter((path) => resolve(path) !== SHIPPED_PROFILES && profileOrigin(path) !== 'shipped')];
}

export function parseRunArgs(args: string[], env: NodeJS.ProcessEnv): RunOptions {
  const { values } = parseFlags(runCommand, args);
  const pollMs = wholeNumber('--poll-ms', values['poll-ms'], 50, 10_000, 'ms');
  const auditMaxMb = wholeNumber('--audit-max-mb', values['audit-max-mb'], 1, Number.MAX_SAFE_INTEGER, 'MB');
  return {
    recorderFlags: values.recorder,
    groups: recorderGroupsFrom(values['recorder-group']),
    diskTime: diskThresholds(values['disk-amber-min'], values['disk-red-min']),
    tokenFlags: values.token,
    tokenFiles: values['token-file'],
    profilePaths: profilePaths(values.profile, values['no-shipped-profiles']),
    // A --profile that names no YAML file is a folder (made when the first copy is).
    editing: { allowed: values['allow-edit'], ownFolder: values.profile.find((path) => !/\.ya?ml$/i.test(path)) ?? null },
    pollMs,
    env,
    mqtt: busSettings(values, env),
    satellite: satelliteSettings(values),
    alarms: alarmSetup(values),
    midiMapFolders: values['midi-maps'].length > 0 ? values['midi-maps'] : [SHIPPED_MIDI_MAPS],
    streamDeckTcp: streamDeckTcpSetup(values),
    audit: values['audit-file'] === undefined ? null : { file: values['audit-file'], maxBytes: auditMaxMb * 1024 * 1024 },
    web: values['no-web']
      ? null
      : { host: values['web-host'], port: webPort(values['web-port']), ...webPassword(values['web-password'], values['web-password-file'], env), allowHosts: values['web-allow-host'], trustProxies: webTrustProxies(values['web-trust-proxy']), tls: webTls(values['web-tls-cert'], values['web-tls-key']) },
    renderThread: oneOf('--render-thread', values['render-thread'], ['on', 'off']) === 'on',
    cpuBudget: cpuBudgetSetting(values['cpu-budget']),
    log: { format: oneOf('--log-format', values['log-format'], LOG_FORMATS), level: oneOf('--log-level', values['log-level'], LOG_LEVELS) },
  };
}

/**
 * The first given of: --web-password, --web-password-file, RECDECK_WEB_PASSWORD, RECDECK_WEB_PASSWORD_FILE,
 * and the file it came from when it is one (read again on SIGHUP).
 */
function webPassword(flag: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv): Pick<WebSetup, 'password' | 'passwordFile'> {
  const fromFile = (path: string, what: string) => ({ password: readSecretFile(path, what), passwordFile: { file: path, what } });
  if (flag !== undefined) return { password: flag, passwordFile: null };
  if (file !== undefined) return fromFile(file, '--web-password-file');
  if (env.RECDECK_WEB_PASSWORD !== undefined) return { password: env.RECDECK_WEB_PASSWORD, passwordFile: null };
  if (env.RECDECK_WEB_PASSWORD_FILE !== undefined) return fromFile(env.RECDECK_WEB_PASSWORD_FILE, 'RECDECK_WEB_PASSWORD_FILE');
  return { password: null, passwordFile: null };
}

function diskThresholds(amber: string, red: string): { amberS: number; redS: number } {
  const amberMin = wholeNumber('--disk-amber-min', amber, 1, 24 * 60, 'minutes');
  const redMin = wholeNumber('--disk-red-min', red, 0, 24 * 60, 'minutes');
  if (redMin >= amberMin) throw new UsageError(`--disk-red-min (${redMin}) must be less than --disk-amber-min (${amberMin})`);
  return { amberS: amberMin * 60, redS: redMin * 60 };
}

function webTrustProxies(specs: string[]): string[] {
  try {
    trustedProxies(specs);
  } catch (error) {
    throw new UsageError(`--web-trust-proxy: ${messageOf(error)}`);
  }
  return specs;
}

function webTls(cert: string | undefined, key: string | undefined): WebSetup['tls'] {
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined || key === undefined) throw new UsageError('--web-tls-cert and --web-tls-key go together: give both PEM files');
  return { cert: readSecretFile(cert, '--web-tls-cert'), key: readSecretFile(key, '--web-tls-key') };
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

function webPort(text: string): number {
  return wholeNumber('--web-port', text, 0, 65535);
}
