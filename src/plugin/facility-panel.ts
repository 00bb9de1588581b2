// The plugin's facility mode: global settings `{ "mqtt": { … } }` make the desk a panel on the state bus,
// as `recdeck run --mqtt … --recorder NAME@mqtt` does (src/cli/bus-setup.ts): its key file checked against
// the facility file's entry for its id, one connection for the plugin, and each recorder a visible action
// names followed there (BusRecorder), its commands signed and run by the facility's poller. The desk holds
// no recorder token. The one plugin file that imports the bus (test/architecture/layers.test.ts).
//
// The facility's recorders, as the panel knows them: the ones whose lease a poller of the facility signed
// (recdeck/+/lease, retained), listed for the property inspector's Recorder choice. A lease not signed by
// a poller of that recorder is not believed, and said in the log (a few lines per window).
//
// Unlike `run`, the plugin does not wait for the broker: the app starts the plugin at login, perhaps before
// the network; the keys show the recorders OFFLINE until the connection is up, and it reconnects by itself.
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MqttClient } from 'mqtt';
import { messageOf } from '../api/errors.js';
import { BusRecorder } from '../bus/bus-recorder.js';
import { busClientOptions, guardSession, sendWithoutDelay } from '../bus/connection.js';
import { BusAuthority, publicKeyText, type Facility } from '../bus/facility.js';
import { loadFacility } from '../bus/facility-file.js';
import { readPrivateKeyFile, readSecretText } from '../bus/key-file.js';
import { DEFAULT_KEEPALIVE_S, MAX_PAYLOAD_BYTES } from '../bus/limits.js';
import { LeaseMessage, RecorderName, parseBody } from '../bus/topics.js';
import type { EngineTime } from '../engine/engine-time.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { Logger } from '../engine/log.js';
import type { RecorderLink } from '../engine/recorder-link.js';
import type { FacilityPanel } from './plugin-deck.js';
import { FacilityJoinError } from './facility-join-error.js';
import type { FacilityEntry } from './settings.js';

export interface JoinOptions {
  time: EngineTime;
  log: Logger;
  pollMs?: number;
}

/** Joins the facility as the panel `entry.id`; a file it cannot use is a FacilityJoinError naming the file (its key says the short word). */
export async function joinFacility(entry: FacilityEntry, options: JoinOptions): Promise<FacilityPanel> {
  const facility = await step('NO FACILITY', () => loadFacility(entry.facilityFile, 'facilityFile'));
  const { privateKey, publicKey } = await step('NO KEY', () => readPrivateKeyFile(entry.keyFile, 'keyFile'));
  checkListed(facility, entry, publicKey);
  const password = entry.passwordFile === undefined ? undefined : await step('NO PASSWORD', () => readSecretText(entry.passwordFile as string, 'passwordFile'));
  const ca = entry.caFile === undefined ? undefined : await step('NO CA', () => readCa(entry.caFile as string));
  const authority = BusAuthority.signed(entry.id, privateKey, facility);
  const { log, time } = options;
  const { default: mqtt } = await import('mqtt');
  const connection: MqttClient = sendWithoutDelay(
    mqtt.connect(entry.url, {
      // Nothing waits for the broker (no queue while away): a command not sent now is failed now.
      ...busClientOptions(entry.id),
      keepalive: DEFAULT_KEEPALIVE_S,
      connectTimeout: 5000,
      reconnectPeriod: 1000,
      ...(entry.username === undefined ? {} : { username: entry.username }),
      ...(password === undefined ? {} : { password }),
      ...(ca === undefined ? {} : { ca }),
    }),
  );
  let connected = false;
  connection.on('connect', () => {
    connected = true;
    log.info(`state bus ${entry.url}: connected as the panel "${entry.id}"`);
  });
  connection.on('close', () => {
    if (connected) log.warn(`state bus ${entry.url}: connection lost; reconnecting every second (presses fail at once until then)`);
    connected = false;
  });
  connection.on('error', (error) => log.warn(`state bus ${entry.url}: ${error.message}`));
  const guard = guardSession(connection, { login: entry.username ?? entry.id, time, log });
  const recorders = watchRecorders(connection, authority, { time, log });
  log.info(`facility: the panel "${entry.id}" on ${entry.url} (facility file ${entry.facilityFile}); no recorder token on this desk`);
  return {
    id: entry.id,
    link: (recorder: string): RecorderLink => {
      if (!authority.mayCallAnything(entry.id, recorder)) log.warn(`facility: ${entry.facilityFile} lets "${entry.id}" call nothing on "${recorder}": its keys show it, and their presses are refused`);
      return new BusRecorder(recorder, connection, { authority, time, log, ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }) });
    },
    recorders: () => recorders.names(),
    close: async () => {
      recorders.stop();
      guard.stop();
      await connection.endAsync();
    },
  };
}

/** At most this many recorders are listed: a poller allowed every recorder cannot fill the memory. */
export const MAX_LISTED_RECORDERS = 256;

const LEASES = 'recdeck/+/lease';

/** The recorders whose lease a poller of the facility signed, as the bus shows them (sorted). */
function watchRecorders(connection: MqttClient, authority: BusAuthority, { time, log }: { time: EngineTime; log: Logger }): { names(): string[]; stop(): void } {
  const known = new Set<string>();
  const bad = new LogLimiter((message) => log.warn(`facility: ${message}; not listed as a recorder`), () => time.now());
  const onMessage = (topic: string, payload: Buffer): void => {
    const recorder = /^recdeck\/([^/]+)\/lease$/.exec(topic)?.[1];
    // Another topic of the connection's, a lease cleared (an empty retained message), or one listed already.
    if (recorder === undefined || payload.length === 0 || known.has(recorder)) return;
    if (!RecorderName.safeParse(recorder).success) return bad.say(`${JSON.stringify(topic)}: not a recorder's name`);
    const opened = authority.open(topic, payload, MAX_PAYLOAD_BYTES.lease);
    if (!opened.ok) return bad.say(opened.error);
    const { from, body } = opened.message;
    if (!authority.mayPoll(from, recorder)) return bad.say(`${topic}: signed by "${from}", who is not a poller of "${recorder}"`);
    const lease = parseBody(LeaseMessage, topic, body);
    if (!lease.ok) return bad.say(lease.error);
    if (lease.value.recorder !== recorder) return bad.say(`${topic}: a lease of "${lease.value.recorder}"`);
    if (known.size >= MAX_LISTED_RECORDERS) return bad.say(`${topic}: ${MAX_LISTED_RECORDERS} recorders are listed already`);
    known.add(recorder);
  };
  connection.on('message', onMessage);
  void connection.subscribeAsync(LEASES, { qos: 1 }).catch((error: unknown) => log.warn(`facility: could not follow the recorders' leases (${LEASES}): ${messageOf(error)}`));
  return {
    names: () => [...known].sort(),
    stop: () => {
      connection.off('message', onMessage);
    },
  };
}

async function step<T>(short: string, read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new FacilityJoinError(short, messageOf(error));
  }
}

function checkListed(facility: Facility, entry: FacilityEntry, publicKey: KeyObject): void {
  const listed = facility.panels.get(entry.id)?.publicKey;
  if (listed === undefined) throw new FacilityJoinError('NOT LISTED', `id: the facility file ${entry.facilityFile} lists no panel "${entry.id}"`);
  if (!listed.equals(publicKey)) throw new FacilityJoinError('WRONG KEY', `keyFile: ${entry.keyFile} is not the key of "${entry.id}" in ${entry.facilityFile} (its public key is ${publicKeyText(publicKey)})`);
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`caFile: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`);
  }
}
