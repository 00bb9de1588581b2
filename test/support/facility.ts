// A facility on one real Mosquitto: the simulator (real HTTP, real time), pollers holding its URL and
// token that publish it on the bus, and panel bridges that know only `main@mqtt`, each with an
// in-memory 15-key surface. Every member signs with its own key; the facility lists them all.
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import mqtt, { type MqttClient } from 'mqtt';
import { firstValueFrom, filter, fromEvent, map, merge, throwError, timeout, type Observable } from 'rxjs';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { realClock } from '../../src/api/clock.js';
import { RecorderClient } from '../../src/api/client.js';
import { generatedFacility } from '../../src/bench/bus.js';
import { busClientOptions, connectAtPace, sendWithoutDelay } from '../../src/bus/connection.js';
import { BusPoller, newInstance, pollerWill, recorderIdentity } from '../../src/bus/bus-poller.js';
import { BusRecorder } from '../../src/bus/bus-recorder.js';
import { topicsOf } from '../../src/bus/topics.js';
import { LEASE_TTL_POLLS } from '../../src/bus/limits.js';
import { bus } from '../../src/cli/bus-keys.js';
import type { BusAuthority } from '../../src/bus/facility.js';
import type { OperationGroup } from '../../src/bus/operation-groups.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { FAST_PARTS, SLOW_PARTS } from '../../src/engine/recorder-state.js';
import { keyGrid } from '../../src/engine/surface.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from './bridge.js';
import { startBroker, type Broker, type RestartableBroker } from './mosquitto.js';
import { lastSeq, startFixture, type SimulatorFixture } from './simulator.js';
import { until as waitUntil, WAIT_MS } from './until.js';
import { realTime } from '../../src/engine/engine-time.js';

export { generatedFacility };

export const PANEL_PROFILE = `
name: panel
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1 }, press: { action: rec-start, channel: 1 } }
      key1: { show: { channel: 2 }, press: { action: rec-start, channel: 2 } }
`;

/** A logger that keeps every line (the bus ends say what they refuse and why). */
/** `recdeck bus keygen ID --out FILE` (FOLDER/ID.pem unless named): the public key it prints. */
export async function keygen(folder: string, id: string, file = join(folder, `${id}.pem`)): Promise<string> {
  let printed = '';
  await bus(['keygen', id, '--out', file], (text) => (printed += text));
  const key = /publicKey: (\S+)/.exec(printed)?.[1];
  if (key === undefined) throw new Error(`keygen printed no key: ${printed}`);
  return key;
}

export function keptLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}

const STATE_PARTS = [...FAST_PARTS, ...SLOW_PARTS];
/** How long a rig may take to start, or each wait of its start, and to close, on this busy machine (bounds on waiting, not timings under test). */
const RIG_START_MS = 15_000;
const RIG_HOOK_MS = 60_000;

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface Panel {
  bridge: Bridge;
  link: BusRecorder;
  surface: MemorySurface;
  mqtt: MqttClient;
  log: Logger & { lines: string[] };
  commands: CommandRecord[];
  nextCommand: (control: string, ms?: number) => Promise<CommandRecord>;
}

export interface PollerProcess {
  poller: BusPoller;
  mqtt: MqttClient;
  /** The lease's own connection, when started with one (PollerOptions.leaseConnection). */
  leaseMqtt?: MqttClient;
  client: RecorderClient;
  log: Logger & { lines: string[] };
  audit: CommandRecord[];
  /** When it started (this machine's clock), connected to the broker: a fresh poller claims a TTL after. */
  startedAt: number;
  /** As the process dying would: the broker sees the connection drop (no DISCONNECT, so the last will fires) and nothing polls any more. */
  kill: () => void;
}

/** A bare MQTT client (MQTT 5 unless told otherwise), not reconnecting. */
export async function connect(url: string, options: mqtt.IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, ...options });
}

