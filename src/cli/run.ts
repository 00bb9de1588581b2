// `recdeck run`: the bridge. Recorders come from flags or the environment (never from a profile's
// text); with none given it starts the embedded simulator and uses that.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Subscription } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import type { Surface, SurfaceSource } from '../engine/surface.js';
import { startRemoteServer, type RunningRemoteServer } from '../remote/server.js';
import { WEB_LAYOUTS, type WebLayout } from '../surfaces/web/layouts.js';
import { WebSurface } from '../surfaces/web/web-surface.js';
import { nodeStreamDeckBackend } from '../surfaces/streamdeck/backend-node.js';
import { StreamDeckManager } from '../surfaces/streamdeck/device-manager.js';
import { formatMidiMapProblem, loadMidiMapFolder } from '../surfaces/midi/load-midi-map.js';
import { MidiManager } from '../surfaces/midi/midi-manager.js';
import type { MidiMap } from '../surfaces/midi/midi-map.js';
import { resolveRecorders } from '../profiles/env.js';
import { formatProfileError } from '../profiles/load.js';
import { watchProfiles, type ProfileSet } from '../profiles/watch.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { AuditFile } from './audit-file.js';
import { LOG_FORMATS, LOG_LEVELS, pinoLogger, type LogFormat, type LogLevel } from './pino-logger.js';
import { recordersFrom, type RecorderConfig } from './recorder-config.js';
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';

export const runUsage =
  'recdeck run [--recorder [NAME=]URL …] [--token [NAME=]TOKEN …] [--profile FILE|DIR …] [--poll-ms N] [--web-port 7900] [--web-host 127.0.0.1] [--web-password-file FILE] [--web-allow-host NAME …] [--web-tls-cert FILE --web-tls-key FILE] [--no-web] [--midi-maps DIR …] [--token-file [NAME=]FILE …] [--log-format pretty|json] [--log-level info] [--audit-file FILE [--audit-max-mb 10]]';

/** The profiles shipped with recdeck. */
export const SHIPPED_PROFILES = fileURLToPath(new URL('../../profiles', import.meta.url));
/** The MIDI controller maps shipped with recdeck. */
export const SHIPPED_MIDI_MAPS = fileURLToPath(new URL('../../profiles/midi', import.meta.url));

export interface RunningBridge {
  bridge: Bridge;
  simulator: RunningSimulator | null;
  recorders: RecorderConfig[];
  remote: RunningRemoteServer | null;
  webSurfaces: WebSurface[];
  stop: () => Promise<void>;
}

export interface WebSetup {
  host: string;
  port: number;
  /** Required beyond loopback (flag, file or RECDECK_WEB_PASSWORD[_FILE]). */
  password: string | null;
  /** More host names to answer to (--web-allow-host). */
  allowHosts?: string[];
  /** PEM certificate and key for HTTPS and WSS (--web-tls-cert, --web-tls-key). */
  tls?: { cert: string; key: string } | null;
}

export interface BridgeSetup {
  recorderFlags: string[];
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
}

export type RunOptions = Omit<BridgeSetup, 'surfaces' | 'sources'> & {
  /** Folders of MIDI controller maps. */
  midiMapFolders: string[];
  log: { format: LogFormat; level: LogLevel };
};

export function parseRunArgs(args: string[], env: NodeJS.ProcessEnv): RunOptions {
  const { values } = parseArgs({
    args,
    options: {
      recorder: { type: 'string', multiple: true, default: [] },
      token: { type: 'string', multiple: true, default: [] },
      profile: { type: 'string', multiple: true, default: [] },
      'poll-ms': { type: 'string', default: '250' },
      'web-port': { type: 'string', default: '7900' },
      'web-host': { type: 'string', default: '127.0.0.1' },
      'web-password': { type: 'string' },
      'web-password-file': { type: 'string' },
      'web-allow-host': { type: 'string', multiple: true, default: [] },
      'web-tls-cert': { type: 'string' },
      'web-tls-key': { type: 'string' },
      'token-file': { type: 'string', multiple: true, default: [] },
      'log-format': { type: 'string', default: process.stderr.isTTY ? 'pretty' : 'json' },
      'log-level': { type: 'string', default: 'info' },
      'no-web': { type: 'boolean', default: false },
      'midi-maps': { type: 'string', multiple: true, default: [] },
      'audit-file': { type: 'string' },
      'audit-max-mb': { type: 'string', default: '10' },
    },
    strict: true,
  });
  const pollMs = Number(values['poll-ms']);
  if (!/^\d+$/.test(values['poll-ms']) || pollMs < 50 || pollMs > 10_000) throw new UsageError(`--poll-ms: expected a whole number of ms from 50 to 10000, got ${values['poll-ms']}`);
  const auditMaxMb = Number(values['audit-max-mb']);
  if (!/^\d+$/.test(values['audit-max-mb']) || auditMaxMb < 1) throw new UsageError(`--audit-max-mb: expected a whole number of MB from 1, got ${values['audit-max-mb']}`);
  return {
    recorderFlags: values.recorder,
    tokenFlags: values.token,
    tokenFiles: values['token-file'],
    profilePaths: values.profile.length > 0 ? values.profile : [SHIPPED_PROFILES],
    pollMs,
    env,
    midiMapFolders: values['midi-maps'].length > 0 ? values['midi-maps'] : [SHIPPED_MIDI_MAPS],
    audit: values['audit-file'] === undefined ? null : { file: values['audit-file'], maxBytes: auditMaxMb * 1024 * 1024 },
    web: values['no-web']
      ? null
      : { host: values['web-host'], port: webPort(values['web-port']), password: webPassword(values['web-password'], values['web-password-file'], env), allowHosts: values['web-allow-host'], tls: webTls(values['web-tls-cert'], values['web-tls-key']) },
    log: { format: oneOf('--log-format', values['log-format'], LOG_FORMATS), level: oneOf('--log-level', values['log-level'], LOG_LEVELS) },
  };
}

