// Issue 34, the lease never starves: how `recdeck run` connects a poller (src/cli/bus-setup.ts), on a
// real Mosquitto. Its main connection reads at a pace (connection.ts: connectAtPace), so a flood the
// broker routed to it is handed to mqtt.js a piece a turn, with the timers between; its lease travels
// on a connection of its own (BusPoller's leaseConnection), and is renewed only while the main one is
// up. (The flood itself, against `recdeck run` as deployed: insiders.test.ts.)
import mqtt from 'mqtt';
import { interval } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/api/clock.js';
import { connectAtPace, READ_PIECE_BYTES } from '../../src/bus/connection.js';
import { channelState, clientFor, facilityFor, isHolding, until } from '../support/facility.js';
import { startBroker } from '../support/mosquitto.js';

const POLL_MS = 250;
const FLOOD = 3000;
const PAYLOAD = Buffer.alloc(400, 'x');

describe('the lease path', () => {
  it('a connection read at a pace hands mqtt.js at most a piece of what arrived in each turn, whatever is waiting', async (test) => {
    const broker = await startBroker();
    test.onTestFinished(() => broker.close());
    const paced = await connectAtPace(mqtt.connect, broker.url, { protocolVersion: 5, reconnectPeriod: 0 }, realClock);
    test.onTestFinished(() => paced.endAsync(true));
    // A turn of the event loop is a tick of this timer: how many messages arrived in each.
    let turn = 0;
    const turns = interval(0, realClock.scheduler).subscribe(() => (turn += 1));
    test.onTestFinished(() => turns.unsubscribe());
    const perTurn = new Map<number, number>();
    paced.on('message', () => perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1));
    await paced.subscribeAsync('flood', { qos: 0 });
    const sender = await mqtt.connectAsync(broker.url, { protocolVersion: 5, reconnectPeriod: 0 });
    test.onTestFinished(() => sender.endAsync(true));
    await Promise.all(Array.from({ length: FLOOD }, () => sender.publishAsync('flood', PAYLOAD, { qos: 1 })));
    await until(() => [...perTurn.values()].reduce((a, b) => a + b, 0) === FLOOD, 'every message of the flood', 30_000);
    // A turn gets the last piece of one read and the first of the next at most (a packet is 400 bytes
    // and a few of header, two of them may be cut at the pieces' ends). Unpaced, a read of 64 KB (150
    // messages) is handed over at once, and reads that waited with it in the same turn.
    const perPiece = Math.floor(READ_PIECE_BYTES / PAYLOAD.length) + 2;
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(2 * perPiece);
    expect(perTurn.size).toBeGreaterThanOrEqual(FLOOD / (2 * perPiece));
  }, 60_000);

  it('a poller renews its lease on its own connection only while its main connection is up: without it, the standby takes over', async (test) => {
    const rig = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a', 'poller-b'], poller: () => ({ leaseConnection: true }) });
    const [first, second] = rig.pollers;
    if (first === undefined || second === undefined) throw new Error('two pollers');
    const watcher = await clientFor(test, rig);
    const renewals: string[] = [];
    watcher.on('message', (_topic, payload) => renewals.push((JSON.parse(payload.toString()) as { from: string }).from));
    await watcher.subscribeAsync('recdeck/main/lease', { qos: 1 });
    // Whichever claimed first (poller-a, unless another file's load held it at its start): `a` holds, `b` stands by.
    await until(() => isHolding(first) || isHolding(second), 'a poller holding the lease', 30_000);
    const [a, b] = isHolding(first) ? [first, second] : [second, first];
    await until(() => renewals.filter((from) => from === a.poller.id).length >= 3, "the holder's renewals");
    expect(isHolding(a)).toBe(true);
    // Only the main connection goes: the lease's stays up, and renewing on it would keep a poller that
    // can neither publish what it reads nor hear commands as the holder.
    a.mqtt.options.reconnectPeriod = 0;
    a.mqtt.stream.destroy();
    expect(a.leaseMqtt?.connected).toBe(true);
    await until(() => isHolding(b), 'the standby holding the lease', 10_000);
    expect(isHolding(a)).toBe(false);
    expect(a.log.lines.some((line) => line.includes('lost the lease: none of its renewals came back'))).toBe(true);
    await until(() => rig.panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'the panels live from the standby', 10_000);
  }, 60_000);
});