export interface PollerOptions {
  authority: BusAuthority;
  /** Another simulator than the rig's (another recorder under the same name). */
  recorder?: SimulatorFixture;
  /** More connection options (a broker login). */
  connect?: mqtt.IClientOptions;
  /** The lease's TTL; LEASE_TTL_POLLS polls by default. */
  ttlMs?: number;
  /** How long the poller waits for each answer of the recorder (the client's 2 s by default). */
  requestTimeoutMs?: number;
  /** The recorder's URL as the poller knows it (default the simulator's). */
  url?: string;
  keepalive?: number;
  /** Connection options on top (a proxy's URL is given as the broker's). */
  brokerUrl?: string;
  /**
   * As `recdeck run` connects a poller (src/cli/bus-setup.ts): the main connection read at a pace, the
   * lease on a connection of its own (BusPoller's leaseConnection), both closed as the process would.
   */
  leaseConnection?: boolean;
}

export async function startPoller(broker: Broker, sim: SimulatorFixture, pollMs: number, options: PollerOptions): Promise<PollerProcess> {
  const recorder = options.recorder ?? sim;
  const url = options.url ?? recorder.sim.url;
  const client = new RecorderClient({ clock: realClock, url, token: recorder.sim.token, ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }) });
  const link = pollingLink(new RecorderPoller('main', client, { time: realTime, pollMs, slowMs: 1000 }));
  const instance = newInstance();
  const { authority } = options;
  const brokerUrl = options.brokerUrl ?? broker.url;
  const connectionOptions = { ...busClientOptions(authority.id), keepalive: options.keepalive ?? 10, reconnectPeriod: 200, ...options.connect };
  const willed = { protocolVersion: 5 as const, connectTimeout: 5000, ...connectionOptions, ...pollerWill(authority, 'main', instance, Date.now()) };
  const connection = sendWithoutDelay(options.leaseConnection === true ? await connectAtPace(mqtt.connect, brokerUrl, willed, realTime) : await connect(brokerUrl, willed));
  // A client id of its own (the broker would end either connection for the other's).
  const leaseMqtt = options.leaseConnection === true ? sendWithoutDelay(await connect(brokerUrl, { ...connectionOptions, ...busClientOptions(authority.id) })) : undefined;
  const log = keptLog();
  const audit: CommandRecord[] = [];
  const poller = new BusPoller('main', link, connection, { time: realTime, authority, identity: recorderIdentity(url, recorder.sim.token), instance, pollMs, log, audit: (record) => audit.push(record), ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }), ...(leaseMqtt === undefined ? {} : { leaseConnection: leaseMqtt }) });
  const startedAt = Date.now();
  poller.start();
  return {
    poller,
    mqtt: connection,
    ...(leaseMqtt === undefined ? {} : { leaseMqtt }),
    client,
    log,
    audit,
    startedAt,
    kill: () => {
      for (const dying of leaseMqtt === undefined ? [connection] : [leaseMqtt, connection]) {
        dying.options.reconnectPeriod = 0;
        dying.stream.destroy();
      }
      link.stop();
      poller.stop();
    },
  };
}

export interface PanelOptions {
  authority: BusAuthority;
  /** More connection options (a broker login). */
  connect?: mqtt.IClientOptions;
  /** How long after sending a command may still start; the default otherwise. */
  deadlineMs?: number;
  surfaceId?: string;
  profile?: string;
  brokerUrl?: string;
  reconnectPeriod?: number;
  /** Recorders the panel polls itself beside main on the bus (a group may hold both). */
  moreRecorders?: ReadonlyArray<{ name: string; client: RecorderClient }>;
}

export async function startPanel(broker: Broker, pollMs: number, options: PanelOptions): Promise<Panel> {
  const { authority } = options;
  const connection = sendWithoutDelay(await connect(options.brokerUrl ?? broker.url, { ...busClientOptions(authority.id), reconnectPeriod: options.reconnectPeriod ?? 0, ...options.connect }));
  const log = keptLog();
  const link = new BusRecorder('main', connection, { time: realTime, authority, pollMs, log, ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }) });
  const bridge = new Bridge({ time: realTime, recorders: [{ name: 'main', link }, ...(options.moreRecorders ?? [])], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ time: realTime, id: options.surfaceId ?? `memory:${authority.id}`, model: 'test-15', controls: keyGrid(3, 5, 72) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(options.profile ?? PANEL_PROFILE)]);
  bridge.addSurface(surface);
  const nextCommand = (control: string, ms = 8000) => nextCommandOf(bridge, control, ms);
  return { bridge, link, surface, mqtt: connection, log, commands, nextCommand };
}

