// Issue 31: nothing a poller took is lost: every command it received ends in an answer or an audit
// line (or both), and what it cannot tell a panel is at least in its log. A command sent under a lease
// term this poller claimed is this poller's to answer, whatever happened to its lease since; only this
// poller could ever run it (a term is drawn at random for each claim), so its refusal cannot race
// another poller's answer that it ran. Before: only the last term it held was remembered (`heldTerm`), and a command under an earlier
// one, read while it held no lease, was dropped with no answer and no audit line: what a poller's link
// frozen past its lease, a claim, a lost claim and a thaw delivers. On virtual time, the real BusPoller
// over the real simulator, an in-memory broker at the transport (test/support/fake-broker.ts), the
// other poller's leases and the panel's commands signed by the test (their terms chosen by it).
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { generatedFacility } from '../../src/bench/bus.js';
import { freePort } from '../../src/bench/broker.js';
import { BusPoller, recorderIdentity } from '../../src/bus/bus-poller.js';
import { topicsOf, type CommandMessage, type LeaseMessage } from '../../src/bus/topics.js';
import type { CommandRecord } from '../../src/engine/log.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { keptLog } from '../support/facility.js';
import { FakeBroker, FakeClient } from '../support/fake-broker.js';
import { RequestCounter, VirtualTime, advanceWithIo, untilWithIo } from '../support/virtual-time.js';

const TOKEN = 'perm:11111111-2222-4333-8444-555555555555';
const POLL_MS = 250;
const TTL_MS = 3 * POLL_MS;
const MAIN = topicsOf('main');

let sim: RunningSimulator | undefined;
let client: RecorderClient | undefined;
const stops: Array<() => void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await client?.close();
  await sim?.close();
  sim = undefined;
  client = undefined;
});

async function facility() {
  const time = new VirtualTime();
  sim = await startSimulator({ port: await freePort(), token: TOKEN, tickMs: 0, clock: time });
  client = new RecorderClient({ clock: time, url: sim.url, token: TOKEN });
  const requests = new RequestCounter(client);
  const broker = new FakeBroker(time);
  const members = generatedFacility('main', ['poller-main', 'poller-b'], ['desk-1']);
  const identity = recorderIdentity(sim.url, TOKEN);
  const audit: CommandRecord[] = [];
  const log = keptLog();
  const polling = pollingLink(new RecorderPoller('main', client, { pollMs: POLL_MS, time }));
  const connection = new FakeClient(broker);
  const poller = new BusPoller('main', polling, connection as unknown as MqttClient, { authority: members.authority('poller-main'), identity, pollMs: POLL_MS, ttlMs: TTL_MS, instance: 'instance-0001', time, log, audit: (record) => audit.push(record) });
  poller.start();
  stops.push(() => poller.stop());
  let holding = false;
  poller.holding$.subscribe((held) => (holding = held));
  const until = (check: () => boolean, what: string) => untilWithIo(time, requests.quiet, check, what, 5000);
  const leases = () => broker.log.filter((p) => p.topic === MAIN.lease).map((p) => p.body as LeaseMessage);
  /** poller-main's lease now (its last renewal or claim). */
  const own = () => leases().filter((l) => l.holder === 'poller-main').at(-1) as LeaseMessage;
  /** poller-b takes the lease over (a renewal of a new epoch, as its claim that came back would be). */
  const takenOverBy = async (term: string) => {
    const lease: LeaseMessage = { recorder: 'main', identity, holder: 'poller-b', term, epoch: Math.max(...leases().map((l) => l.epoch)) + 1, renewedAt: time.now(), ttlMs: TTL_MS };
    broker.publish(MAIN.lease, members.authority('poller-b').seal(MAIN.lease, time.now(), lease), false);
    await until(() => !holding, `poller-main giving the lease up to poller-b (${term})`);
  };
  /** A command desk-1 signs under `term`, with a deadline `deadlineMs` ahead (a second unless told). */
  const signed = (id: string, term: string, deadlineMs = 1000) => {
    const body: CommandMessage = { id, term, sentAt: time.now(), deadline: time.now() + deadlineMs, call: { method: 'listChannels', args: [] } };
    return members.authority('desk-1').seal(MAIN.cmd('desk-1'), time.now(), body);
  };
  /** Such a command through the broker, and 50 ms for it to be read and answered. */
  const command = async (id: string, term: string, deadlineMs = 1000) => {
    broker.publish(MAIN.cmd('desk-1'), signed(id, term, deadlineMs), false);
    await advanceWithIo(time, 50, requests.quiet);
  };
  const replies = (id: string) => broker.log.filter((p) => p.topic === MAIN.reply('desk-1') && (p.body as { id: string }).id === id).map((p) => p.body as { ok: boolean; error?: string });
  const audited = (id: string) => audit.filter((r) => r.control === `command ${id}`);
  await until(() => holding, 'poller-main holding the lease');
  return { poller, connection, log, audit, signed, own, takenOverBy, command, replies, audited, until, isHolding: () => holding };
}