/** The first given of: --web-password, --web-password-file, RECDECK_WEB_PASSWORD, RECDECK_WEB_PASSWORD_FILE. */
function webPassword(flag: string | undefined, file: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (flag !== undefined) return flag;
  if (file !== undefined) return readSecretFile(file, '--web-password-file');
  if (env.RECDECK_WEB_PASSWORD !== undefined) return env.RECDECK_WEB_PASSWORD;
  if (env.RECDECK_WEB_PASSWORD_FILE !== undefined) return readSecretFile(env.RECDECK_WEB_PASSWORD_FILE, 'RECDECK_WEB_PASSWORD_FILE');
  return null;
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
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--web-port: expected a port number from 0 to 65535, got ${text}`);
  return port;
}

/** Starts the bridge (and the simulator when no recorder is configured) and binds the surfaces. */
export async function startBridge(setup: BridgeSetup, log: Logger = pinoLogger({ format: 'pretty', level: 'info' })): Promise<RunningBridge> {
  const flagged = recordersFrom(setup.recorderFlags, setup.tokenFlags, setup.env, setup.tokenFiles);
  const audit = setup.audit ? await AuditFile.open({ path: setup.audit.file, maxBytes: setup.audit.maxBytes, log }) : null;

  let lastProblems = '';
  const report = (set: ProfileSet) => {
    const text = set.problems.map(formatProfileError).join('\n');
    if (text !== lastProblems && text !== '') log.warn(`profile problems (the last good version of each file stays in use):\n${text}`);
    lastProblems = text;
  };
  let bridge: Bridge | null = null;
  let firstSet: (set: ProfileSet) => void = () => undefined;
  const first = new Promise<ProfileSet>((resolve) => (firstSet = resolve));
  const subscription: Subscription = watchProfiles(setup.profilePaths).subscribe((set) => {
    report(set);
    if (bridge) bridge.setProfiles(set.profiles);
    else firstSet(set);
  });

  try {
    const profiles = await first;
    let recorders = [...flagged, ...declaredRecorders(profiles, flagged, setup.env, log)];
    let simulator: RunningSimulator | null = null;
    if (recorders.length === 0) {
      simulator = await startSimulator({ port: 0, grid: 16 }); // all 16 channels, so every shipped key has one
      recorders = [{ name: 'main', url: simulator.url, token: simulator.token }];
      log.info(`no recorder given (--recorder or RECDECK_RECORDER): using the embedded simulator at ${simulator.url}`);
    }
    const clients = recorders.map((r) => ({ name: r.name, client: new RecorderClient({ url: r.url, token: r.token ?? '' }) }));
    const running = new Bridge({ recorders: clients, renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: setup.pollMs });
    running.start();
    const auditing = audit && running.commands$.subscribe((record) => audit.write(record));
    running.setProfiles(profiles.profiles);
    bridge = running;
    for (const surface of setup.surfaces) running.addSurface(surface);
    const webSurfaces = setup.web ? webSurfacesFor(profiles, log) : [];
    for (const surface of webSurfaces) running.addSurface(surface);
    let remote: RunningRemoteServer | null = null;
    try {
      if (setup.web) remote = await startRemoteServer({ bridge: running, webSurfaces, log, host: setup.web.host, port: setup.web.port, password: setup.web.password, allowHosts: setup.web.allowHosts ?? [], tls: setup.web.tls ?? null });
    } catch (error) {
      await running.stop();
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
      stop: async () => {
        subscription.unsubscribe();
        await remote?.close();
        // Blank every surface before the adapters close their devices.
        await running.stop();
        for (const stop of followed) await stop();
        auditing?.unsubscribe();
        await audit?.close();
        await Promise.allSettled(clients.map((c) => c.client.close()));
        await simulator?.close();
      },
    };
  } catch (error) {
    subscription.unsubscribe();
    throw error;
  }
}

/** MIDI controllers described by the maps in these folders (a bad map is reported and left out). */
async function midiManager(folders: readonly string[], log: Logger): Promise<MidiManager> {
  const maps: MidiMap[] = [];
  for (const folder of folders) {
    const { maps: loaded, problems } = await loadMidiMapFolder(folder);
    for (const problem of problems) log.warn(formatMidiMapProblem(problem));
    maps.push(...loaded.map((m) => m.map));
  }
  return new MidiManager({ maps, log });
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
  return [...models].sort().map((model) => new WebSurface(WEB_LAYOUTS[model] as WebLayout));
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
    error: (error: unknown) => log.error(`${source.name}: stopped: ${(error as Error).message}`),
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
  for (const flag of ['--token', '--web-password']) {
    if (args.some((a) => a === flag || a.startsWith(`${flag}=`))) log.warn(`${flag} is visible to every user of this machine (ps); give ${flag}-file or the environment instead`);
  }
  const sources: SurfaceSource[] = [new StreamDeckManager({ backend: nodeStreamDeckBackend(), log }), await midiManager(setup.midiMapFolders, log)];
  const running = await startBridge({ ...setup, surfaces: [], sources }, log);
  const sessions = running.bridge.surfaceSessions();
  // One line each: a log line never spans lines (control characters are escaped).
  if (sessions.length === 0) log.info('surfaces: none found');
  for (const s of sessions) log.info(`surface ${s.surface.id} (${s.surface.name}): ${s.profileName}`);
  if (running.remote) log.info(`web deck and remote API: open ${running.remote.url}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log.info('stopping: clearing the surfaces');
  await running.stop();
}
