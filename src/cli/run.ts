// `recdeck run`: the bridge. Recorders come from flags or the environment (never from a profile's
// text); with none given it starts the embedded simulator and uses that.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Subscription } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import type { Surface, SurfaceSource } from '../engine/surface.js';
import { trustedProxies } from '../remote/client-address.js';
import type { ProfileEditRecord } from '../remote/profiles-api.js';
import { startRemoteServer, type RunningRemoteServer } from '../remote/server.js';
import { WEB_LAYOUTS, type WebLayout } from '../surfaces/web/layouts.js';
import { WebSurface } from '../surfaces/web/web-surface.js';
import { nodeStreamDeckBackend } from '../surfaces/streamdeck/backend-node.js';
import { StreamDeckManager } from '../surfaces/streamdeck/device-manager.js';
import { nodeXkeysBackend } from '../surfaces/xkeys/backend-node.js';
import { XkeysManager } from '../surfaces/xkeys/device-manager.js';
import { formatMidiMapProblem, loadMidiMapFolder } from '../surfaces/midi/load-midi-map.js';
import { MidiManager } from '../surfaces/midi/midi-manager.js';
import type { MidiMap } from '../surfaces/midi/midi-map.js';
import { resolveRecorders } from '../profiles/env.js';
import { formatProfileError } from '../profiles/load.js';
import { SHIPPED_PROFILES, profileOrigin } from '../profiles/origin.js';
import { ProfileFiles } from '../profiles/profile-files.js';
import { watchProfiles, type ProfileSet } from '../profiles/watch.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { AuditFile } from './audit-file.js';
import { HELP_FLAG, parseFlags, wholeNumber, type CommandSpec } from './flags.js';
import { interrupted } from './interrupted.js';
import { assertPortFree } from './port-free.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log-options.js';
import { pinoLogger } from './pino-logger.js';
import { BUS_FLAGS } from './bus-flags.js';
import { SATELLITE_FLAGS, satelliteSettings, startSatellite, type SatelliteSettings } from './satellite-flags.js'; // satellite
import { busSettings, connectBusRecorders, splitBusRecorders, type BusSettings } from './bus-setup.js';
import { recordersFrom, type RecorderConfig } from './recorder-config.js';
import { checkGroupNames, recorderGroupsFrom } from './recorder-groups.js';
import type { RecorderGroups } from '../engine/recorder-group.js';
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';
import { STREAMDECK_TCP_FLAGS, streamDeckTcpSetup, streamDeckTcpSource, type StreamDeckTcpSetup } from './streamdeck-tcp-flags.js'; // issue 33
import { ALARM_FLAGS, alarmSetup, startAlarms, type AlarmSetup } from './alarm-setup.js'; // alarms (issue 36)
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js'; // alarms (issue 36)
import { realClock } from '../api/clock.js';
import { realTime } from '../engine/engine-time.js';
import { startBusAlarms } from './alarm-bus.js'; // alarms on the bus (issue 36)

