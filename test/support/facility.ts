// A facility on one real Mosquitto: the simulator (real HTTP, real time), pollers holding its URL and
// token that publish it on the bus, and panel bridges that know only `main@mqtt`, each with an
// in-memory 15-key surface. Every member signs with its own key; the facility lists them all.
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { firstValueFrom, filter, timeout } from 'rxjs';
import { afterEach } from 'vitest';
import { realClock } from '../../src/api/clock.js';
import { RecorderClient } from '../../src/api/client.js';
import { generatedFacility } from '../../src/bench/bus.js';
import { busClientOptions, sendWithoutDelay } from '../../src/bus/connection.js';
import { BusPoller, newInstance, pollerWill, recorderIdentity } from '../../src/bus/bus-poller.js';
import { BusRecorder } from '../../src/bus/bus-recorder.js';
import { bus } from '../../src/cli/bus-keys.js';
import type { BusAuthority } from '../../src/bus/facility.js';
import type { OperationGroup } from '../../src/bus/operation-groups.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { keyGrid } from '../../src/engine/surface.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from './bridge.js';
import { startBroker, type Broker, type RestartableBroker } from './mosquitto.js';
import { startFixture, type SimulatorFixture } from './simulator.js';
import { until as waitUntil } from './until.js';

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
  client: RecorderClient;
  log: Logger & { lines: string[] };
  audit: CommandRecord[];
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
  /** The recorder's URL as the poller knows it (default the simulator's). */
  url?: string;
  keepalive?: number;
  /** Connection options on top (a proxy's URL is given as the broker's). */
  brokerUrl?: string;
}

export async function startPoller(broker: Broker, sim: SimulatorFixture, pollMs: number, options: PollerOptions): Promise<PollerProcess> {
  const recorder = options.recorder ?? sim;
  const url = options.url ?? recorder.sim.url;
  const client = new RecorderClient({ url, token: recorder.sim.token });
  const link = pollingLink(new RecorderPoller('main', client, { pollMs, slowMs: 1000 }));
  const instance = newInstance();
  const { authority } = options;
  const connection = sendWithoutDelay(await connect(options.brokerUrl ?? broker.url, { ...busClientOptions(authority.id), ...pollerWill(authority, 'main', instance, Date.now()), keepalive: options.keepalive ?? 10, reconnectPeriod: 200, ...options.connect }));
  const log = keptLog();
  const audit: CommandRecord[] = [];
  const poller = new BusPoller('main', link, connection, { authority, identity: recorderIdentity(url, recorder.sim.token), instance, pollMs, log, audit: (record) => audit.push(record), ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }) });
  poller.start();
  return {
    poller,
    mqtt: connection,
    client,
    log,
    audit,
    kill: () => {
      connection.options.reconnectPeriod = 0;
      connection.stream.destroy();
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
  const link = new BusRecorder('main', connection, { authority, pollMs, log, ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }) });
  const bridge = new Bridge({ recorders: [{ name: 'main', link }, ...(options.moreRecorders ?? [])], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ id: options.surfaceId ?? `memory:${authority.id}`, model: 'test-15', controls: keyGrid(3, 5, 72) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(options.profile ?? PANEL_PROFILE)]);
  bridge.addSurface(surface);
  const nextCommand = (control: string, ms = 8000) => firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === control), timeout(ms)));
  return { bridge, link, surface, mqtt: connection, log, commands, nextCommand };
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
}

/** A running facility: broker, simulator, pollers (the first holds the lease) and panels showing channel 1 live; `close` ends it all. */
export interface Rig {
  broker: RestartableBroker;
  sim: SimulatorFixture;
  members: ReturnType<typeof generatedFacility>;
  pollers: PollerProcess[];
  panels: Panel[];
  /** Every write the recorder received, as "METHOD /path". */
  writes: () => string[];
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
  const broker = options.broker ?? (await startBroker());
  cleanups.push(() => broker.close());
  const sim = await startSimulator();
  cleanups.push(() => sim.close());
  const pollerIds = options.pollers ?? ['poller-a'];
  const panelIds = options.panels ?? ['panel-a', 'panel-b'];
  const members = generatedFacility('main', [...pollerIds, ...(options.more ?? [])], panelIds, options.groups);
  const rig: Rig = {
    broker,
    sim,
    members,
    pollers: [],
    panels: [],
    writes: () => sim.sim.log.list().filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    gets: () => sim.sim.log.list().filter((r) => r.method === 'GET').length,
    startPoller: async (id, more = {}) => {
      const p = await startPoller(broker, sim, pollMs, { authority: members.authority(id), ...options.poller?.(id), ...more });
      cleanups.push(async () => {
        p.poller.stop();
        await p.mqtt.endAsync(true);
        await p.client.close();
      });
      rig.pollers.push(p);
      return p;
    },
    startPanel: async (id, more = {}) => {
      const panel = await startPanel(broker, pollMs, { authority: members.authority(id), ...options.panel?.(id), ...more });
      cleanups.push(async () => {
        await panel.bridge.stop();
        await panel.mqtt.endAsync(true);
      });
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
    for (const id of pollerIds) {
      const p = await rig.startPoller(id);
      // The first holds the lease before the next one starts, so which one polls is known.
      if (rig.pollers.length === 1) await until(() => p.poller.state.lastGoodAt !== null, 'the first poller polling');
    }
    for (const id of panelIds) await rig.startPanel(id);
    await until(() => rig.panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'every panel live');
  } catch (error) {
    await rig.close();
    throw error;
  }
  return rig;
}

/** A facility for each test of the file that calls this (at its top), closed after the test. */
export function facilityPerTest(): (options: FacilityOptions) => Promise<Rig> {
  let rig: Rig | null = null;
  afterEach(async () => {
    await rig?.close();
    rig = null;
  });
  return async (options) => {
    rig = await startFacility(options);
    return rig;
  };
}

/** Whether a poller holds its recorder's lease now. */
export function isHolding(p: PollerProcess): boolean {
  let value = false;
  p.poller.holding$.subscribe((h) => (value = h)).unsubscribe();
  return value;
}
