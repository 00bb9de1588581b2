// Issue 31: a bus connection read at a pace (connection.ts: readAtPace, a Transform between mqtt.js's
// socket and its parser that hands on READ_PIECE_BYTES a turn) must hand mqtt.js's parser exactly the
// bytes the broker sent, in order: a piece missing, given twice, out of order or given to another
// connection's parser corrupts the bus (a parse error, a command misread or dropped). On the real
// Mosquitto, with messages of every size, so that the pieces' ends cut packets anywhere (in a header, in
// a remaining length, inside a payload) and a packet may span several pieces; each message is checked
// byte for byte. And across a reconnect with pieces of the old connection still held: on virtual time,
// so that they are let go only after the new connection is up and carrying a burst of its own.
import type { Duplex } from 'node:stream';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realTime } from '../../src/engine/engine-time.js';
import { connectAtPace, READ_PIECE_BYTES } from '../../src/bus/connection.js';
import { startBroker, startLinkProxy, type RestartableBroker } from '../support/mosquitto.js';
import { until, WAIT_MS } from '../support/until.js';
import { VirtualTime } from '../support/virtual-time.js';

const TOPIC = 'flood';

/**
 * Message `seq` of burst `burst`: its burst and number, then bytes that depend on both and on their
 * place. Sizes from 1 byte up, and every 37th over a piece, so that the packets' ends fall everywhere
 * across the pieces.
 */
function message(burst: number, seq: number, least = 0): Buffer {
  const size = seq % 37 === 0 ? READ_PIECE_BYTES + 1 + seq : least + 5 + ((seq * 7919 + burst * 104_729) % 5000);
  const bytes = Buffer.alloc(size);
  bytes.writeUInt8(burst, 0);
  bytes.writeUInt32BE(seq, 1);
  for (let i = 5; i < size; i++) bytes[i] = (seq * 31 + burst * 7 + i) & 0xff;
  return bytes;
}

/**
 * mqtt.connect, with what each connection's pacer hands on counted into `given` (one entry a connection):
 * readAtPace pipes each new socket into its pacer, and here that pipe is watched.
 */
function countingPacers(given: number[]): (url: string, options: IClientOptions) => MqttClient {
  return (url, options) => {
    const client = mqtt.connect(url, options);
    const hooked = client as unknown as { streamBuilder: (c: MqttClient, o?: IClientOptions) => Duplex };
    const build = hooked.streamBuilder;
    hooked.streamBuilder = (c, o) => {
      const socket = build(c, o);
      const pipe = socket.pipe.bind(socket);
      const connection = given.push(0) - 1;
      socket.pipe = <T extends NodeJS.WritableStream>(pacer: T, pipeOptions?: { end?: boolean }): T => {
        (pacer as unknown as Duplex).on('data', (piece: Buffer) => (given[connection] = (given[connection] ?? 0) + piece.length));
        return pipe(pacer, pipeOptions);
      };
      return socket;
    };
    return client;
  };
}

interface Received {
  burst: number;
  seq: number;
  /** The payload is byte for byte the message sent under its burst and number. */
  whole: boolean;
}

/** What a client is handed, in order, and the errors that are not a socket's (a socket's have a `code`): the parser's. */
function record(client: MqttClient, least = 0): { received: Received[]; parseErrors: Error[] } {
  const received: Received[] = [];
  const parseErrors: Error[] = [];
  client.on('message', (_topic, payload: Buffer) => {
    const burst = payload.readUInt8(0);
    const seq = payload.readUInt32BE(1);
    received.push({ burst, seq, whole: payload.equals(message(burst, seq, least)) });
  });
  client.on('error', (error: Error & { code?: unknown }) => {
    if (error.code === undefined) parseErrors.push(error);
  });
  return { received, parseErrors };
}

/**
 * Awaits `promise` while turning virtual time (the pacer's next pieces), one turn of it per turn of the
 * event loop (the sockets' reads between), bounded in wall time.
 */
