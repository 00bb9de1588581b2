// How every recdeck client connects to the state bus: MQTT 5 (message expiry, the broker's limits in
// CONNACK), a clean session (nothing kept for it while it is away), no message queued while
// disconnected, and the largest packet it takes. And without Nagle's delay: the bus carries small
// messages that someone is waiting for, and a message written while the one before is not yet
// acknowledged would otherwise wait up to 40 ms for that acknowledgement.
//
// Its client id is its bus id plus a random suffix drawn for each connection: the broker ends an older
// connection with the same client id ("session taken over"), whoever makes the new one, so an id
// anyone could name would let anyone who holds (or guesses) any login throw a poller off the bus once a
// second. The broker's ACL ties topics to the login's user (%u), never to the client id
// (deploy/mosquitto/), and no bus login may read anything that names a client id.
//
// The broker's own log of connections ($SYS/broker/log/#) names every client id, so it is read only by
// a monitor login of its own (--mqtt-monitor-user, a second connection, a password kept as the key is):
// a poller names through it every other connection made with its login (someone holds its password)
// and learns for certain when its own id was taken over. Without the log, a takeover is told as well as
// the broker lets it be: MQTT 5 reason 142 when the broker says it; Mosquitto 2.0.11 says nothing and
// just closes the connection, so a close with no DISCONNECT and no network error, followed by a
// reconnect the broker takes at once (it was up all along), is said as a takeover. Either way the
// next connection has a new id, and the pause before it doubles while it goes on.
import { randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { IClientOptions, MqttClient } from 'mqtt';
import { Subscription, timer } from 'rxjs';
import { messageOf } from '../api/errors.js';
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
 * poller's lease renewals come back (at QoS 1: Mosquitto drops QoS 0 messages to a client with a full queue; bus-poller.ts).
 */
export const RECEIVE_MAXIMUM = 50;

/**
 * reschedulePings off: mqtt.js otherwise restarts its keep-alive timer at every packet it sends (a
 * PUBACK per incoming command included), which was 142 ms of a 3 s flood in the poller's profile; a
 * ping every keep-alive period regardless costs a few bytes.
 */
export function busClientOptions(id: string): IClientOptions {
  return { protocolVersion: 5, clientId: busClientId(id), clean: true, queueQoSZero: false, reschedulePings: false, properties: { maximumPacketSize: MAX_PACKET_BYTES, receiveMaximum: RECEIVE_MAXIMUM } };
}

/**
 * How much of what the broker sent mqtt.js reads in one turn of the event loop (reading at a pace).
 * mqtt.js parses every packet of what its socket delivered, and hands each to its listeners, in one run
 * of process.nextTick callbacks, before any timer or other socket gets a turn: about 70 us a message of
 * its own on this 2-core machine (3,000 400-byte messages: 210 ms of CPU, the timers held 1.3-1.5 s at
 * load 20). A flood already routed to a poller (a thousand messages before its unsubscribe lands) held
 * its lease renewal and the renewal's echo behind it for over a second. Handed over a piece at a time,
 * the same work is done between the timers and the other connections' reads: at most this many bytes
 * (some 40 commands, a few ms) before they get their turn. (Pieces of 64 KB, a whole read of the
 * socket, some 150 commands, lost the lease again at load 24: 1104 ms without a renewal back.)
 */
export const READ_PIECE_BYTES = 16 * 1024;

/** What a socket delivers, passed on at most READ_PIECE_BYTES a turn (the next piece on the scheduler). */
class Pacer extends Transform {
  constructor(private readonly time: EngineTime) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // The first piece at once (a lone message waits for nothing), each further one a turn later.
    const give = (offset: number): void => {
      this.push(chunk.subarray(offset, offset + READ_PIECE_BYTES));
      const next = offset + READ_PIECE_BYTES;
      timer(0, this.time.scheduler).subscribe(() => (next < chunk.length ? give(next) : done()));
    };
    give(0);
  }
}

type StreamBuilder = (client: MqttClient, options?: IClientOptions) => NodeJS.ReadableStream & NodeJS.WritableStream;

/**
 * Makes `client` read at a pace (READ_PIECE_BYTES a turn) on every connection it makes from now on:
 * mqtt.js pipes each new socket into its parser, and that pipe goes through a Pacer. Given a client made
 * with `manualConnect` (connectAtPace), before it connects. (mqtt.js has no option for it: its stream
 * builder is replaced, a property its types call private.)
 */
