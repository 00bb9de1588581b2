// `--mqtt` and `--recorder NAME@mqtt` as flags: the state bus's settings (who this process is on the
// bus, how it reaches the broker) and which recorders it only follows there. What they start is in
// bus-setup.ts, which loads the bus (bus/*, and mqtt when it connects); `recdeck run` imports that only
// when --mqtt is given, so a bridge without a bus reads these flags without loading any of it (22 of
// bus/'s files and their zod schemas: docs/performance.md, "A smaller live heap").
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { messageOf } from '../api/errors.js';
import { DEFAULT_KEEPALIVE_S } from '../bus/limits.js';
import { BusId, RecorderName } from '../bus/names.js';
import { wholeNumber } from './flags.js';
import { readSecretFile } from './secret-file.js';
import { UsageError } from './usage-error.js';

export interface BusFlagValues {
  mqtt?: string | undefined;
  'mqtt-facility'?: string | undefined;
  'mqtt-key-file'?: string | undefined;
  'mqtt-id'?: string | undefined;
  'mqtt-insecure'?: boolean | undefined;
  'mqtt-ca'?: string | undefined;
  'mqtt-cert'?: string | undefined;
  'mqtt-key'?: string | undefined;
  'mqtt-keepalive'?: string | undefined;
  'mqtt-monitor-user'?: string | undefined;
  'mqtt-monitor-password-file'?: string | undefined;
}

export interface BusSettings {
  url: string;
  username?: string;
  password?: string;
  /** The facility file and this process's key; null on an insecure bus (--mqtt-insecure). */
  facility: { file: string; keyFile: string } | null;
  /** This process's bus id; on an insecure bus without one, a random one. */
  id: string;
  /** PEM texts for mqtts://. */
  tls: { ca?: string; cert?: string; key?: string };
  keepaliveS: number;
  /**
   * The monitor login (--mqtt-monitor-user): a second connection that reads the broker's connection log,
   * which names every client id, so that the bus login itself never may (deploy/mosquitto/acl).
   */
  monitor: { username: string; password: string } | null;
}

const ON_BUS = /^(.+)@mqtt$/;

/** The state bus's settings from its flags and RECDECK_MQTT*; null when no bus is asked for. */
export function busSettings(values: BusFlagValues, env: NodeJS.ProcessEnv): BusSettings | null {
  const given = values.mqtt ?? env.RECDECK_MQTT;
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
  const username = env.RECDECK_MQTT_USER || undefined;
  const file = values['mqtt-facility'] ?? env.RECDECK_MQTT_FACILITY;
  const keyFile = values['mqtt-key-file'] ?? env.RECDECK_MQTT_KEY_FILE;
  const insecure = values['mqtt-insecure'] === true || env.RECDECK_MQTT_INSECURE === '1';
  if (file === undefined && !insecure) {
    throw new UsageError('--mqtt: give --mqtt-facility FILE and --mqtt-key-file FILE (who may do what on the bus, and who this process is), or --mqtt-insecure for a bus where anyone who can publish runs recorder commands');
  }
  if (file !== undefined && keyFile === undefined) throw new UsageError('--mqtt-facility: give this process\'s private key too, --mqtt-key-file FILE (recdeck bus keygen makes one)');
  const id = values['mqtt-id'] ?? env.RECDECK_MQTT_ID ?? username;
  if (id === undefined && file !== undefined) throw new UsageError('--mqtt-facility: give this process\'s id in it, --mqtt-id ID (or RECDECK_MQTT_ID, or the broker user RECDECK_MQTT_USER)');
  if (id !== undefined && !BusId.safeParse(id).success) throw new UsageError(`--mqtt-id: ${JSON.stringify(id)}: a bus id is 1-64 letters, digits, "_", "." or "-"`);
  if (id !== undefined && username !== undefined && id !== username) throw new UsageError(`--mqtt-id ${id}: the broker user RECDECK_MQTT_USER is "${username}"; they must be the same (the broker's ACL gives each login the topics of its own id)`);
  return {
    url: url.href,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    facility: file === undefined || keyFile === undefined ? null : { file, keyFile },
    id: id ?? `recdeck-${randomUUID().slice(0, 8)}`,
    tls: tlsFiles(url, values, env),
    monitor: monitorLogin(values, env, username),
    keepaliveS: wholeNumber('--mqtt-keepalive', values['mqtt-keepalive'] ?? env.RECDECK_MQTT_KEEPALIVE ?? String(DEFAULT_KEEPALIVE_S), 1, 600, 's'),
  };
}

function monitorLogin(values: BusFlagValues, env: NodeJS.ProcessEnv, username: string | undefined): BusSettings['monitor'] {
  const user = values['mqtt-monitor-user'] ?? (env.RECDECK_MQTT_MONITOR_USER || undefined);
  const file = values['mqtt-monitor-password-file'] ?? (env.RECDECK_MQTT_MONITOR_PASSWORD_FILE || undefined);
  if (user === undefined && file === undefined) return null;
  if (user === undefined || file === undefined) throw new UsageError('--mqtt-monitor-user and --mqtt-monitor-password-file go together: the monitor login and its password');
  if (username === undefined) throw new UsageError('--mqtt-monitor-user: it watches the connections made with this process\'s broker login: give that login too (RECDECK_MQTT_USER)');
  if (user === username) throw new UsageError(`--mqtt-monitor-user ${user}: the monitor is a login of its own, not the bus login "${username}" (the bus login must never read the broker's log: it names every client id)`);
  return { username: user, password: readSecretFile(file, '--mqtt-monitor-password-file') };
}

function tlsFiles(url: URL, values: BusFlagValues, env: NodeJS.ProcessEnv): BusSettings['tls'] {
  const ca = values['mqtt-ca'] ?? env.RECDECK_MQTT_CA;
  const cert = values['mqtt-cert'] ?? env.RECDECK_MQTT_CERT;
  const key = values['mqtt-key'] ?? env.RECDECK_MQTT_TLS_KEY;
  if (ca === undefined && cert === undefined && key === undefined) return {};
  if (url.protocol !== 'mqtts:') throw new UsageError('--mqtt-ca, --mqtt-cert and --mqtt-key are for a TLS broker: give an mqtts:// URL');
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--mqtt-cert and --mqtt-key go together: give both PEM files');
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`${what}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`);
    }
  };
  return {
    ...(ca === undefined ? {} : { ca: read(ca, '--mqtt-ca') }),
    ...(cert === undefined ? {} : { cert: read(cert, '--mqtt-cert') }),
    ...(key === undefined ? {} : { key: readSecretFile(key, '--mqtt-key') }),
  };
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