async function turning<T>(time: VirtualTime, promise: Promise<T>, what: string): Promise<T> {
  let settled = false;
  const result = promise.finally(() => (settled = true));
  const deadline = Date.now() + WAIT_MS;
  while (!settled) {
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    time.turn();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return result;
}

const seqsOf = (received: readonly Received[], burst: number) => received.filter((r) => r.burst === burst).map((r) => r.seq);
const upTo = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('a connection read at a pace', () => {
  let broker: RestartableBroker;
  let sender: MqttClient;
  beforeAll(async () => {
    broker = await startBroker();
    sender = await mqtt.connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 });
  });
  afterAll(async () => {
    await sender.endAsync(true);
    await broker.close();
  });
  const publish = (burst: number, count: number, least = 0) => Promise.all(upTo(count).map((seq) => sender.publishAsync(TOPIC, message(burst, seq, least), { qos: 1 })));

  it('hands mqtt.js every message of a flood once, whole and in order, whatever the pieces cut', async (test) => {
    const paced = await connectAtPace(mqtt.connect, broker.url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 }, realTime);
    test.onTestFinished(() => paced.endAsync(true));
    const { received, parseErrors } = record(paced);
    await paced.subscribeAsync(TOPIC, { qos: 1 });
    // Fewer than the broker queues for a subscriber (Mosquitto's max_queued_messages, 1000): it drops the rest.
    const COUNT = 900;
    await publish(1, COUNT);
    await until(() => received.length >= COUNT || parseErrors.length > 0, 'the whole flood');
    expect(parseErrors).toEqual([]);
    expect(seqsOf(received, 1)).toEqual(upTo(COUNT));
    expect(received.every((r) => r.whole)).toBe(true);
  }, 60_000);

  it('across a reconnect, pieces of the old connection let go late reach no parser but the old one: the new connection loses, repeats and corrupts nothing', async (test) => {
    const time = new VirtualTime();
    const link = await startLinkProxy(broker.port);
    test.onTestFinished(() => link.close());
    const given: number[] = [];
    const paced = await connectAtPace(countingPacers(given), link.url, { protocolVersion: 5, reconnectPeriod: 20, connectTimeout: 5000 }, time);
    test.onTestFinished(() => paced.endAsync(true));
    let connects = 1;
    paced.on('connect', () => (connects += 1));
    const LEAST = 4096;
    const { received, parseErrors } = record(paced, LEAST);
    await turning(time, paced.subscribeAsync(TOPIC, { qos: 1 }), 'the subscription');
    // From here virtual time stands still: the pacer hands on nothing more of what the socket delivers
    // (the read it is in finishes a turn later), and the socket reads on until the pacer's buffer is full.
    const socket = paced.stream as unknown as { bytesRead: number };
    const subscribed = socket.bytesRead;
    await publish(1, 60, LEAST);
    await until(() => socket.bytesRead > subscribed + READ_PIECE_BYTES, 'the socket to deliver more than a piece the pacer holds');
    // The broker's end of the connection drops. The client sees it when its socket reads again, once the
    // pacer has taken in what the socket holds (turns), and virtual time stands still again from then on:
    // the old pacer holds what the old socket read while the client reconnects (a new socket, a new
    // pacer, a new parser).
    link.cut();
    await turning(time, new Promise<void>((resolve) => paced.once('close', () => resolve())), 'the client to see the connection drop');
    const beforeCut = seqsOf(received, 1);
    await until(() => connects === 2, 'the client to reconnect');
    const oldGivenAtReconnect = given[0];
    // Each turn from here lets go a piece of the old pacer (to the old parser) and one of the new pacer's.
    await turning(time, paced.subscribeAsync(TOPIC, { qos: 1 }), 'the subscription again');
    const COUNT = 200;
    await turning(time, publish(2, COUNT, LEAST).then(() => until(() => seqsOf(received, 2).length >= COUNT || parseErrors.length > 0, 'the burst after the reconnect')), 'the burst after the reconnect');
    // What this is about happened: the old pacer let go pieces after the new connection was up.
    expect(given).toHaveLength(2);
    expect(given[0]).toBeGreaterThan(oldGivenAtReconnect ?? Infinity);
    expect(parseErrors).toEqual([]);
    expect(received.every((r) => r.whole)).toBe(true);
    // The new connection: every message once, in order.
    expect(seqsOf(received, 2)).toEqual(upTo(COUNT));
    // The old one's late pieces were parsed by its own parser and dropped with it (mqtt.js hands on no
    // packet of a superseded connection, nor acknowledges one on the new): nothing of burst 1 after the cut.
    expect(seqsOf(received, 1)).toEqual(beforeCut);
  }, 60_000);
});
