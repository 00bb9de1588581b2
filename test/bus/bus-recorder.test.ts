// The panel's end of a command on virtual time, over an in-memory stand-in for the MQTT client: what it
// refuses to send, the deadline it puts on the poller's clock, and what it says when no answer comes.
import { EventEmitter } from 'node:events';
import type { MqttClient } from 'mqtt';
import { describe, expect, it, vi } from 'vitest';
import { generatedFacility } from '../../src/bench/bus.js';
import { BusRecorder, SharedChecks, type BusCallError } from '../../src/bus/bus-recorder.js';
import { COMMAND_DEADLINE_MS, RECORDER_REQUEST_LIMIT_MS, REPLY_MARGIN_MS } from '../../src/bus/limits.js';
import { PART_MESSAGES, topicsOf, type CommandMessage, type HealthMessage, type LeaseMessage } from '../../src/bus/topics.js';
import { freshnessOf } from '../../src/engine/recorder-state.js';
import { keptLog } from '../support/facility.js';
import { VirtualTime } from '../support/virtual-time.js';

const MAIN = topicsOf('main');
const { authority } = generatedFacility('main', ['poller-main'], ['desk-1']);
const poller = authority('poller-main');

/** What a panel's BusRecorder needs of an MqttClient: messages in, publications recorded, an outgoing store. */
class FakeMqtt extends EventEmitter {
  connected = true;
  disconnecting = false;
  readonly published: Array<{ topic: string; payload: Buffer; options: unknown }> = [];
  readonly outgoing: Record<number, { cb: (error?: Error) => void }> = {};
  readonly removed: number[] = [];
  private nextId = 1;
  subscribeAsync = async () => [];
  publishAsync = async (topic: string, payload: Buffer, options: unknown) => void this.published.push({ topic, payload, options });
  publish(topic: string, payload: Buffer, options: unknown, cb: (error?: Error) => void): void {
    this.published.push({ topic, payload, options });
    this.outgoing[this.nextId++] = { cb };
  }
  removeOutgoingMessage(id: number): void {
    this.removed.push(id);
    delete this.outgoing[id];
  }
  /** A message from the poller, signed, arriving now (or as the broker's retained copy). */
  deliver(topic: string, at: number, body: unknown, retain = false): void {
    this.emit('message', topic, poller.seal(topic, at, body), { retain });
  }
}

function panel(time: VirtualTime) {
  const mqtt = new FakeMqtt();
  const log = keptLog();
  const link = new BusRecorder('main', mqtt as unknown as MqttClient, { authority: authority('desk-1'), pollMs: 250, time, log });
  link.start();
  return { mqtt, link, log };
}

const lease = (renewedAt: number): LeaseMessage => ({ recorder: 'main', identity: { url: 'http://10.0.0.5:9000', tokenSha256Prefix: 'aaaaaaaaaaaa' }, holder: 'poller-main', term: 'term-0000000001', epoch: 1, renewedAt, ttlMs: 750 });

/** The poller's clock runs 5 s behind this panel's; messages take 3 to 20 ms to arrive. */
function liveHolder(time: VirtualTime, mqtt: FakeMqtt): void {
  const pollerNow = () => time.now() - 5000;
  mqtt.deliver(MAIN.lease, pollerNow() - 20, lease(pollerNow() - 20));
  mqtt.deliver(MAIN.part('channels'), pollerNow() - 3, { value: [], readAt: pollerNow() - 3, readNumber: 1 });
  mqtt.deliver(MAIN.health, pollerNow() - 3, { online: true, instance: 'instance-0001', pollMs: 250, slowMs: 5000, failures: 0, lastError: null, unreachable: false });
}

const failure = (promise: Promise<unknown>) => promise.then(() => null, (error: BusCallError) => ({ notRun: error.notRun, message: error.message }));