/** The next record of a command from `control` on this bridge (subscribe before the press), or an error naming it after `ms`. */
export function nextCommandOf(bridge: Bridge, control: string, ms: number): Promise<CommandRecord> {
  return firstValueFrom(bridge.commands$.pipe(filter((record) => record.control === control), timeout({ first: ms, with: () => throwError(() => new Error(`no command record of ${control} within ${ms} ms`)) })));
}

export async function startSimulator(): Promise<SimulatorFixture> {
  return startFixture({ clock: realClock, grid: 16 });
}

/** The pictures a panel's key shows. */
export function pictureOf(panel: Panel, control: string) {
  return panel.bridge.session(panel.surface.id)?.describeControls().find((c) => c.control.id === control)?.picture;
}

/** The state a panel's channel key shows (idle, recording, stale, offline …). */
export function channelState(panel: Panel, control: string): string | undefined {
  const picture = pictureOf(panel, control);
  return picture?.kind === 'channel' ? picture.state : undefined;
}

/** Waits (bounded) for a check to hold, asked again every 10 ms (panels draw and bus messages arrive often). */
export const until = (check: () => boolean, what: string, ms = 5000): Promise<void> => waitUntil(check, what, ms, 10);

export interface FacilityOptions {
  pollMs: number;
  /** A broker started already (the rig closes it); a new anonymous one otherwise. */
  broker?: RestartableBroker;
  pollers?: readonly string[];
  panels?: readonly string[];
  /** Members of the facility not started with it (a poller started later). */
  more?: readonly string[];
  /** What each panel may call (read and control by default). */
  groups?: Readonly<Record<string, readonly OperationGroup[]>>;
  /** Each poller's and panel's options beyond its key. */
  poller?: (id: string) => Partial<PollerOptions>;
  panel?: (id: string) => Partial<PanelOptions>;
  /**
   * The poller that hands the lease to the first one when its TTL is a second or more, so that it need
   * not wait it out (see HANDED_OVER_FROM_TTL_MS; its options come from `poller` too); null: none, the
   * first poller claims a TTL after it starts, as on a fresh broker.
   */
  handover?: string | null;
}

/**
 * A fresh poller claims the lease a TTL after it starts (lease.ts: it cannot know there is no holder
 * sooner), and tests give their pollers a TTL of seconds, so that a stall of this busy machine never
 * causes a failover they did not ask for. So a rig whose first poller has a TTL of a second or more
 * starts the way a facility restarts cleanly: a poller with a TTL of HANDOVER_TTL_MS claims, holds and
 * stops, which hands the lease over (its last renewal expires at once), and the first poller claims as
 * soon as it sees that. A shorter TTL is waited out as it is (and the epochs are a fresh broker's).
 */
const HANDED_OVER_FROM_TTL_MS = 1000;
const HANDOVER_TTL_MS = 100;

/** A running facility: broker, simulator, pollers (the first holds the lease) and panels showing channel 1 live; `close` ends it all. */
export interface Rig {
  broker: RestartableBroker;
  sim: SimulatorFixture;
  members: ReturnType<typeof generatedFacility>;
  pollers: PollerProcess[];
  panels: Panel[];
  /** Every write the recorder received (after `mark`, when given one), as "METHOD /path". */
  writes: (since?: number) => string[];
  /** A mark in the recorder's request log: what a test on a rig others share looks at from. */
  mark: () => number;
  /** Reads the recorder received so far. */
  gets: () => number;
  startPoller: (id: string, options?: Partial<PollerOptions>) => Promise<PollerProcess>;
  startPanel: (id: string, options?: Partial<PanelOptions>) => Promise<Panel>;
  /** A bare MQTT client on the rig's broker (anonymous unless told), closed with the rig. */
  client: (options?: mqtt.IClientOptions) => Promise<MqttClient>;
  /** Runs at close, before the broker and simulator go (latest first). */
  defer: (cleanup: () => Promise<unknown> | void) => void;
  close: () => Promise<void>;
}

