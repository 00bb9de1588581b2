// The wiring of `recdeck run`: startBridge acquires, one after the other, everything the bridge runs on,
// and defers each one's release on one Teardown (teardown.ts) the moment it has it. A start that fails
// half-way releases exactly what it had acquired; a stop releases everything the same way. The release
// order is the reverse of the order below, and the two orders an operator sees follow from it (each said
// where it is acquired): the surfaces are blanked (the bridge's stop) before the sources close their
// devices, and the alarms stop before the bridge they watch. A new server or surface source is a few
// lines at its place in that order: acquire it, then defer its release.
import { RecorderClient } from '../api/client.js';
import { realClock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import type { Bridge } from '../engine/bridge.js';
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import type { RecorderGroups } from '../engine/recorder-group.js';
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import type { Surface, SurfaceSource } from '../engine/surface.js';
import { resolveRecorders } from '../profiles/env.js';
import { formatProfileError } from '../profiles/load.js';
import { ProfileFiles } from '../profiles/profile-files.js';
import type { ProfileSet } from '../profiles/watch.js';
import type { ProfileEditRecord } from '../remote/profiles-api.js';
import { RenderThread } from '../render/render-thread.js';
import type { RunningRemoteServer } from '../remote/server.js';
import type { RunningSimulator } from '../simulator/server.js';
import { WEB_LAYOUTS, type WebLayout } from '../surfaces/web/layouts.js';
import { WebSurface } from '../surfaces/web/web-surface.js';
import { startAlarms, type AlarmSetup } from './alarm-setup.js';
import { AuditFile } from './audit-file.js';
import { splitBusRecorders, type BusSettings } from './bus-settings.js';
import { pinoLogger } from './pino-logger.js';
import { assertPortFree } from './port-free.js';
import { watchProfileFeed } from './profile-feed.js';
import { recordersFrom, type RecorderConfig } from './recorder-config.js';
import { onDemandRecorders, runBridge } from './run-bridge.js';
import { checkGroupNames } from './recorder-groups.js';
import { startSatellite, type SatelliteSettings } from './satellite-flags.js';
import { readSecretFile } from './secret-file.js';
import { Teardown } from './teardown.js';
import { collectorFollowingQuota } from './collector-under-quota.js';
import { watchPictureThreads } from './picture-threads.js';
import { SYSTEM_CGROUP, watchCpuQuota, type CpuBudgetSetting } from './cpu-quota-watch.js';
import { UsageError } from './usage-error.js';

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
  /** Adapters that find surfaces and follow them coming and going (Stream Deck, MIDI): the bridge's from the call, stopped by its stop (or by a start that fails). */
  sources: SurfaceSource[];
  /** The Companion Satellite server (--satellite*): a source of surfaces like the others; absent or null for none. */
  satellite?: SatelliteSettings | null;
  /** Every command appended to this file as a JSON line, rotated at maxBytes; absent for none. */
  audit?: { file: string; maxBytes: number } | null;
  /** The state bus (--mqtt); absent or null for none. */
  mqtt?: BusSettings | null;
  /** The profile editor may write (--allow-edit); "make my own" copies go to ownFolder (the first --profile folder). */
  editing?: { allowed: boolean; ownFolder: string | null };
  /** The alarm engine's settings and webhooks (issue 36); absent or null for no alarms. */
  alarms?: AlarmSetup | null;
  /** Draw pictures and decode previews on a thread of their own (--render-thread); absent: on the main thread. */
  renderThread?: boolean;
  /** The CPU budget of pictures and frames (--cpu-budget; cpu-quota-watch.ts); absent: none. */
  cpuBudget?: CpuBudgetSetting;
}

export interface RunningBridge {
  bridge: Bridge;
  simulator: RunningSimulator | null;
  recorders: RecorderConfig[];
  remote: RunningRemoteServer | null;
  /** The web decks now: derived from the bridge's list of surfaces. */
  webSurfaces: () => WebSurface[];
  /** The alarm engine (issue 36); null when the setup has none. */
  alarms: AlarmMonitor | null;
  /**
   * Reads the web password file again (on SIGHUP): a new password ends every session. A file that
   * cannot be read or holds too short a password changes nothing, and says why.
   */
  rereadWebPassword: () => void;
  /** Releases everything the start acquired, in reverse (teardown.ts); a second call waits for the first. */
  stop: () => Promise<void>;
}

/** Starts the bridge (and the simulator when no recorder is configured) and binds the surfaces. */
export async function startBridge(setup: BridgeSetup, log: Logger = pinoLogger({ format: 'pretty', level: 'info' })): Promise<RunningBridge> {
  const teardown = new Teardown(log);
  try {
    return await acquire(setup, log, teardown);
  } catch (error) {
    // Whatever failed, what was acquired before it is released, and the failure is what the caller sees.
    await teardown.release();
    throw error;
  }
}

