// `--mqtt` and `--recorder NAME@mqtt`: which recorders this process polls and publishes on the state
// bus, and which it only follows there. Without --mqtt nothing here runs and every recorder is polled
// in this process as before.
//
// The MQTT library is loaded only when --mqtt is given: a bridge without a bus never carries it (its
// modules are 2.6 MB of heap, marked at every full collection: node -e "await import('mqtt')", heapUsed).
import type { IClientOptions, MqttClient } from 'mqtt';
import type { RecorderClient } from '../api/client.js';
import { BusPoller, newPollerId, pollerWill } from '../bus/bus-poller.js';
import { BusRecorder } from '../bus/bus-recorder.js';
import { RecorderName } from '../bus/topics.js';
import type { Logger } from '../engine/log.js';
import { pollingLink, type RecorderLink } from '../engine/recorder-link.js';
import { RecorderPoller } from '../engine/recorder-poller.js';
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';

export interface BusSettings {
  url: string;
  username?: string;
  password?: string;
}

const ON_BUS = /^(.+)@mqtt$/;

/** `--mqtt URL` or RECDECK_MQTT; RECDECK_MQTT_USER, RECDECK_MQTT_PASSWORD or RECDECK_MQTT_PASSWORD_FILE. Null when no bus is asked for. */
export function busSettings(flag: string | undefined, env: NodeJS.ProcessEnv): BusSettings | null {
  const given = flag ?? env.RECDECK_MQTT;
  if (given === undefined || given === '') return null;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--mqtt: expected a broker URL such as mqtt://127.0.0.1:1883, got ${JSON.stringify(given)}`);
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') throw new UsageError(`--mqtt: expected an mqtt:// or mqtts:// URL, got ${url.protocol}`);
  if (url.username || url.password) throw new UsageError('--mqtt: give the user and password in RECDECK_MQTT_USER and RECDECK_MQTT_PASSWORD[_FILE], not in the URL (every user of the machine sees it in ps)');
  const password = env.RECDECK_MQTT_PASSWORD ?? (env.RECDECK_MQTT_PASSWORD_FILE ? readSecretFile(env.RECDECK_MQTT_PASSWORD_FILE, 'RECDECK_MQTT_PASSWORD_FILE') : undefined);
  return { url: url.href, ...(env.RECDECK_MQTT_USER ? { username: env.RECDECK_MQTT_USER } : {}), ...(password === undefined ? {} : { password }) };
}

/** Splits the --recorder flags into those polled here (URLs) and those followed on the bus (NAME@mqtt). */
export function splitBusRecorders(flags: readonly string[], bus: BusSettings | null): { polled: string[]; followed: string[] } {
  const polled: string[] = [];
  const followed: string[] = [];
  for (const flag of flags) {
    const match = ON_BUS.exec(flag);
    if (!match) {
      polled.push(flag);
      continue;
    }
    const name = RecorderName.safeParse(match[1]);
    if (!name.success) throw new UsageError(`--recorder ${flag}: ${name.error.issues[0]?.message ?? 'bad name'}`);
    if (!bus) throw new UsageError(`--recorder ${flag}: a recorder on the bus needs --mqtt URL (or RECDECK_MQTT)`);
    if (followed.includes(name.data)) throw new UsageError(`--recorder: the name "${name.data}" is given twice`);
    followed.push(name.data);
  }
  return { polled, followed };
}

export interface BusRecorders {
  recorders: Array<{ name: string; link: RecorderLink }>;
  close: () => Promise<void>;
}

/**
 * Connects to the broker: one connection per recorder polled here (each with its own last will), one
 * shared by the recorders only followed. Waits for the broker at start, so a wrong URL stops `run`.
 */
export async function connectBusRecorders(bus: BusSettings, polled: ReadonlyArray<{ name: string; client: RecorderClient }>, followed: readonly string[], pollMs: number, log: Logger): Promise<BusRecorders> {
  const { default: mqtt } = await import('mqtt');
  const connections: MqttClient[] = [];
  const connect = async (options: IClientOptions) => {
    const { username, password } = bus;
    try {
      const connection = await mqtt.connectAsync(bus.url, { connectTimeout: 5000, reconnectPeriod: 1000, ...(username ? { username } : {}), ...(password ? { password } : {}), ...options });
      connections.push(connection);
      connection.on('error', (error) => log.warn(`state bus ${bus.url}: ${error.message}`));
      return connection;
    } catch (error) {
      await Promise.allSettled(connections.map((c) => c.endAsync()));
      throw new UsageError(`--mqtt: cannot connect to ${bus.url}: ${(error as Error).message}`);
    }
  };
  const recorders: BusRecorders['recorders'] = [];
  for (const { name, client } of polled) {
    const named = RecorderName.safeParse(name);
    if (!named.success) throw new UsageError(`--recorder ${name}: ${named.error.issues[0]?.message ?? 'bad name'}`);
    const id = newPollerId();
    const connection = await connect(pollerWill(name, id));
    const link = pollingLink(new RecorderPoller(name, client, { pollMs }));
    recorders.push({ name, link: new BusPoller(name, link, connection, { id, pollMs, warn: (m) => log.warn(m), info: (m) => log.info(m) }) });
  }
  if (followed.length > 0) {
    const shared = await connect({});
    for (const name of followed) recorders.push({ name, link: new BusRecorder(name, shared, { pollMs, warn: (m) => log.warn(m) }) });
  }
  return {
    recorders,
    close: async () => {
      // Stopping a poller says it is gone (a clean disconnect sends no will), before the connection ends.
      for (const { link } of recorders) link.stop();
      await Promise.allSettled(connections.map((c) => c.endAsync()));
    },
  };
}
