// `--mqtt` and `--recorder NAME@mqtt` started: the recorders this process polls and publishes on the
// state bus, and those it only follows there (the settings, read from the flags, are bus-settings.ts's).
// Without --mqtt nothing here runs and every recorder is polled in this process as before; start-bridge.ts
// imports this file only then, so a bridge without a bus loads none of bus/.
//
// The MQTT library is loaded only when --mqtt is given: a bridge without a bus never carries it (its
// modules are 2.6 MB of heap, marked at every full collection: node -e "await import('mqtt')", heapUsed).
// Required, not imported: Node scans a CommonJS module imported from an ES module (and what it
// re-exports) for its export names, 140-160 ms of CPU more than mqtt's require, paid by every bus
// poller's start (docs/performance.md, "CommonJS packages required").
import { createRequire } from 'node:module';
import type * as Mqtt from 'mqtt';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { RecorderClient } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { BusPoller, newInstance, pollerWill, recorderIdentity } from '../bus/bus-poller.js';
import { BusRecorder } from '../bus/bus-recorder.js';
import { busClientOptions, connectAtPace, guardSession, sendWithoutDelay, watchBrokerLog, type SessionGuard } from '../bus/connection.js';
import { BusAuthority, publicKeyText, type Facility } from '../bus/facility.js';
import { MAX_PACKET_BYTES } from '../bus/limits.js';
import { RecorderName } from '../bus/names.js';
import { realTime } from '../engine/engine-time.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import { LogLimiter } from '../engine/log-limit.js';
import { pollingLink, type RecorderLink } from '../engine/recorder-link.js';
import { RecorderPoller } from '../engine/recorder-poller.js';
import type { RecorderWarnings } from '../remote/api.js';
import { readPrivateKeyFile } from './bus-keys.js';
import { loadFacility } from './facility-file.js';
import type { BusSettings } from './bus-settings.js';
import { UsageError } from './usage-error.js';

export interface BusRecorders {
  recorders: Array<{ name: string; link: RecorderLink }>;
  /** The connection and who this process is on it: alarms on the bus use them too (issue 36). */
  connection: MqttClient;
  authority: BusAuthority;
  /** What /healthz says of a recorder polled here: its poller falling behind its lease, before it lapses. */
  warnings: RecorderWarnings;
  close: () => Promise<void>;
}

/** /healthz's word on the recorders polled here (remote/ knows nothing of the bus). */
export function pollerWarnings(pollers: ReadonlyArray<{ name: string; poller: BusPoller }>): RecorderWarnings {
  return (recorder) => {
    const found = pollers.find((p) => p.name === recorder);
    return found?.poller.fallingBehind ? [`the poller "${found.poller.id}" is falling behind: its lease renewals come back so late that it is one renewal from losing the lease`] : [];
  };
}

/** Who this process is on the bus: its key checked against the facility file, and the recorders it may poll. */
async function busAuthority(bus: BusSettings, polled: readonly string[], followed: readonly string[], log: Logger): Promise<BusAuthority> {
  if (bus.facility === null) {
    log.warn(`--mqtt-insecure: nothing on the state bus ${bus.url} is signed or checked: anyone who can publish there runs commands on the recorders and shows every panel any state. Give --mqtt-facility and --mqtt-key-file in a studio.`);
    return BusAuthority.insecure(bus.id);
  }
  const facility: Facility = await loadFacility(bus.facility.file);
  const { privateKey, publicKey } = readPrivateKeyFile(bus.facility.keyFile, '--mqtt-key-file');
  const listed = facility.pollers.get(bus.id)?.publicKey ?? facility.panels.get(bus.id)?.publicKey;
  if (listed === undefined) throw new UsageError(`--mqtt-id ${bus.id}: the facility file ${bus.facility.file} lists no poller or panel "${bus.id}"`);
  if (!listed.equals(publicKey)) throw new UsageError(`--mqtt-key-file: ${bus.facility.keyFile} is not the key of "${bus.id}" in ${bus.facility.file} (its public key is ${publicKeyText(publicKey)})`);
  const authority = BusAuthority.signed(bus.id, privateKey, facility);
  for (const name of polled) if (!authority.mayPoll(bus.id, name)) throw new UsageError(`--recorder ${name}: the facility file ${bus.facility.file} does not let "${bus.id}" poll "${name}"`);
  for (const name of followed) if (!authority.mayCallAnything(bus.id, name)) log.warn(`--recorder ${name}@mqtt: the facility file ${bus.facility.file} lets "${bus.id}" call nothing on "${name}": it shows the recorder, and its presses are refused`);
  return authority;
}