describe("a panel's command", () => {
  it('is not sent, and says so at once, while the panel is disconnected, no lease is known or the recorder is offline', async () => {
    const time = new VirtualTime();
    const { mqtt, link } = panel(time);
    expect(await failure(link.call({ method: 'recStart', args: [0] }))).toEqual({ notRun: true, message: 'not sent: the recorder is offline (nothing read from it yet); PUT /api/channels/0/rec-start on "main" did not run' });
    liveHolder(time, mqtt);
    mqtt.connected = false;
    expect(await failure(link.call({ method: 'recStart', args: [0] }))).toEqual({ notRun: true, message: 'not sent: this panel is not connected to the state bus; PUT /api/channels/0/rec-start on "main" did not run' });
    mqtt.connected = true;
    // No renewal for the lease's TTL: the poller is gone.
    time.advanceTo(time.now() + 750);
    expect(await failure(link.call({ method: 'recStart', args: [0] }))).toEqual({ notRun: true, message: expect.stringMatching(/^not sent: (no poller holds the lease of "main"|the recorder is offline)/) });
    expect(mqtt.published.filter((p) => p.topic.startsWith(MAIN.cmd('')))).toEqual([]);
  });

  it("carries its lease term and a deadline on the poller's clock, and without an answer says when it could last have started", async () => {
    const time = new VirtualTime();
    const { mqtt, link, log } = panel(time);
    liveHolder(time, mqtt);
    const sentAt = time.now();
    const result = failure(link.call({ method: 'recStart', args: [3] }));
    const [sent] = mqtt.published.filter((p) => p.topic === MAIN.cmd('desk-1'));
    const command = (JSON.parse(sent?.payload.toString() ?? '{}') as { body: CommandMessage }).body;
    // The offset is the lowest arrival minus sending time seen: 5000 ms and 3 ms of transit.
    expect(command).toMatchObject({ term: 'term-0000000001', sentAt: sentAt - 5003, deadline: sentAt - 5003 + COMMAND_DEADLINE_MS, call: { method: 'recStart', args: [3] } });
    expect(sent?.options).toMatchObject({ qos: 1, properties: { messageExpiryInterval: COMMAND_DEADLINE_MS / 1000 } });
    expect(log.lines.at(-1)).toMatch(/^recdeck\/main: sent PUT \/api\/channels\/3\/rec-start on "main" \(command [0-9a-f-]{36}, term term-000, may start until \d\d:\d\d:\d\d\.\d\d\d\)$/);
    // A retained reply, or one signed by anybody but the holder, is no answer.
    mqtt.emit('message', MAIN.reply('desk-1'), poller.seal(MAIN.reply('desk-1'), 0, { id: command.id, ok: false, sent: true, error: 'Disk full' }), { retain: true });
    mqtt.emit('message', MAIN.reply('desk-1'), authority('desk-1').seal(MAIN.reply('desk-1'), 0, { id: command.id, ok: false, sent: true, error: 'Disk full' }), { retain: false });
    const lastStart = command.deadline + 5003 + RECORDER_REQUEST_LIMIT_MS;
    time.advanceTo(lastStart + REPLY_MARGIN_MS - 1);
    for (let renewal = 1; renewal < 40; renewal++) mqtt.deliver(MAIN.lease, command.sentAt + renewal * 100, lease(command.sentAt + renewal * 100));
    time.advanceTo(lastStart + REPLY_MARGIN_MS);
    const at = new Date(lastStart);
    const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}:${String(at.getSeconds()).padStart(2, '0')}.${String(at.getMilliseconds()).padStart(3, '0')}`;
    expect(await result).toEqual({ notRun: false, message: `no answer by its deadline: it did not start after ${clock}; check the state (PUT /api/channels/3/rec-start on "main")` });
    // Given up: taken out of the client's store, so no reconnect sends it again.
    expect(mqtt.removed).toEqual([1]);
  });

  it("reports the poller's refusal as not run, and the recorder's own word as failed", async () => {
    const time = new VirtualTime();
    const { mqtt, link } = panel(time);
    liveHolder(time, mqtt);
    const answer = (body: (id: string) => unknown) => {
      const [sent] = mqtt.published.filter((p) => p.topic === MAIN.cmd('desk-1')).slice(-1);
      const { id } = (JSON.parse(sent?.payload.toString() ?? '{}') as { body: CommandMessage }).body;
      mqtt.deliver(MAIN.reply('desk-1'), time.now() - 5000, body(id));
    };
    const refused = failure(link.call({ method: 'recStop', args: [0] }));
    answer((id) => ({ id, ok: false, sent: false, error: '"poller-main" refused it: it was sent under another poller\'s lease term (the poller changed since)' }));
    expect(await refused).toEqual({ notRun: true, message: expect.stringMatching(/refused it: it was sent under another poller's lease term .*; PUT \/api\/channels\/0\/rec-stop on "main" did not run$/) });
    const failed = link.call({ method: 'recStop', args: [0] }).catch((error: BusCallError) => error);
    answer((id) => ({ id, ok: false, sent: true, error: 'PUT /api/channels/0/rec-stop failed (status 409)', serviceMessage: 'not recording' }));
    expect(await failed).toMatchObject({ notRun: false, serviceMessage: 'not recording' });
  });

  it("goes under a fresh poller's lease of a lower epoch once the lease it followed has expired, and not before", async () => {
    const time = new VirtualTime();
    const { mqtt, link } = panel(time);
    const termOfLastCommand = () => {
      const [sent] = mqtt.published.filter((p) => p.topic === MAIN.cmd('desk-1')).slice(-1);
      return (JSON.parse(sent?.payload.toString() ?? '{}') as { body: CommandMessage }).body.term;
    };
    const pollerNow = () => time.now() - 5000;
    const old = { ...lease(pollerNow()), term: 'term-9999999999', epoch: 3 };
    mqtt.deliver(MAIN.lease, pollerNow(), old);
    mqtt.deliver(MAIN.part('channels'), pollerNow(), { value: [], readAt: pollerNow(), readNumber: 1 });
    mqtt.deliver(MAIN.health, pollerNow(), { online: true, instance: 'instance-0001', pollMs: 250, slowMs: 5000, failures: 0, lastError: null, unreachable: false });
    // A fresh poller that never saw epoch 3 (a forged retained lease hid it from it) claims epoch 1.
    const fresh = () => ({ ...lease(pollerNow()), term: 'term-0000000001', epoch: 1 });
    mqtt.deliver(MAIN.lease, pollerNow(), fresh());
    void link.call({ method: 'recStart', args: [0] }).catch(() => undefined);
    expect(termOfLastCommand()).toBe('term-9999999999');
    time.advanceTo(time.now() + 750);
    mqtt.deliver(MAIN.lease, pollerNow(), fresh());
    mqtt.deliver(MAIN.health, pollerNow(), { online: true, instance: 'instance-0002', pollMs: 250, slowMs: 5000, failures: 0, lastError: null, unreachable: false });
    void link.call({ method: 'recStart', args: [0] }).catch(() => undefined);
    expect(termOfLastCommand()).toBe('term-0000000001');
  });
});

describe("a panel's view of the recorder's health", () => {
  const health = (failures: number, lastError: string | null = null): HealthMessage => ({ online: true, instance: 'instance-0001', pollMs: 250, slowMs: 5000, failures, lastError, unreachable: lastError !== null });

  it('takes lastGoodAt from the parts it holds (the oldest state poll), never from the health, which says how the recorder answers', () => {
    const time = new VirtualTime();
    const { mqtt, link, log } = panel(time);
    const pollerNow = () => time.now() - 5000;
    mqtt.deliver(MAIN.lease, pollerNow(), lease(pollerNow()));
    mqtt.deliver(MAIN.health, pollerNow(), health(0));
    expect(link.state.lastGoodAt).toBeNull();
    mqtt.deliver(MAIN.part('channels'), pollerNow(), { value: [], readAt: pollerNow() - 40, readNumber: 1 });
    mqtt.deliver(MAIN.part('sync'), pollerNow(), { value: null, readAt: pollerNow() - 30, readNumber: 1 });
    // One state poll never read: no complete good poll yet.
    expect(link.state.lastGoodAt).toBeNull();
    mqtt.deliver(MAIN.part('dialog'), pollerNow(), { value: null, readAt: pollerNow() - 20, readNumber: 1 });
    expect(link.state.lastGoodAt).toBe(pollerNow() - 40);
    // Each new read moves it to the oldest of the three, as the poller's own state has it; a slow part does not.
    time.advance(100);
    mqtt.deliver(MAIN.part('channels'), pollerNow(), { value: [], readAt: pollerNow() - 5, readNumber: 2 });
    expect(link.state.lastGoodAt).toBe(pollerNow() - 100 - 30);
    mqtt.deliver(MAIN.part('sources'), pollerNow(), { value: [], readAt: pollerNow(), readNumber: 1 });
    expect(link.state.lastGoodAt).toBe(pollerNow() - 100 - 30);
    // A health that changes nothing of it, and one with failures: they move what it says of the recorder only.
    mqtt.deliver(MAIN.health, pollerNow(), health(2, 'GET /api/sync failed (status 500)'));
    expect(link.state).toMatchObject({ lastGoodAt: pollerNow() - 100 - 30, failures: 2, lastError: 'GET /api/sync failed (status 500)' });
    // The old form, with a lastGoodAt of its own, is refused by name, and changes nothing.
    mqtt.deliver(MAIN.health, pollerNow() + 1, { ...health(0), lastGoodAt: pollerNow() });
    expect(link.state.failures).toBe(2);
    expect(log.lines.at(-1)).toMatch(/^recdeck\/main\/health: .*lastGoodAt/);
  });

  it('is live on parts and lease renewals with no new health for many polls, stale once the parts stop, and offline once the poller is gone', () => {
    const time = new VirtualTime();
    const { mqtt, link } = panel(time);
    const pollerNow = () => time.now() - 5000;
    mqtt.deliver(MAIN.health, pollerNow(), health(0), true);
    for (let poll = 0; poll < 40; poll++) {
      mqtt.deliver(MAIN.lease, pollerNow(), lease(pollerNow()));
      for (const part of ['channels', 'sync', 'dialog'] as const) mqtt.deliver(MAIN.part(part), pollerNow(), { value: part === 'channels' ? [] : null, readAt: pollerNow() - 2, readNumber: poll + 1 });
      expect(freshnessOf(link.state, pollerNow())).toBe('live');
      time.advance(250);
    }
    // Renewals go on but no read comes (a stalled poll): stale after three polls, with the parts' age.
    for (let poll = 0; poll < 4; poll++) {
      mqtt.deliver(MAIN.lease, pollerNow(), lease(pollerNow()));
      time.advance(250);
    }
    expect(freshnessOf(link.state, pollerNow())).toBe('stale');
    // No renewal either: gone, then offline.
    time.advance(2000);
    expect(freshnessOf(link.state, pollerNow())).toBe('offline');
    // Back: the retained health's word holds again (no failures), and new reads are live.
    mqtt.deliver(MAIN.lease, pollerNow(), lease(pollerNow()));
    for (const part of ['channels', 'sync', 'dialog'] as const) mqtt.deliver(MAIN.part(part), pollerNow(), { value: part === 'channels' ? [] : null, readAt: pollerNow(), readNumber: 100 });
    expect(link.state).toMatchObject({ failures: 0, unreachable: false, lastError: null });
    expect(freshnessOf(link.state, pollerNow())).toBe('live');
  });
});

describe('several links in one process (panels run together, as the facility bench runs them)', () => {
  /** Links of desk-1, desk-2 (our facility) and desk-3 (another, whose "poller-main" has another key), each with `checks`. */
  function links(checks: (i: number) => SharedChecks | undefined) {
    const time = new VirtualTime();
    const ours = generatedFacility('main', ['poller-main'], ['desk-1', 'desk-2']);
    const theirs = generatedFacility('main', ['poller-main'], ['desk-3']);
    const authorities = [ours.authority('desk-1'), ours.authority('desk-2'), theirs.authority('desk-3')];
    const opens = authorities.map((a) => vi.spyOn(a, 'open'));
    const made = authorities.map((a, i) => {
      const mqtt = new FakeMqtt();
      const sharedChecks = checks(i);
      const link = new BusRecorder('main', mqtt as unknown as MqttClient, { authority: a, pollMs: 250, time, log: keptLog(), ...(sharedChecks === undefined ? {} : { sharedChecks }) });
      link.start();
      return { mqtt, link };
    });
    const signer = ours.authority('poller-main');
    const read = (n: number) => signer.seal(MAIN.part('channels'), n, { value: [], readAt: n, readNumber: n });
    const deliver = (i: number, payload: Buffer) => made[i]?.mqtt.emit('message', MAIN.part('channels'), Buffer.from(payload), { retain: false });
    return { opens, links: made, read, deliver, checks: () => opens.map((open) => open.mock.calls.length), readNumbers: () => made.map(({ link }) => link.state.readNumber.channels) };
  }

  it("check a state message's signature once for all given the same SharedChecks, and again for other bytes or where the facility has another key for its sender", () => {
    const shared = new SharedChecks();
    const f = links(() => shared);
    const first = f.read(1);
    for (const i of [0, 1, 2]) f.deliver(i, first);
    expect(f.checks()).toEqual([1, 0, 1]);
    expect(f.readNumbers()).toEqual([1, 1, 0]);

    const second = f.read(2);
    for (const i of [2, 1, 0]) f.deliver(i, second);
    // desk-3 checked it first (and refused it: not kept), so desk-2 checked it, and desk-1 took desk-2's check.
    expect(f.checks()).toEqual([1, 1, 2]);
    expect(f.readNumbers()).toEqual([2, 2, 0]);

    // The same size with one byte changed is checked again, and refused.
    const altered = Buffer.from(f.read(3).toString().replace('"readNumber":3', '"readNumber":4'));
    f.deliver(0, altered);
    expect(f.checks()[0]).toBe(2);
    expect(f.readNumbers()[0]).toBe(2);
  });

  it('take the checks of a backlog one panel read ahead of the others, and parse each body once for all', () => {
    const shared = new SharedChecks();
    const f = links((i) => (i < 2 ? shared : undefined));
    const parses = vi.spyOn(PART_MESSAGES.channels, 'safeParse');
    // A busy process reads one connection's backlog in one go: desk-1 reads 8 reads of a topic before desk-2 reads the first.
    const backlog = Array.from({ length: 8 }, (_, n) => f.read(n + 1));
    for (const payload of backlog) f.deliver(0, payload);
    for (const payload of backlog) f.deliver(1, payload);
    expect(f.checks()).toEqual([8, 0, 0]);
    expect(parses).toHaveBeenCalledTimes(8);
    expect(f.readNumbers()).toEqual([8, 8, 0]);
    // The value is one object for both (state values are never changed, only replaced).
    expect(f.links[1]?.link.state.channels).toBe(f.links[0]?.link.state.channels);
    parses.mockRestore();
  });

  it('share nothing without SharedChecks, or across two of them: a panel alone checks every message itself', () => {
    const a = new SharedChecks();
    const b = new SharedChecks();
    const f = links((i) => (i === 0 ? a : i === 1 ? b : undefined));
    const first = f.read(1);
    f.deliver(0, first);
    f.deliver(1, first);
    // The same message again on a link that keeps no checks (a redelivery): checked again, and not newer, so not believed twice.
    f.deliver(0, first);
    expect(f.checks()).toEqual([1, 1, 0]);
    expect(f.readNumbers()).toEqual([1, 1, 0]);
    const alone = links(() => undefined);
    alone.deliver(0, alone.read(1));
    alone.deliver(0, alone.read(1));
    alone.deliver(1, alone.read(1));
    expect(alone.checks()).toEqual([2, 1, 0]);
  });

  it("take back a payload this process sealed itself without checking its signature again (a poller's own echoes); any other bytes are checked", () => {
    const shared = new SharedChecks();
    const me = authority('poller-main');
    const topic = MAIN.part('channels');
    const payload = me.seal(topic, 1000, { note: 'a state message' });
    shared.sealedHere(topic, payload);
    const checks = vi.spyOn(me, 'open');
    expect(shared.open(me, topic, payload, 65_536)).toEqual({ ok: true, message: { from: 'poller-main', at: 1000, body: { note: 'a state message' } } });
    expect(checks).not.toHaveBeenCalled();
    // The same envelope with another time (its signature no longer fits): checked, and refused.
    const altered = Buffer.from(payload.toString().replace('"at":1000,', '"at":1001,'));
    expect(shared.open(me, topic, altered, 65_536)).toMatchObject({ ok: false, error: expect.stringContaining('signature') });
    // Its own bytes on another topic (a signature is over the topic too): checked, and refused.
    expect(shared.open(me, MAIN.health, payload, 65_536).ok).toBe(false);
    expect(checks).toHaveBeenCalledTimes(2);
    // Its size is checked where it is read, as any message's.
    expect(shared.open(me, topic, payload, 64)).toMatchObject({ ok: false, error: expect.stringContaining('at most 64') });
    checks.mockRestore();
  });
});