export function readAtPace(client: MqttClient, time: EngineTime): MqttClient {
  const hooked = client as unknown as { streamBuilder: StreamBuilder };
  const build = hooked.streamBuilder;
  hooked.streamBuilder = (c, options) => {
    const stream = build(c, options);
    const pipe = stream.pipe.bind(stream);
    stream.pipe = <T extends NodeJS.WritableStream>(destination: T, pipeOptions?: { end?: boolean }): T => pipe(new Pacer(time)).pipe(destination, pipeOptions);
    return stream;
  };
  return client;
}

/**
 * mqtt.js's connectAsync for a client that reads at a pace (readAtPace): resolves once connected,
 * rejects (and ends the client) on the first error before that.
 */
export function connectAtPace(connect: (url: string, options: IClientOptions) => MqttClient, url: string, options: IClientOptions, time: EngineTime): Promise<MqttClient> {
  const client = readAtPace(connect(url, { ...options, manualConnect: true }), time);
  return new Promise((resolve, reject) => {
    const settle = (error: Error | null) => {
      client.off('connect', onConnect);
      client.off('error', onError);
      if (error === null) return resolve(client);
      client.end(true);
      reject(error);
    };
    const onConnect = () => settle(null);
    const onError = (error: Error) => settle(error);
    client.on('connect', onConnect);
    client.on('error', onError);
    client.connect();
  });
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
/** The broker's log (mosquitto.conf: `log_dest topic`), every level; only monitor logins may read it (acl). */
export const BROKER_LOG = '$SYS/broker/log/#';
/** "New client connected from 127.0.0.1:50514 as thief (p5, c1, k60, u'poller-main')." */
const CONNECTED = /New client connected from (\S+) as (\S+) \(.*u'([^']*)'\)/;
/** "Client poller-main-0123456789abcdef already connected, closing old connection." */
const TAKEN_OVER = /Client (\S+) already connected, closing old connection/;
/** A connection closed this soon after it was made, again and again, is backed off from as a takeover is. */
const SHORT_LIVED_MS = 60_000;
/** How many of its own past client ids a process recognises in the broker's log. */
const OWN_IDS_KEPT = 8;

export interface GuardOptions {
  /** The login's user (the bus id). */
  login: string;
  time: EngineTime;
  log: Logger;
  /** Reconnecting after a takeover: from this pause, doubled each time, up to maxMs. */
  reconnectMs?: number;
  maxReconnectMs?: number;
}

/** One connection's guard (guardSession): what the broker's log, read elsewhere, tells it. */
export interface SessionGuard {
  /** The client ids this process has connected with, the current one last (a few). */
  ownIds(): readonly string[];
  /** The broker's log says another connection took over `clientId`: said (if one of ours) and backed off from. */
  takenOver(clientId: string): void;
  stop(): void;
}

/**
 * Draws a new client id for every connection, says when the broker ends one because another took its
 * id (reason 142, the broker's log, or a close without a reason followed by a reconnect taken at once),
 * and backs off before reconnecting after one: the pause doubles up to a limit, and is the usual one
 * again once a connection has lasted a minute.
 */