/**
 * Connects to the broker, once for the process, as its bus id with a suffix of its own (connection.ts):
 * the recorders polled here publish and answer on it, the followed ones are read from it. Waits for the
 * broker at start, so a wrong URL or login stops `run`.
 */
export async function connectBusRecorders(
  bus: BusSettings,
  polled: ReadonlyArray<{ name: string; client: RecorderClient; token: string }>,
  followed: readonly string[],
  pollMs: number,
  log: Logger,
  audit?: (record: CommandRecord) => void,
): Promise<BusRecorders> {
  for (const { name } of polled) {
    const named = RecorderName.safeParse(name);
    if (!named.success) throw new UsageError(`--recorder ${name}: ${named.error.issues[0]?.message ?? 'bad name'}`);
  }
  const authority = await busAuthority(
    bus,
    polled.map((p) => p.name),
    followed,
    log,
  );
  const instance = newInstance();
  // One last will per connection: a process polling one recorder says on its health that it is gone.
  const [only] = polled;
  const will = polled.length === 1 && only ? pollerWill(authority, only.name, instance, realTime.now()) : {};
  const mqtt = createRequire(import.meta.url)('mqtt') as typeof Mqtt;
  const options: IClientOptions = {
    // Nothing waits for the broker (no queue while away): a command not sent now is failed now, a state is superseded by the next.
    ...busClientOptions(bus.id),
    keepalive: bus.keepaliveS,
    connectTimeout: 5000,
    reconnectPeriod: 1000,
    ...(bus.username ? { username: bus.username } : {}),
    ...(bus.password ? { password: bus.password } : {}),
    ...bus.tls,
    ...will,
  };
  let connection: MqttClient;
  try {
    // Read at a pace (connection.ts): a flood of commands is parsed between timers, not ahead of them.
    connection = sendWithoutDelay(await connectAtPace(mqtt.connect, bus.url, options, realTime));
  } catch (error) {
    throw new UsageError(`--mqtt: cannot connect to ${bus.url} as "${bus.id}": ${messageOf(error)}`);
  }
  followConnection(connection, bus.url, log);
  const guard = guardSession(connection, { login: bus.username ?? bus.id, time: realTime, log });
  // A poller's lease on a connection of its own (BusPoller's leaseConnection), never behind what panels send.
  const { will: _will, ...withoutWill } = options;
  const lease = polled.length === 0 ? null : sendWithoutDelay(await mqtt.connectAsync(bus.url, { ...withoutWill, ...busClientOptions(bus.id) }).catch((error: unknown) => {
    throw new UsageError(`--mqtt: cannot connect the lease's connection to ${bus.url} as "${bus.id}": ${messageOf(error)}`);
  }));
  const leaseGuard = lease === null ? null : guardSession(lease, { login: bus.username ?? bus.id, time: realTime, log });
  if (lease !== null) followConnection(lease, `${bus.url} (lease)`, log);
  const guards = leaseGuard === null ? [guard] : [guard, leaseGuard];
  const monitor = bus.monitor === null ? null : await connectMonitor(mqtt.connectAsync, bus, options, guards, log);
  if (monitor === null && polled.length > 0 && bus.facility !== null) {
    log.info(`state bus: no monitor login (--mqtt-monitor-user): another connection made with the login "${bus.username ?? bus.id}" is not named in this log`);
  }
  const recorders: BusRecorders['recorders'] = [];
  const pollers: Array<{ name: string; poller: BusPoller }> = [];
  for (const { name, client, token } of polled) {
    const link = pollingLink(new RecorderPoller(name, client, { time: realTime, pollMs }));
    const poller = new BusPoller(name, link, connection, { time: realTime, authority, identity: recorderIdentity(client.url, token), pollMs, instance, log, ...(audit ? { audit } : {}), ...(lease === null ? {} : { leaseConnection: lease }) });
    pollers.push({ name, poller });
    recorders.push({ name, link: poller });
  }
  for (const name of followed) recorders.push({ name, link: new BusRecorder(name, connection, { time: realTime, authority, pollMs, log }) });
  return {
    recorders,
    connection, // issue 36
    authority, // issue 36
    warnings: pollerWarnings(pollers),
    close: async () => {
      // Stopping a poller hands its lease over (a clean disconnect sends no last will), before the connection ends.
      for (const { link } of recorders) link.stop();
      guard.stop();
      leaseGuard?.stop();
      await lease?.endAsync();
      if (monitor !== null) {
        monitor.unwatch();
        await monitor.client.endAsync();
      }
      await connection.endAsync();
    },
  };
}