export async function startFacility(options: FacilityOptions): Promise<Rig> {
  const { pollMs } = options;
  const cleanups: Array<() => Promise<unknown> | void> = [];
  // The broker and the simulator start side by side (each waits on a process or a socket, not on the other).
  const [brokerStarted, simStarted] = await Promise.allSettled([options.broker ?? startBroker(), startSimulator()]);
  for (const started of [brokerStarted, simStarted]) if (started.status === 'fulfilled') cleanups.push(() => started.value.close());
  if (brokerStarted.status === 'rejected' || simStarted.status === 'rejected') {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    throw brokerStarted.status === 'rejected' ? brokerStarted.reason : (simStarted as PromiseRejectedResult).reason;
  }
  const [broker, sim] = [brokerStarted.value, simStarted.value];
  const pollerIds = options.pollers ?? ['poller-a'];
  const panelIds = options.panels ?? ['panel-a', 'panel-b'];
  const firstTtlMs = options.poller?.(pollerIds[0] ?? '').ttlMs ?? LEASE_TTL_POLLS * pollMs;
  const handover = options.handover === null || pollerIds.length === 0 || firstTtlMs < HANDED_OVER_FROM_TTL_MS ? null : (options.handover ?? 'poller-handover');
  const members = generatedFacility('main', [...pollerIds, ...(options.more ?? []), ...(handover === null ? [] : [handover])], panelIds, options.groups);
  /** A panel started and closed with the rig, not yet in rig.panels (the rig's own are listed in their order). */
  const connectPanel = async (id: string, more: Partial<PanelOptions> = {}): Promise<Panel> => {
    const panel = await startPanel(broker, pollMs, { authority: members.authority(id), ...options.panel?.(id), ...more });
    cleanups.push(async () => {
      await panel.bridge.stop();
      await panel.mqtt.endAsync(true);
    });
    return panel;
  };
  const rig: Rig = {
    broker,
    sim,
    members,
    pollers: [],
    panels: [],
    writes: (since = 0) => sim.sim.log.list().filter((r) => r.seq > since && r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    mark: () => lastSeq(sim.sim),
    gets: () => sim.sim.log.list().filter((r) => r.method === 'GET').length,
    startPoller: async (id, more = {}) => {
      const p = await startPoller(broker, sim, pollMs, { authority: members.authority(id), ...options.poller?.(id), ...more });
      cleanups.push(async () => {
        p.poller.stop();
        await p.leaseMqtt?.endAsync(true);
        await p.mqtt.endAsync(true);
        await p.client.close();
      });
      rig.pollers.push(p);
      return p;
    },
    startPanel: async (id, more = {}) => {
      const panel = await connectPanel(id, more);
      rig.panels.push(panel);
      return panel;
    },
    client: async (more = {}) => {
      const client = await connect(broker.url, more);
      cleanups.push(() => client.endAsync(true));
      return client;
    },
    defer: (cleanup) => cleanups.push(cleanup),
    close: async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
  try {
    if (handover !== null) await handOver(broker, sim, pollMs, { authority: members.authority(handover), ...options.poller?.(handover), ttlMs: HANDOVER_TTL_MS });
    const pollersStarted = async () => {
      for (const id of pollerIds) {
        const p = await rig.startPoller(id);
        // The first holds the lease before the next one starts, so which one polls is known.
        if (rig.pollers.length === 1) await until(() => p.poller.state.lastGoodAt !== null, 'the first poller polling', RIG_START_MS);
      }
    };
    // The panels connect while the pollers start (a panel shows what a poller publishes whenever it
    // comes), all settled before a failure is thrown, so that close() ends whatever did start.
    const [pollers, ...panels] = await Promise.allSettled([pollersStarted(), ...panelIds.map((id) => connectPanel(id))]);
    for (const panel of panels) if (panel.status === 'fulfilled') rig.panels.push(panel.value);
    for (const started of [pollers, ...panels]) if (started.status === 'rejected') throw started.reason;
    await until(() => rig.panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'every panel live', RIG_START_MS);
  } catch (error) {
    await rig.close();
    throw error;
  }
  return rig;
}

/**
 * A lease claimed or renewed now by someone other than `p`'s poller, as it arrives on either of `p`'s connections (the
 * lease's own, when it has one, else its main one): the envelope's body names the holder. Read here only
 * to stop waiting; the poller checks every lease's signature itself.
 */
function leaseOfAnother(p: PollerProcess, topic: string): Observable<void> {
  const clients = p.leaseMqtt === undefined ? [p.mqtt] : [p.leaseMqtt, p.mqtt];
  return merge(...clients.map((client) => fromEvent(client, 'message', (t: string, payload: Buffer, packet: { retain?: boolean }) => ({ t, payload, retained: packet.retain === true })))).pipe(
    // Sent now, not the broker's stored copy: an earlier poller's lease left to expire is what a handover is for.
    filter(({ t, retained }) => t === topic && !retained),
    map(({ payload }) => holderOf(payload)),
    filter((holder) => holder !== null && holder !== p.poller.id),
    map(() => undefined),
  );
}

function holderOf(payload: Buffer): string | null {
  try {
    const holder: unknown = (JSON.parse(payload.toString('utf8')) as { body?: { holder?: unknown } }).body?.holder;
    return typeof holder === 'string' ? holder : null;
  } catch {
    return null;
  }
}

/**
 * A poller that claims the lease, holds it and stops cleanly: the lease it leaves retained expires at
 * once (see HANDOVER_TTL_MS). The state it published goes (an empty retained message deletes one), so
 * the facility starts as on a fresh broker: panels see only what the first poller publishes.
 */
async function handOver(broker: Broker, sim: SimulatorFixture, pollMs: number, options: PollerOptions): Promise<void> {
  const p = await startPoller(broker, sim, pollMs, options);
  const topics = topicsOf('main');
  let held = false;
  try {
    // Stopped the moment it holds, before its short lease can lapse on this busy machine: the promise
    // settles, and this goes on, before any timer of the poller's runs again. Or as soon as another
    // poller's lease arrives: a poller started beside this one (insiders.ts starts `recdeck run` while
    // this hands over) claims a TTL after its own start, as this one does, and of two claims of one epoch
    // the higher random term holds; when that is the other's, there is nothing left to hand over (and
    // waiting for this one to hold would wait for ever: a paired run's insiders-flood, 17:15 UTC).
    const outcome = await firstValueFrom(
      merge(p.poller.holding$.pipe(filter(Boolean), map(() => 'held' as const)), leaseOfAnother(p, topics.lease).pipe(map(() => 'another holds' as const))).pipe(timeout(RIG_START_MS)),
    );
    held = outcome === 'held';
  } finally {
    // Stopped while it holds, it hands the lease over. Not forced: what it sends is on the broker
    // (acknowledged) before the first poller starts. A poller that never held published no state: the
    // holder's retained state is left as it is.
    p.poller.stop();
    if (held) await Promise.all(STATE_PARTS.map((part) => p.mqtt.publishAsync(topics.part(part), '', { qos: 1, retain: true })));
    await p.leaseMqtt?.endAsync(false);
    await p.mqtt.endAsync(false);
    await p.client.close();
  }
}

/** A facility for one test, closed when it finishes (also when tests run concurrently: each has its own). */
export async function facilityFor(test: Pick<TestContext, 'onTestFinished'>, options: FacilityOptions): Promise<Rig> {
  const rig = await startFacility(options);
  test.onTestFinished(() => rig.close(), RIG_HOOK_MS);
  return rig;
}

/**
 * One facility for the tests of a describe block that leave it as they found it (they look at what
 * happens after a `mark`); started before the first (its options made then, when given as a function,
 * e.g. to start a broker of its own), closed after the last.
 */
export function sharedFacility(options: FacilityOptions | (() => Promise<FacilityOptions>)): () => Rig {
  let rig: Rig | null = null;
  beforeAll(async () => {
    rig = await startFacility(typeof options === 'function' ? await options() : options);
  }, RIG_HOOK_MS);
  afterAll(async () => {
    await rig?.close();
  }, RIG_HOOK_MS);
  return () => {
    if (rig === null) throw new Error('the shared facility has not started');
    return rig;
  };
}

/** A bare MQTT client on the rig's broker for one test (anonymous unless told), closed when it finishes. */
export async function clientFor(test: Pick<TestContext, 'onTestFinished'>, rig: Rig, options: mqtt.IClientOptions = {}): Promise<MqttClient> {
  const client = await connect(rig.broker.url, options);
  test.onTestFinished(() => client.endAsync(true));
  return client;
}

/**
 * Ends every take at the recorder itself (as its own operator would) and waits until every panel shows
 * channels 1 and 2 idle: where each test on a shared rig starts.
 */
export async function idleRecorder(rig: Rig): Promise<void> {
  // The test's own set-up read and writes, not a poll under test: each waits for its answer as long as a
  // wait on a socket may on this busy machine (WAIT_MS), not the client's 2 s poll limit (a paired run
  // at load 8-15 had this read time out in the simulator's own starved process).
  const setUp = { timeoutMs: WAIT_MS };
  for (const channel of await rig.sim.client.listChannels(setUp)) if (channel.IsRecording) await rig.sim.client.recStop(channel.Index, setUp);
  await until(() => rig.panels.every((panel) => channelState(panel, 'key0') === 'idle' && channelState(panel, 'key1') === 'idle'), 'every panel showing channels 1 and 2 idle');
}

/**
 * How late this process ran its timers from now until `stop`, in ms, all together: a chain of steps
 * (a timer, a message, a request) is late by every stall on its way, not only by the longest one.
 */
export function timersLate(): { stop: () => number } {
  const resolutionMs = 10;
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    stop: () => {
      histogram.disable();
      // Each sample is the interval between two ticks of a 10 ms timer: what is over 10 ms is late.
      return histogram.count === 0 ? 0 : histogram.count * Math.max(0, histogram.mean / 1e6 - resolutionMs);
    },
  };
}

/** Whether a poller holds its recorder's lease now. */
export function isHolding(p: PollerProcess): boolean {
  let value = false;
  p.poller.holding$.subscribe((h) => (value = h)).unsubscribe();
  return value;
}

// ---- Added for the calm bus tests (issue 31): new exports only, nothing above changed (their imports
// are here, hoisted as every import is, to keep this block apart). ----
import { BusAuthority as SigningAuthority } from '../../src/bus/facility.js';
import { readPrivateKeyFile } from '../../src/bus/key-file.js';
import { loadFacility } from '../../src/cli/facility-file.js';

/**
 * As the rig does before its first poller starts (handOver): a poller of `options.authority` claims the
 * lease with a TTL of HANDOVER_TTL_MS, holds it and stops cleanly, so that a poller started next claims
 * at once instead of waiting out a TTL, as in a facility restarted cleanly. For tests that build their
 * poller themselves (with its alarms, or as a `recdeck run` process).
 */
export async function handLeaseOver(broker: Broker, sim: SimulatorFixture, pollMs: number, options: PollerOptions): Promise<void> {
  await handOver(broker, sim, pollMs, { ...options, ttlMs: HANDOVER_TTL_MS });
}

/**
 * Stops a poller as its process would on SIGTERM: the lease handed over at once (a last renewal that
 * expires now) and its health offline, sent before the connection closes, so the next poller claims
 * without waiting out a TTL. (The rig's cleanup stops it again, which does nothing more, and closes its
 * recorder client.)
 */
export async function stopPoller(p: PollerProcess): Promise<void> {
  p.poller.stop();
  await p.mqtt.endAsync(false);
}

/**
 * handLeaseOver for `recdeck run` pollers that know who is who from a facility file: the file's poller
 * `id`, signing with the key `keygen` wrote to `keyFile`, hands the lease over on `broker` (connection
 * options such as a TLS certificate in `more.connect`).
 */
export async function handLeaseOverAs(broker: Broker, sim: SimulatorFixture, pollMs: number, who: { id: string; keyFile: string; facilityFile: string }, more: Partial<PollerOptions> = {}): Promise<void> {
  const authority = SigningAuthority.signed(who.id, readPrivateKeyFile(who.keyFile, 'the handover key').privateKey, await loadFacility(who.facilityFile));
  await handLeaseOver(broker, sim, pollMs, { ...more, authority });
}