describe('a command under a lease term this poller claimed', () => {
  it('is answered and audited after the poller held a later term and lost that too (it was dropped unheard)', async () => {
    const f = await facility();
    const first = f.own().term;
    await f.takenOverBy('poller-b-term-1');
    // poller-b renews nothing: poller-main claims again a TTL later, and holds a term of its own again.
    await f.until(() => f.isHolding() && f.own().term !== first, 'poller-main holding a new term');
    await f.takenOverBy('poller-b-term-2');
    // What a frozen link delivers late: a panel's command under the first term, read now.
    await f.command('under-the-first-term', first);
    expect(f.replies('under-the-first-term')).toEqual([{ id: 'under-the-first-term', ok: false, sent: false, error: expect.stringMatching(/^"poller-main" refused it: it no longer holds the lease it was sent under \("poller-b" holds it now\)$/) }]);
    expect(f.audited('under-the-first-term')).toEqual([expect.objectContaining({ surface: 'bus:desk-1', action: 'listChannels', result: 'refused', request: null, message: expect.stringContaining('no longer holds the lease it was sent under') })]);
  }, 20_000);

  it('is refused as its own earlier term, not another poller\'s, while it holds a later one', async () => {
    const f = await facility();
    const first = f.own().term;
    await f.takenOverBy('poller-b-term-1');
    await f.until(() => f.isHolding() && f.own().term !== first, 'poller-main holding a new term');
    await f.command('under-the-first-term', first);
    expect(f.replies('under-the-first-term')).toEqual([{ id: 'under-the-first-term', ok: false, sent: false, error: '"poller-main" refused it: it was sent under an earlier lease term of this poller, which it lost (the lease changed since)' }]);
    expect(f.audited('under-the-first-term')).toHaveLength(1);
  }, 20_000);

  it("a command under another poller's term, while this one holds no lease, is left to that poller (by design: no answer here)", async () => {
    const f = await facility();
    await f.takenOverBy('poller-b-term-1');
    await f.command('under-poller-b', 'poller-b-term-1');
    // poller-b may run it: a "not run" from here could reach the panel before poller-b's answer that it ran.
    expect(f.replies('under-poller-b')).toEqual([]);
    expect(f.audited('under-poller-b')).toEqual([]);
  }, 20_000);
});

describe('what a poller cannot tell a panel', () => {
  it('refusals only counted so far (past the first few of a member) are audited when the poller stops, and messages left unread are logged', async () => {
    const f = await facility();
    // Seven commands past their deadline (1 ms before it was sent, delivered 1 ms later): the first five refused in full, the rest only counted until
    // their member's summary (REFUSAL_SUMMARY_MS), which a poller stopping before then never wrote.
    for (let i = 0; i < 7; i++) await f.command(`late-command-${i}`, f.own().term, -1);
    expect(f.audit.filter((r) => r.result === 'refused').map((r) => r.control)).toEqual([0, 1, 2, 3, 4].map((i) => `command late-command-${i}`));
    // One more arrives (the receive path: its arrival checks), and the poller stops before its slice reads it.
    f.connection.emit('message', MAIN.cmd('desk-1'), f.signed('unread-command', f.own().term), { retain: false });
    f.poller.stop();
    expect(f.log.lines).toContain('recorder "main": 1 message not yet read dropped as this poller stops (each panel says "no answer" by its command\'s deadline)');
    expect(f.audit.filter((r) => r.result === 'refused').map((r) => [r.control, r.message])).toEqual([...[0, 1, 2, 3, 4].map((i) => [`command late-command-${i}`, 'it arrived 2 ms after its deadline']), ['refusals', '2 more refused in the last 0 s: arrived after its deadline (2)']]);
    // Stopped again (a process's shutdown and its hook both stop it): nothing audited twice.
    f.poller.stop();
    expect(f.audit.filter((r) => r.control === 'refusals')).toHaveLength(1);
  }, 20_000);

  it('an answer the bus cannot take now is said in the log (the panel says "no answer" by its deadline)', async () => {
    const f = await facility();
    f.connection.connected = false;
    await f.command('while-disconnected', f.own().term, -1);
    expect(f.audited('while-disconnected')).toHaveLength(1);
    expect(f.replies('while-disconnected')).toEqual([]);
    expect(f.log.lines.filter((line) => line.includes('while-disconnected') && line.includes('not sent'))).toEqual([`${MAIN.cmd('desk-1')}: the answer to command while-disconnected was not sent: the state bus is not connected`]);
  }, 20_000);
});