/**
 * The monitor's connection (its own login, which may read the broker's log and nothing of the bus),
 * watching for other connections with the bus login or its own, and for takeovers of the bus
 * connection's client ids. Waits for the broker, so a wrong monitor login stops `run`.
 */
async function connectMonitor(connectAsync: (url: string, options: IClientOptions) => Promise<MqttClient>, bus: BusSettings, busOptions: IClientOptions, guards: readonly SessionGuard[], log: Logger): Promise<{ client: MqttClient; unwatch: () => void }> {
  const login = bus.monitor;
  if (login === null) throw new Error('no monitor login');
  const { will: _will, ...withoutWill } = busOptions;
  let client: MqttClient;
  try {
    client = await connectAsync(bus.url, { ...withoutWill, ...busClientOptions(login.username), username: login.username, password: login.password });
  } catch (error) {
    throw new UsageError(`--mqtt-monitor-user: cannot connect to ${bus.url} as "${login.username}": ${messageOf(error)}`);
  }
  const own = guardSession(client, { login: login.username, time: realTime, log });
  const unwatch = watchBrokerLog(client, { logins: [bus.username ?? bus.id, login.username], guards: [...guards, own], time: realTime, log });
  return {
    client,
    unwatch: () => {
      unwatch();
      own.stop();
    },
  };
}
/** Says what happens to the connection (a few lines per window), and checks the broker's packet limit at each connect. */
function followConnection(connection: MqttClient, url: string, log: Logger): void {
  const limited = new LogLimiter((message) => log.warn(message), () => realTime.now());
  const checkLimit = () => {
    const limit = connection.serverProperties?.maximumPacketSize;
    if (limit === undefined || limit > MAX_PACKET_BYTES) {
      log.warn(`state bus ${url}: the broker accepts ${limit === undefined ? 'packets of any size' : `packets of up to ${limit} bytes`}; set max_packet_size ${MAX_PACKET_BYTES} in its configuration (deploy/mosquitto/mosquitto.conf), so nobody can publish more than a recdeck message can be`);
    }
  };
  checkLimit();
  let lost = false;
  connection.on('connect', () => {
    if (lost) log.info(`state bus ${url}: connected again`);
    lost = false;
    checkLimit();
  });
  connection.on('close', () => {
    if (!lost) limited.say(`state bus ${url}: connection lost; reconnecting every second (commands fail at once until then)`);
    lost = true;
  });
  connection.on('disconnect', (packet) => limited.say(`state bus ${url}: the broker ended the connection: reason ${packet.reasonCode ?? '?'}${packet.properties?.reasonString ? ` (${packet.properties.reasonString})` : ''}`));
  connection.on('error', (error) => limited.say(`state bus ${url}: ${error.message}`));
}
