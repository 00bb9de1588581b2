// A facility on one real Mosquitto: the simulator (real HTTP, real time), pollers holding its URL and
// token that publish it on the bus, and panel bridges that know only `main@mqtt`, each with an
// in-memory 15-key surface.
import mqtt, { type MqttClient } from 'mqtt';
import { firstValueFrom, filter, timeout } from 'rxjs';
import { RecorderClient } from '../../src/api/client.js';
import { BusPoller, newPollerId, pollerWill } from '../../src/bus/bus-poller.js';
import { BusRecorder } from '../../src/bus/bus-recorder.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { keyGrid } from '../../src/engine/surface.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from './bridge.js';
import type { Broker } from './mosquitto.js';
import { startFixture, type SimulatorFixture } from './simulator.js';
import { until as waitUntil } from './until.js';

export const PANEL_PROFILE = `
name: panel
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1 }, press: { action: rec-start, channel: 1 } }
      key1: { show: { channel: 2 }, press: { action: rec-start, channel: 2 } }
`;

/** What the bus ends said was wrong (teardown closes connections under them, so they are kept, not printed). */
export const warnings: string[] = [];

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface Panel {
  bridge: Bridge;
  surface: MemorySurface;
  mqtt: MqttClient;
  commands: CommandRecord[];
  nextCommand: (control: string, ms?: number) => Promise<CommandRecord>;
}

export interface PollerProcess {
  poller: BusPoller;
  mqtt: MqttClient;
  client: RecorderClient;
  /** As the process dying would: the broker sees the connection drop (no DISCONNECT, so the last will fires) and nothing polls any more. */
  kill: () => void;
}

export async function connect(url: string, options: mqtt.IClientOptions = {}): Promise<MqttClient> {
  return mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
}

export async function startPoller(broker: Broker, sim: SimulatorFixture, pollMs: number): Promise<PollerProcess> {
  const id = newPollerId();
  const client = new RecorderClient({ url: sim.sim.url, token: sim.sim.token });
  const link = pollingLink(new RecorderPoller('main', client, { pollMs, slowMs: 1000 }));
  const connection = await connect(broker.url, { ...pollerWill('main', id), keepalive: 10 });
  const poller = new BusPoller('main', link, connection, { id, pollMs, warn: (m) => warnings.push(m) });
  poller.start();
  return {
    poller,
    mqtt: connection,
    client,
    kill: () => {
      connection.stream.destroy();
      link.stop();
    },
  };
}

export async function startPanel(broker: Broker, pollMs: number, id: string, profile = PANEL_PROFILE): Promise<Panel> {
  const connection = await connect(broker.url);
  const link = new BusRecorder('main', connection, { pollMs, warn: (m) => warnings.push(m) });
  const bridge = new Bridge({ recorders: [{ name: 'main', link }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ id, model: 'test-15', controls: keyGrid(3, 5, 72) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(profile)]);
  bridge.addSurface(surface);
  const nextCommand = (control: string, ms = 5000) => firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === control), timeout(ms)));
  return { bridge, surface, mqtt: connection, commands, nextCommand };
}

export async function startSimulator(): Promise<SimulatorFixture> {
  return startFixture({ now: () => Date.now(), grid: 16 });
}

/** The pictures a panel's key shows. */
export function pictureOf(panel: Panel, control: string) {
  return panel.bridge.session(panel.surface.id)?.describeControls().find((c) => c.control.id === control)?.picture;
}

/** Waits (bounded) for a check to hold, asked again every 10 ms (panels draw and bus messages arrive often). */
export const until = (check: () => boolean, what: string, ms = 5000): Promise<void> => waitUntil(check, what, ms, 10);