/** `recdeck run`'s flags: what it parses, its usage line and its --help. */
export const runCommand = {
  name: 'run',
  summary: 'Runs the bridge: binds the profiles to every Stream Deck, X-keys panel, MIDI controller and web deck it finds, and drives them from the recorder. With no recorder given it starts the embedded simulator.',
  flags: {
    recorder: { type: 'string', multiple: true, default: [], value: '[NAME=]URL', description: 'a recorder to drive (NAME defaults to main)', shownDefault: 'RECDECK_RECORDER, else the embedded simulator' },
    'token-file': { type: 'string', multiple: true, default: [], value: '[NAME=]FILE', description: "a file holding a recorder's token", shownDefault: 'RECDECK_TOKEN[_FILE], RECDECK_TOKEN_<NAME>[_FILE]' },
    token: { type: 'string', multiple: true, default: [], value: '[NAME=]TOKEN', description: "a recorder's token (visible in ps: prefer --token-file or the environment)" },
    'recorder-group': { type: 'string', multiple: true, default: [], value: 'NAME=REC,REC', description: 'recorders driven as one: a binding with recorder: NAME sends each command to every member once and shows REC only when all record' },
    profile: { type: 'string', multiple: true, default: [], value: 'FILE|DIR', description: "your own profiles, bound beside the shipped ones (watched: edits are reloaded); where one fits a surface as specifically as a shipped one, yours is used", shownDefault: 'none: the shipped profiles/ only' },
    'allow-edit': { type: 'boolean', default: false, description: 'let the page and the API edit your profile files (GET /profiles reads them always; shipped ones are copied, never edited)' },
    'no-shipped-profiles': { type: 'boolean', default: false, description: 'bind only the --profile files and folders, not the shipped profiles/' },
    ...BUS_FLAGS,
    ...SATELLITE_FLAGS, // satellite
    ...ALARM_FLAGS, // alarms (issue 36)
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

export interface RunningBridge {
  bridge: Bridge;
  simulator: RunningSimulator | null;
  recorders: RecorderConfig[];
  remote: RunningRemoteServer | null;
  webSurfaces: WebSurface[];
  /** The alarm engine (issue 36); null when the setup has none. */
  alarms: AlarmMonitor | null;
  /**
   * Reads the web password file again (on SIGHUP): a new password ends every session. A file that
   * cannot be read or holds too short a password changes nothing, and says why.
   */
  rereadWebPassword: () => void;
  stop: () => Promise<void>;
}

export interface WebSetup {
  host: string;
  port: number;
  /** Required beyond loopback (flag, file or RECDECK_WEB_PASSWORD[_FILE]). */
  password: string | null;
  /** The file the password came from (--web-password-file or RECDECK_WEB_PASSWORD_FILE), read again on SIGHUP. */
  passwordFile?: { file: string; what: string } | null;
  /** More host names to answer to (--web-allow-host). */
  allowHosts?: string[];
  /** Reverse proxies whose X-Forwarded-For is believed (--web-trust-proxy): addresses or CIDR ranges. */
  trustProxies?: string[];
  /** PEM certificate and key for HTTPS and WSS (--web-tls-cert, --web-tls-key). */
  tls?: { cert: string; key: string } | null;
}

export interface BridgeSetup {
  recorderFlags: string[];
  /** --disk-amber-min, --disk-red-min, in seconds. */
  diskTime?: { amberS: number; redS: number };
  /** --recorder-group: names that stand for several recorders. */
  groups?: RecorderGroups;
  tokenFlags: string[];
  /** `[NAME=]FILE` of --token-file. */
  tokenFiles?: string[];
  profilePaths: string[];
  pollMs: number;
  env: NodeJS.ProcessEnv;
  /** The web deck and remote API, or null for none. */
  web: WebSetup | null;
  /** Surfaces given directly (tests, embedding). */
  surfaces: Surface[];
  /** Adapters that find surfaces and follow them coming and going (Stream Deck, MIDI). */
  sources: SurfaceSource[];
  /** Every command appended to this file as a JSON line, rotated at maxBytes; absent for none. */
  audit?: { file: string; maxBytes: number } | null;
  /** The state bus (--mqtt); absent or null for none. */
  mqtt?: BusSettings | null;
  /** The profile editor may write (--allow-edit); "make my own" copies go to ownFolder (the first --profile folder). */
  editing?: { allowed: boolean; ownFolder: string | null };
  /** The alarm engine's settings and webhooks (issue 36); absent or null for no alarms. */
  alarms?: AlarmSetup | null;
}

export type RunOptions = Omit<BridgeSetup, 'surfaces' | 'sources'> & {
  /** Folders of MIDI controller maps. */
  midiMapFolders: string[];
  /** Network Stream Decks (issue 33). */
  streamDeckTcp: StreamDeckTcpSetup;
  log: { format: LogFormat; level: LogLevel };
  satellite?: SatelliteSettings | null; // satellite
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
    satellite: satelliteSettings(values), // satellite
    alarms: alarmSetup(values), // alarms (issue 36)
    midiMapFolders: values['midi-maps'].length > 0 ? values['midi-maps'] : [SHIPPED_MIDI_MAPS],
    streamDeckTcp: streamDeckTcpSetup(values), // network Stream Decks (issue 33)
    audit: values['audit-file'] === undefined ? null : { file: values['audit-file'], maxBytes: auditMaxMb * 1024 * 1024 },
    web: values['no-web']
      ? null
      : { host: values['web-host'], port: webPort(values['web-port']), ...webPassword(values['web-password'], values['web-password-file'], env), allowHosts: values['web-allow-host'], trustProxies: webTrustProxies(values['web-trust-proxy']), tls: webTls(values['web-tls-cert'], values['web-tls-key']) },
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

/** Starts the bridge (and the simulator when no recorder is configured) and binds the surfaces. */
export async function startBridge(setup: BridgeSetup, log: Logger = pinoLogger({ format: 'pretty', level: 'info' })): Promise<RunningBridge> {
  if (setup.web) await assertPortFree(setup.web.host, setup.web.port);
  const onBus = splitBusRecorders(setup.recorderFlags, setup.mqtt ?? null);
  const flagged = recordersFrom(onBus.polled, setup.tokenFlags, setup.env, setup.tokenFiles);
  const audit = setup.audit ? await AuditFile.open({ path: setup.audit.file, maxBytes: setup.audit.maxBytes, log }) : null;

  let reported: ProfileSet = { profiles: [], problems: [] };
  const report = (set: ProfileSet) => {
    const text = profileProblemsText(set);
    if (text !== profileProblemsText(reported) && text !== '') log.warn(text);
    for (const file of fixedFiles(reported, set)) log.info(`${file}: loads now; in use`);
    reported = set;
  };
  let bridge: Bridge | null = null;
  // Web decks are made for the web profiles that load: at start, and whenever a fixed or new one comes up.
  const webSurfaces: WebSurface[] = [];
  let remote: RunningRemoteServer | null = null;
  const addWebSurfaces = (set: ProfileSet, to: Bridge) => {
    for (const surface of webSurfacesFor(set, log)) {
      if (webSurfaces.some((w) => w.id === surface.id)) continue;
      webSurfaces.push(surface);
      to.addSurface(surface);
      remote?.addWebSurface(surface);
    }
  };
  let firstSet: (set: ProfileSet) => void = () => undefined;
  const first = new Promise<ProfileSet>((resolve) => (firstSet = resolve));
  /** The newest set: one that arrives while the bridge is being made is applied once it is. */
  let latest: ProfileSet = reported;
  // Watched from the start: a profile bad at start and fixed later comes up like any edit.
  const subscription: Subscription = watchProfiles(setup.profilePaths, { clock: realTime }).subscribe((set) => {
    report(set);
    latest = set;
    if (!bridge) return firstSet(set);
    bridge.setProfiles(set.profiles);
    if (setup.web) addWebSurfaces(set, bridge);
  });

  try {
    const profiles = await first;
    let recorders = [...flagged, ...declaredRecorders(profiles, flagged, setup.env, log)];
    let simulator: RunningSimulator | null = null;
    if (recorders.length === 0 && onBus.followed.length === 0) {
      simulator = await startSimulator({ clock: realClock, port: 0, grid: 16 }); // all 16 channels, so every shipped key has one
      recorders = [{ name: 'main', url: simulator.url, token: simulator.token }];
      log.info(`no recorder given (--recorder or RECDECK_RECORDER): using the embedded simulator at ${simulator.url}`);
    }
    checkGroupNames(setup.groups ?? new Map(), [...recorders.map((r) => r.name), ...onBus.followed]);
    const clients = recorders.map((r) => ({ name: r.name, client: new RecorderClient({ clock: realClock, url: r.url, token: r.token ?? '' }) }));
    const polledHere = clients.map((c, i) => ({ ...c, token: recorders[i]?.token ?? '' }));
    const bus = setup.mqtt ? await connectBusRecorders(setup.mqtt, polledHere, onBus.followed, setup.pollMs, log, audit ? (record) => audit.write(record) : undefined) : null;
    const running = new Bridge({ time: realTime, recorders: bus?.recorders ?? clients, renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: setup.pollMs, ...(setup.groups ? { groups: setup.groups } : {}), ...(setup.diskTime ? { diskTime: setup.diskTime } : {}) });
    running.start();
    const alarms = setup.alarms ? startAlarms(running, setup.alarms, log, audit) : null; // alarms (issue 36)
    if (alarms) running.attachAlarms(alarms.monitor); // alarms keys and alarm-ack (issue 36)
    const stopBusAlarms = bus ? startBusAlarms(bus, running, alarms?.monitor ?? null, log) : null; // alarms on the bus (issue 36)
    const auditing = audit && running.commands$.subscribe((record) => audit.write(record));
    running.setProfiles(latest.profiles);
    bridge = running;
    for (const surface of setup.surfaces) running.addSurface(surface);
    if (setup.web) addWebSurfaces(latest, running);
    try {
      const profileEditing = {
        files: new ProfileFiles(setup.profilePaths, setup.editing?.ownFolder ?? null),
        allowed: setup.editing?.allowed ?? false,
        audit: (record: ProfileEditRecord) => {
          log.info(`profile editor: ${record.who} saved ${record.file}: ${record.edit}${record.page === null ? '' : ` page "${record.page}"`}${record.control === null ? '' : ` control ${record.control}`}`);
          audit?.write(record);
        },
      };
      if (setup.web) remote = await startRemoteServer({ time: realTime, bridge: running, webSurfaces, log, host: setup.web.host, port: setup.web.port, password: setup.web.password, allowHosts: setup.web.allowHosts ?? [], trustProxies: setup.web.trustProxies ?? [], tls: setup.web.tls ?? null, profileEditing, alarms: alarms?.monitor ?? null, ...(bus ? { warnings: bus.warnings } : {}) }); // alarms: issue 36; bus warnings: issue 34
    } catch (error) {
      alarms?.stop(); // alarms (issue 36)
      stopBusAlarms?.(); // alarms on the bus (issue 36)
      await running.stop();
      await bus?.close();
      await Promise.allSettled(clients.map((c) => c.client.close()));
      await simulator?.close();
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new UsageError(`--web-port: port ${setup.web?.port} on ${setup.web?.host} is in use; give another --web-port, or --no-web`);
      throw error;
    }
    const followed = setup.sources.map((source) => followSource(source, running, log));
    return {
      bridge: running,
      simulator,
      recorders,
      remote,
      webSurfaces,
      alarms: alarms?.monitor ?? null, // alarms (issue 36)
      rereadWebPassword: () => {
        const source = setup.web?.passwordFile ?? null;
        if (!remote || !source) return log.info('SIGHUP: the web password is not from a file; nothing to read again');
        const unchanged = (why: string) => log.error(`${why}; the web password is unchanged`);
        let password: string;
        try {
          password = readSecretFile(source.file, source.what); // its errors name the file
        } catch (error) {
          return unchanged(messageOf(error));
        }
        try {
          remote.changePassword(password);
        } catch (error) {
          return unchanged(`${source.what}: ${source.file}: ${messageOf(error)}`);
        }
        log.info(`${source.what}: the web password was read again from ${source.file}; every web session has ended`);
      },
      stop: async () => {
        subscription.unsubscribe();
        await remote?.close();
        alarms?.stop(); // alarms (issue 36)
        // Blank every surface before the adapters close their devices.
        await running.stop();
        for (const stop of followed) await stop();
        auditing?.unsubscribe();
        await audit?.close();
        stopBusAlarms?.(); // alarms on the bus (issue 36)
        await bus?.close();
        await Promise.allSettled(clients.map((c) => c.client.close()));
        await simulator?.close();
      },
    };
  } catch (error) {
    subscription.unsubscribe();
    throw error;
  }
}

/**
 * The problems of a profile set, each file saying whether a last good version of it is in use or none
 * is (a file bad since the start is not in use until it loads); empty when there are none.
 */
function profileProblemsText(set: ProfileSet): string {
  if (set.problems.length === 0) return '';
  const inUse = new Set(set.profiles.map((p) => p.file));
  const files = [...new Set(set.problems.map((p) => p.file))];
  const fates = files.map((file) => (file === '' ? '' : inUse.has(file) ? `${file}: its last good version stays in use` : `${file}: not in use until it loads (recdeck watches it)`));
  return ['profile problems:', ...set.problems.map(formatProfileError), ...fates.filter((f) => f !== '')].join('\n');
}

/** Files that had problems in the last set and load without any now. */
function fixedFiles(before: ProfileSet, now: ProfileSet): string[] {
  const stillBad = new Set(now.problems.map((p) => p.file));
  const loaded = new Set(now.profiles.map((p) => p.file));
  return [...new Set(before.problems.map((p) => p.file))].filter((file) => !stillBad.has(file) && loaded.has(file));
}

/** MIDI controllers described by the maps in these folders (a bad map is reported and left out). */
async function midiManager(folders: readonly string[], log: Logger): Promise<MidiManager> {
  const maps: MidiMap[] = [];
  for (const folder of folders) {
    const { maps: loaded, problems } = await loadMidiMapFolder(folder);
    for (const problem of problems) log.warn(formatMidiMapProblem(problem));
    maps.push(...loaded.map((m) => m.map));
  }
  return new MidiManager({ time: realTime, maps, log });
}

/** One web surface for each web layout that a profile of kind web asks for. */
function webSurfacesFor(set: ProfileSet, log: Logger): WebSurface[] {
  const models = new Set<string>();
  for (const { profile, file } of set.profiles) {
    if (profile.match.kind !== 'web') continue;
    const wanted = profile.match.model === undefined ? [] : Array.isArray(profile.match.model) ? profile.match.model : [profile.match.model];
    if (wanted.length === 0) log.warn(`${file}: a web profile names the layout it is for in match.model (${Object.keys(WEB_LAYOUTS).join(', ')})`);
    for (const model of wanted) {
      if (WEB_LAYOUTS[model]) models.add(model);
      else log.warn(`${file}: no web layout "${model}"; the layouts are ${Object.keys(WEB_LAYOUTS).join(', ')}`);
    }
  }
  return [...models].sort().map((model) => new WebSurface(WEB_LAYOUTS[model] as WebLayout, realTime));
}

/** Adds and removes a source's surfaces as they come and go; returns the function that stops it. */
function followSource(source: SurfaceSource, bridge: Bridge, log: Logger): () => Promise<void> {
  const subscription = source.surfaces$.subscribe({
    next: (event) => {
      if (event.type === 'added') {
        log.info(`${source.name}: found ${event.surface.id} (${event.surface.name})`);
        bridge.addSurface(event.surface);
      } else {
        log.info(`${source.name}: ${event.id} went away`);
        bridge.removeSurface(event.id);
      }
    },
    error: (error: unknown) => log.error(`${source.name}: stopped: ${messageOf(error)}`),
  });
  source.start();
  return async () => {
    subscription.unsubscribe();
    await source.stop();
  };
}

/**
 * Recorders that profiles declare (URL and token from ${ENV} references). Flags and RECDECK_* win over
 * a profile for the same name; the set is read at start, so a recorder added by a later edit needs a
 * restart (the bridge says so when a binding names one it does not know).
 */
function declaredRecorders(set: ProfileSet, flagged: readonly RecorderConfig[], env: NodeJS.ProcessEnv, log: Logger): RecorderConfig[] {
  const found: RecorderConfig[] = [];
  for (const loaded of set.profiles) {
    const { recorders, problems } = resolveRecorders(loaded, env);
    for (const problem of problems) log.warn(formatProfileError(problem));
    for (const recorder of recorders) {
      if (flagged.some((r) => r.name === recorder.name) || found.some((r) => r.name === recorder.name)) continue;
      found.push({ name: recorder.name, url: recorder.url, ...(recorder.token === null ? {} : { token: recorder.token }) });
    }
  }
  return found;
}

export async function run(args: string[]): Promise<void> {
  const setup = parseRunArgs(args, process.env);
  const log = pinoLogger(setup.log);
  const stopped = interrupted();
  for (const flag of ['--token', '--web-password']) {
    if (args.some((a) => a === flag || a.startsWith(`${flag}=`))) log.warn(`${flag} is visible to every user of this machine (ps); give ${flag}-file or the environment instead`);
  }
  const sources: SurfaceSource[] = [
    new StreamDeckManager({ time: realTime, backend: nodeStreamDeckBackend(), log }),
    new XkeysManager({ time: realTime, backend: nodeXkeysBackend(), log }),
    await midiManager(setup.midiMapFolders, log),
    ...[streamDeckTcpSource(setup.streamDeckTcp, log)].filter((source) => source !== null), // network Stream Decks (issue 33)
  ];
  if (setup.satellite) sources.push(await startSatellite(setup.satellite, log)); // satellite: listening now; followed and stopped with the other sources
  const running = await startBridge({ ...setup, surfaces: [], sources }, log);
  // Listened for before the ready lines, like the stop signals (see interrupted.ts).
  const reread = () => running.rereadWebPassword();
  process.on('SIGHUP', reread);
  const sessions = running.bridge.surfaceSessions();
  // One line each: a log line never spans lines (control characters are escaped).
  if (sessions.length === 0) log.info('surfaces: none found');
  for (const s of sessions) log.info(`surface ${s.surface.id} (${s.surface.name}): ${s.profileName}`);
  if (running.remote) log.info(`web deck and remote API: open ${running.remote.url}`);
  await stopped;
  process.off('SIGHUP', reread);
  log.info('stopping: clearing the surfaces');
  await running.stop();
}
