// How every recdeck client connects to the state bus: MQTT 5 (message expiry, the broker's limits in
// CONNACK), a clean session (nothing kept for it while it is away), no message queued while
// disconnected, and the largest packet it takes. And without Nagle's delay: the bus carries small
// messages that someone is waiting for, and a message written while the one before is not yet
// acknowledged would otherwise wait up to 40 ms for that acknowledgement.
//
// Its client id is its bus id plus a random suffix drawn for the process: the broker ends an older
// connection with the same client id ("session taken over"), so an id anyone could name would let
// anyone who holds (or guesses) a login throw a poller off the bus once a second. The broker's ACL ties
// topics to the login's user (%u), never to the client id (deploy/mosquitto/). A poller's login watches
// the broker's own log of connections for another connection under its user (someone holds its
// password) and names it. That log names client ids too, so someone with a poller's password could read
// the poller's id there and take it over: each reconnect draws a new suffix, and a takeover the broker
// reports (MQTT 5 reason 142; Mosquitto 2.0.11 just closes the connection) is said and backed off from.
import { randomBytes } from 'node:crypto';
import type { IClientOptions, MqttClient } from 'mqtt';
import { Subscription, timer } from 'rxjs';
import type { EngineTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { LogLimiter } from '../engine/log-limit.js';
import { MAX_PACKET_BYTES } from './limits.js';

/** A bus id with a suffix drawn now: 64 random bits, which nobody connected elsewhere can name. */
export function busClientId(id: string): string {
  return `${id}-${randomBytes(8).toString('hex')}`;
}

/**
 * How many QoS 1 messages the broker may have on their way to this client unacknowledged (MQTT 5 Receive
 * Maximum). A flood of commands then waits, or is dropped, in the broker's queue for this client
 * (max_queued_messages), instead of filling the connection ahead of what this client needs now: a
 * poller's own lease renewals (QoS 0, which the broker sends past that queue) come back in time.
 */
export const RECEIVE_MAXIMUM = 50;

export function busClientOptions(id: string): IClientOptions {
  return { protocolVersion: 5, clientId: busClientId(id), clean: true, queueQoSZero: false, properties: { maximumPacketSize: MAX_PACKET_BYTES, receiveMaximum: RECEIVE_MAXIMUM } };
}

/** Turns Nagle's algorithm off on the client's connection, now and after every reconnect. */
export function sendWithoutDelay(client: MqttClient): MqttClient {
  const noDelay = () => (client.stream as { setNoDelay?: (on: boolean) => void } | undefined)?.setNoDelay?.(true);
  noDelay();
  client.on('connect', noDelay);
  return client;
}

/** MQTT 5's DISCONNECT reason when another connection took the client id. */
const SESSION_TAKEN_OVER = 142;
/** The broker's log of connections, notice level (mosquitto.conf: `log_dest topic`; the ACL lets pollers read it). */
export const BROKER_CONNECTION_LOG = '$SYS/broker/log/N';
/** "New client connected from 127.0.0.1:50514 as thief (p5, c1, k60, u'poller-main')." */
const CONNECTED = /New client connected from (\S+) as (\S+) \(.*u'([^']*)'\)/;

export interface GuardOptions {
  /** The login's user (the bus id), and the client id this process connects with. */
  login: string;
  time: EngineTime;
  log: Logger;
  /** Reconnecting after a takeover: from this pause, doubled each time, up to maxMs. */
  reconnectMs?: number;
  maxReconnectMs?: number;
}

/**
 * Says when the broker ends this connection because another one took its client id, and backs off
 * before reconnecting (doubling up to a limit, back to the usual pause once a connection has lasted a
 * minute); and names every other connection the broker logs under this login. Returns the undo.
 */
export function guardLogin(client: MqttClient, options: GuardOptions): () => void {
  const { login, time, log } = options;
  const usualMs = options.reconnectMs ?? client.options.reconnectPeriod ?? 1000;
  const maxMs = options.maxReconnectMs ?? 30_000;
  const own = () => client.options.clientId;
  const limited = new LogLimiter((message) => log.warn(message), () => time.now());
  let calm: Subscription | null = null;
  const onDisconnect = (packet: { reasonCode?: number | undefined }) => {
    if (packet.reasonCode !== SESSION_TAKEN_OVER) return;
    calm?.unsubscribe();
    const pause = Math.min(maxMs, Math.max(usualMs, (client.options.reconnectPeriod ?? usualMs) * 2));
    client.options.reconnectPeriod = pause;
    log.error(`state bus: the broker ended this connection: another connection took over its client id ${own() ?? '?'} (with the login "${login}": its password is known elsewhere; change it); reconnecting in ${pause / 1000} s`);
  };
  const onConnect = () => {
    calm?.unsubscribe();
    calm = timer(60_000, time.scheduler).subscribe(() => (client.options.reconnectPeriod = usualMs));
    // A login that may not read the broker's log (a panel's) is refused quietly: nothing to watch.
    void client.subscribeAsync(BROKER_CONNECTION_LOG, { qos: 0 }).catch(() => undefined);
  };
  const onMessage = (topic: string, payload: Buffer) => {
    if (topic !== BROKER_CONNECTION_LOG) return;
    const match = CONNECTED.exec(payload.toString('utf8'));
    if (match === null || match[3] !== login || match[2] === own()) return;
    limited.say(`state bus: another connection logged in with this process's broker login "${login}", from ${match[1]} as client ${match[2]}: someone else holds its password (change it with mosquitto_passwd); this connection stays`);
  };
  // Each connection a client id of its own: one that was taken over (its id read from the broker's log
  // by someone with this login) is not the one this process comes back with.
  const onClose = () => {
    client.options.clientId = busClientId(login);
  };
  client.on('close', onClose);
  client.on('disconnect', onDisconnect);
  client.on('connect', onConnect);
  client.on('message', onMessage);
  if (client.connected) onConnect();
  return () => {
    calm?.unsubscribe();
    client.off('close', onClose);
    client.off('disconnect', onDisconnect);
    client.off('connect', onConnect);
    client.off('message', onMessage);
  };
}