async function acquire(setup: BridgeSetup, log: Logger, teardown: Teardown): Promise<RunningBridge> {
  // The sources first: they hold the devices, which must be closed last, after the bridge (acquired
  // below, so released before them) has blanked every surface on them. A source's stop before its
  // start is a no-op, so each is deferred from the call (a Satellite server is listening from here).
  const sources = [...setup.sources];
  for (const source of sources) teardown.defer(source.name, () => source.stop());
  if (setup.satellite) {
    const satellite = await startSatellite(setup.satellite, log);
    teardown.defer(satellite.name, () => satellite.stop());
    sources.push(satellite);
  }
  // Asked before the slow part (profiles, simulator, recorders): a port in use fails the start at once.
  if (setup.web) await assertPortFree(setup.web.host, setup.web.port);
  const onBus = splitBusRecorders(setup.recorderFlags, setup.mqtt ?? null);
  const flagged = recordersFrom(onBus.polled, setup.tokenFlags, setup.env, setup.tokenFiles);

  // Before everything that writes to it (the bus's pollers, the bridge's commands, the alarms, the
  // profile editor), so closed after all of them.
  const audit = setup.audit ? await AuditFile.open({ path: setup.audit.file, maxBytes: setup.audit.maxBytes, log }) : null;
  if (audit) teardown.defer('audit file', () => audit.close());

  // The web server (with ws and prom-client: 63 package files, 18 of ours) is imported only when the web
  // deck is on: a --no-web bridge (a panel's, a bus poller) never loads it. Its import starts here, beside
  // the profiles' load, not where the server starts: imported there, after the bridge had started, it
  // put the ready line after the renderer's warm-ups (0.6 s more CPU before the line, the same 5 s on).
  const remoteServer = setup.web ? import('../remote/server.js') : null;
  // Handled here too: a start that fails before the server's turn does not leave a rejection unhandled.
  void remoteServer?.catch(() => undefined);
  const profiles = watchProfileFeed(setup.profilePaths, log);
  teardown.defer('profile watch', () => profiles.stop());
  const firstSet = await profiles.first;

  let recorders = [...flagged, ...declaredRecorders(firstSet, flagged, setup.env, log)];
  let simulator: RunningSimulator | null = null;
  if (recorders.length === 0 && onBus.followed.length === 0) {
    // Imported only here: a bridge given its recorders does not load the simulator's 19 files.
    const { startSimulator } = await import('../simulator/server.js');
    const started = await startSimulator({ clock: realClock, port: 0, grid: 16 }); // all 16 channels, so every shipped key has one
    teardown.defer('embedded simulator', () => started.close());
    simulator = started;
    recorders = [{ name: 'main', url: started.url, token: started.token }];
    log.info(`no recorder given (--recorder or RECDECK_RECORDER): using the embedded simulator at ${started.url}`);
  }
  checkGroupNames(setup.groups ?? new Map(), [...recorders.map((r) => r.name), ...onBus.followed]);
  const clients = recorders.map((r) => ({ name: r.name, client: new RecorderClient({ clock: realClock, url: r.url, token: r.token ?? '' }) }));
  for (const { name, client } of clients) teardown.defer(`recorder ${name}'s connections`, () => client.close());

  // Its pollers use the clients above: stopped (handing their leases over) before those close.
  const polledHere = clients.map((c, i) => ({ ...c, token: recorders[i]?.token ?? '' }));
  // The bus's wiring (bus-setup.ts, alarm-bus.ts and through them bus/: its messages' zod schemas, the
  // leases, the envelopes) is imported only when --mqtt is given: a bridge without a bus never marks it
  // (docs/performance.md, "A smaller live heap").
  const busWiring = setup.mqtt ? { settings: setup.mqtt, ...(await import('./bus-setup.js')), ...(await import('./alarm-bus.js')) } : null;
  const bus = busWiring ? await busWiring.connectBusRecorders(busWiring.settings, polledHere, onBus.followed, setup.pollMs, log, audit ? (record) => audit.write(record) : undefined) : null;
  if (bus) teardown.defer('state bus', () => bus.close());

  // Polled here, a recorder is read on demand: what the surfaces in view need, and what the web server and the alarms read at any moment.
  const onDemand = onDemandRecorders(clients, { pollMs: setup.pollMs, web: setup.web !== null, alarms: setup.alarms?.settings ?? null });
  // Closed after the bridge has stopped (the teardown runs last first): its stop draws the blank keys.
  const renderThread = setup.renderThread === true ? new RenderThread({ time: realTime, log }) : null;
  if (renderThread) teardown.defer('render thread', () => renderThread.close());
  // Under a quota the young generation is collected on the main thread alone (collector-under-quota.ts).
  const cpuQuota = await watchCpuQuota(setup.cpuBudget ?? { kind: 'off' }, realClock, log, SYSTEM_CGROUP, collectorFollowingQuota());
  if (cpuQuota) teardown.defer('CPU quota watch', () => cpuQuota.stop());
  // libvips's workers (previews' decodes, scaling) below the main thread's priority (picture-threads.ts).
  const pictureThreads = watchPictureThreads(realClock, log);
  teardown.defer('picture threads', () => pictureThreads.stop());
  const bridge = runBridge(bus?.recorders ?? onDemand, { log, pollMs: setup.pollMs, renderThread, ...(setup.groups ? { groups: setup.groups } : {}), ...(setup.diskTime ? { diskTime: setup.diskTime } : {}), ...(cpuQuota ? { cpu: cpuQuota.cpu } : {}) });
  bridge.start();
  // Its stop blanks every surface: after everything acquired below has let go of the bridge, and
  // before the sources (acquired above) close the devices those surfaces draw on.
  teardown.defer('bridge', () => bridge.stop());

  // The alarm engine watches the bridge: acquired after it, so stopped before it.
  const alarms = setup.alarms ? startAlarms(bridge, setup.alarms, log, audit) : null;
  if (alarms) {
    teardown.defer('alarms', () => alarms.stop());
    bridge.attachAlarms(alarms.monitor); // alarms keys and alarm-ack (issue 36)
  }
  // Alarms on the bus (issue 36): over the bus, the bridge and the alarm engine, so stopped before all three.
  if (bus && busWiring) teardown.defer('alarms on the bus', busWiring.startBusAlarms(bus, bridge, alarms?.monitor ?? null, log));

  if (audit) {
    const auditing = bridge.commands$.subscribe((record) => audit.write(record));
    teardown.defer('audit of commands', () => auditing.unsubscribe());
  }

  // Web decks are made for the web profiles that load: at start, and whenever a fixed or new one comes up.
  // The bridge's list of surfaces is the one list: the web server serves the web decks in it.
  let remote: RunningRemoteServer | null = null;
  const addWebSurfaces = (set: ProfileSet) => {
    for (const surface of webSurfacesFor(set, log)) if (!bridge.hasSurface(surface.id)) bridge.addSurface(surface);
  };
  bridge.setProfiles(profiles.latest().profiles);
  // Every later set (an edit, a file fixed) goes to the bridge; cut before the bridge stops, so a set
  // arriving during a stop binds nothing to a bridge that has blanked its surfaces.
  const unlink = profiles.link((set) => {
    bridge.setProfiles(set.profiles);
    if (setup.web) addWebSurfaces(set);
  });
  teardown.defer('profile edits to the bridge', unlink);
  for (const surface of setup.surfaces) bridge.addSurface(surface);
  if (setup.web) addWebSurfaces(profiles.latest());

  if (setup.web && remoteServer) {
    const web = setup.web;
    const profileEditing = {
      files: new ProfileFiles(setup.profilePaths, setup.editing?.ownFolder ?? null),
      allowed: setup.editing?.allowed ?? false,
      audit: (record: ProfileEditRecord) => {
        log.info(`profile editor: ${record.who} saved ${record.file}: ${record.edit}${record.page === null ? '' : ` page "${record.page}"`}${record.control === null ? '' : ` control ${record.control}`}`);
        audit?.write(record);
      },
    };
    const { startRemoteServer } = await remoteServer;
    const server = await startRemoteServer({ time: realTime, bridge, log, host: web.host, port: web.port, password: web.password, allowHosts: web.allowHosts ?? [], trustProxies: web.trustProxies ?? [], tls: web.tls ?? null, profileEditing, alarms: alarms?.monitor ?? null, ...(bus ? { warnings: bus.warnings } : {}) }).catch((error: unknown) => {
      // Taken between the check above and the listen.
      if ((error as { code?: string }).code === 'EADDRINUSE') throw new UsageError(`--web-port: port ${web.port} on ${web.host} is in use; give another --web-port, or --no-web`);
      throw error;
    });
    teardown.defer('web server', () => server.close());
    remote = server;
  }

  // Followed last, once everything their surfaces bind to is up; at a stop, their news is cut first.
  for (const source of sources) teardown.defer(`following ${source.name}`, followSource(source, bridge, log));

  return {
    bridge,
    simulator,
    recorders,
    remote,
    webSurfaces: () => bridge.surfaceList().flatMap((surface) => (surface instanceof WebSurface ? [surface] : [])),
    alarms: alarms?.monitor ?? null,
    rereadWebPassword: () => rereadWebPassword(remote, setup.web?.passwordFile ?? null, log),
    stop: () => teardown.release(),
  };
}

function rereadWebPassword(remote: RunningRemoteServer | null, source: { file: string; what: string } | null, log: Logger): void {
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

/** Adds and removes a source's surfaces as they come and go, and starts it; returns what stops the following (the source's own stop is deferred apart). */
function followSource(source: SurfaceSource, bridge: Bridge, log: Logger): () => void {
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
  return () => subscription.unsubscribe();
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