export function guardSession(client: MqttClient, options: GuardOptions): SessionGuard {
  const { login, time, log } = options;
  const usualMs = options.reconnectMs ?? client.options.reconnectPeriod ?? 1000;
  const maxMs = options.maxReconnectMs ?? 30_000;
  const ids: string[] = [];
  const remember = () => {
    const id = client.options.clientId;
    if (id !== undefined && ids.at(-1) !== id) ids.push(id);
    if (ids.length > OWN_IDS_KEPT) ids.shift();
  };
  remember();
  let calm: Subscription | null = null;
  let connectedAt: number | null = client.connected ? time.now() : null;
  /** What explains the end of the current connection: a DISCONNECT's reason, a network error, our own end. */
  let explained = false;
  /** The connection that closed without a reason (its id), until the next connect shows whether the broker was up all along. */
  let unexplained: { id: string; pauseMs: number } | null = null;
  /** A reconnect attempt failed since the last close (the broker was away: a restart, not a takeover). */
  let attemptFailed = false;
  /** Ids whose takeover was said already (by the broker's log or reason 142). */
  const said = new Set<string>();
  const backOff = (): number => {
    calm?.unsubscribe();
    const pause = Math.min(maxMs, Math.max(usualMs, (client.options.reconnectPeriod ?? usualMs) * 2));
    client.options.reconnectPeriod = pause;
    return pause;
  };
  const sayTakenOver = (id: string, how: string, pauseMs: number) => {
    if (said.has(id)) return;
    said.add(id);
    log.error(`state bus: ${how}: another connection took over this process's client id ${id} (someone who can read the broker's log, or its administrator; with the login "${login}" or another); reconnecting under a new id in ${pauseMs / 1000} s, the pause doubling while this goes on`);
  };
  const onDisconnect = (packet: { reasonCode?: number | undefined }) => {
    explained = true;
    if (packet.reasonCode !== SESSION_TAKEN_OVER) return;
    sayTakenOver(client.options.clientId ?? '?', 'the broker ended this connection (reason 142, session taken over)', backOff());
  };
  const onError = () => {
    if (client.connected) explained = true;
    else attemptFailed = true;
  };
  const onConnect = () => {
    remember();
    if (unexplained !== null && !attemptFailed) sayTakenOver(unexplained.id, `the broker ended the connection without a reason (no DISCONNECT, no network error) and took the next one at once, as Mosquitto 2.0 does when a connection is taken over`, unexplained.pauseMs);
    unexplained = null;
    attemptFailed = false;
    explained = false;
    connectedAt = time.now();
    calm?.unsubscribe();
    calm = timer(SHORT_LIVED_MS, time.scheduler).subscribe(() => (client.options.reconnectPeriod = usualMs));
  };
  const onClose = () => {
    const id = client.options.clientId ?? '?';
    if (connectedAt !== null && !explained && !client.disconnecting && !said.has(id)) {
      // Closed by the broker for no reason it gave: a takeover, unless the broker is gone (the next attempts fail).
      const shortLived = time.now() - connectedAt < SHORT_LIVED_MS;
      unexplained = { id, pauseMs: shortLived ? backOff() : (client.options.reconnectPeriod ?? usualMs) };
    }
    connectedAt = null;
    // Each connection a client id of its own: one that was taken over is not the one this process comes back with.
    client.options.clientId = busClientId(login);
  };
  client.on('close', onClose);
  client.on('disconnect', onDisconnect);
  client.on('error', onError);
  client.on('connect', onConnect);
  return {
    ownIds: () => ids,
    takenOver: (id) => {
      if (!ids.includes(id)) return;
      sayTakenOver(id, "the broker's log says so", backOff());
    },
    stop: () => {
      calm?.unsubscribe();
      client.off('close', onClose);
      client.off('disconnect', onDisconnect);
      client.off('error', onError);
      client.off('connect', onConnect);
    },
  };
}

export interface WatchOptions {
  /** The logins whose other connections are named: this process's bus login and the monitor's own. */
  logins: readonly string[];
  /** The guards of this process's connections: their own ids are not named, and their takeovers are told to them. */
  guards: readonly SessionGuard[];
  time: EngineTime;
  log: Logger;
}

/**
 * Reads the broker's log on a monitor connection (its login may read $SYS/broker/log/# and nothing of
 * the bus): names every connection made with one of `logins` that is not this process's own, and tells
 * each guard when the broker says its connection was taken over. Returns the undo.
 */
export function watchBrokerLog(monitor: MqttClient, options: WatchOptions): () => void {
  const { logins, guards, time, log } = options;
  const limited = new LogLimiter((message) => log.warn(message), () => time.now());
  const own = (id: string) => id === monitor.options.clientId || guards.some((guard) => guard.ownIds().includes(id));
  const onConnect = () => {
    // Refused (SUBACK 0x87) when the acl does not give this login the log: said, as nothing is watched then.
    monitor.subscribeAsync(BROKER_LOG, { qos: 0 }).catch((error: unknown) =>
      limited.say(`state bus: the monitor login "${monitor.options.username ?? '?'}" cannot read the broker's log ${BROKER_LOG} (${messageOf(error)}): other connections made with "${logins[0] ?? '?'}" are not named, nor takeovers confirmed; see deploy/mosquitto/acl`),
    );
  };
  const onMessage = (topic: string, payload: Buffer) => {
    if (!topic.startsWith('$SYS/broker/log/')) return;
    const line = payload.toString('utf8');
    const taken = TAKEN_OVER.exec(line);
    if (taken?.[1] !== undefined) for (const guard of guards) guard.takenOver(taken[1]);
    const match = CONNECTED.exec(line);
    if (match === null || match[2] === undefined || match[3] === undefined || !logins.includes(match[3]) || own(match[2])) return;
    limited.say(`state bus: another connection logged in with this process's broker login "${match[3]}", from ${match[1]} as client ${match[2]}: someone else holds its password (change it with mosquitto_passwd); this connection stays`);
  };
  monitor.on('connect', onConnect);
  monitor.on('message', onMessage);
  if (monitor.connected) onConnect();
  return () => {
    monitor.off('connect', onConnect);
    monitor.off('message', onMessage);
  };
}
