// The state bus's flags, as `recdeck run` takes them: a table of words only, so that `recdeck run
// --help` shows them without loading the bus (bus-setup.ts reads their values).
import { DEFAULT_KEEPALIVE_S } from '../bus/limits.js';
import type { FlagTable } from './flags.js';

/** The state bus's flags, as `recdeck run` takes them. */
export const BUS_FLAGS = {
  mqtt: { type: 'string', value: 'URL', description: 'the state bus (mqtt:// or mqtts://): recorders given by URL are polled and published there; --recorder NAME@mqtt follows one from it (user and password: RECDECK_MQTT_USER, RECDECK_MQTT_PASSWORD[_FILE])', shownDefault: 'RECDECK_MQTT, else none' },
  'mqtt-facility': { type: 'string', value: 'FILE', description: "the facility file: the bus's pollers and panels, their public keys and what each may do", shownDefault: 'RECDECK_MQTT_FACILITY' },
  'mqtt-key-file': { type: 'string', value: 'FILE', description: "this process's private bus key (recdeck bus keygen makes one; mode 0600)", shownDefault: 'RECDECK_MQTT_KEY_FILE' },
  'mqtt-id': { type: 'string', value: 'ID', description: "this process's id in the facility file (and its broker login's user)", shownDefault: 'RECDECK_MQTT_ID, else RECDECK_MQTT_USER' },
  'mqtt-insecure': { type: 'boolean', default: false, description: 'a bus without a facility file: nothing signed or checked, anyone who can publish runs commands (a lab, never a studio)', shownDefault: 'RECDECK_MQTT_INSECURE=1' },
  'mqtt-monitor-user': { type: 'string', value: 'USER', description: "a broker login that may read only the broker's connection log: a poller names through it every other connection made with its login, and learns when its connection is taken over (password in --mqtt-monitor-password-file)", shownDefault: 'RECDECK_MQTT_MONITOR_USER, else none' },
  'mqtt-monitor-password-file': { type: 'string', value: 'FILE', description: "the monitor login's password (mode 0600, kept as the bus key is: whoever holds it reads every client id)", shownDefault: 'RECDECK_MQTT_MONITOR_PASSWORD_FILE' },
  'mqtt-ca': { type: 'string', value: 'FILE', description: "PEM certificate of the CA that signed the broker's (mqtts://)", shownDefault: 'RECDECK_MQTT_CA' },
  'mqtt-cert': { type: 'string', value: 'FILE', description: 'PEM client certificate for the broker (mqtts://, with --mqtt-key)', shownDefault: 'RECDECK_MQTT_CERT' },
  'mqtt-key': { type: 'string', value: 'FILE', description: 'PEM private key of --mqtt-cert', shownDefault: 'RECDECK_MQTT_TLS_KEY' },
  'mqtt-keepalive': { type: 'string', value: 'S', description: 'MQTT keep-alive in seconds: the broker fires a silent client\'s last will after 1.5 times this', shownDefault: `RECDECK_MQTT_KEEPALIVE, else ${DEFAULT_KEEPALIVE_S}` },
} satisfies FlagTable;
