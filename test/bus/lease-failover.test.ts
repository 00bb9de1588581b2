// e2e because Mosquitto is the part: the lease lives on a real broker (retained, last wills, the order it
// delivers claims in), and what is shown is how pollers in this process read it there.
// Issue 25, item 5: the lease has a term and expires. With the holder and its standby killed together,
// or a forged lease left retained, a fresh poller polls within 3 polls; a forged lease does not move a
// live holder; another recorder under the same name is refused with a clear error and never polled.
import { describe, expect, it } from 'vitest';
import { topicsOf } from '../../src/bus/topics.js';
import { channelState, facilityFor, isHolding as holding, startSimulator, timersLate, until, type PollerProcess, type Rig } from '../support/facility.js';

const POLL_MS = 250;
const MAIN = topicsOf('main');
/** The lease's TTL in the tests that are not about its timing (8 polls, as test/bus/facility.test.ts). */
const STEADY_TTL_MS = 2000;

/** When the recorder gets its first read after `since` (ms, this machine's clock). */
async function firstReadAfter(f: Rig, since: number): Promise<number> {
  const read = () => f.sim.sim.log.list().find((r) => r.method === 'GET' && r.receivedAt >= since);
  await until(() => read() !== undefined, 'a read at the recorder');
  return read()?.receivedAt ?? Number.NaN;
}

/**
 * Kills every poller and waits until the broker has seen each connection drop (its last will arrives): what
 * a killed poller sent before is through the broker then, so nothing it sent can arrive later as a renewal.
 * The lease it left retained was renewed a moment ago.
 */
async function killAll(f: Rig): Promise<void> {
  const watcher = await f.client();
  const gone = new Set<string>();
  watcher.on('message', (_, payload, packet) => {
    const { from, body } = JSON.parse(payload.toString()) as { from: string; body: { online: boolean } };
    if (!packet.retain && !body.online) gone.add(from);
  });
  await watcher.subscribeAsync(MAIN.health, { qos: 1 });
  for (const p of f.pollers) p.kill();
  await until(() => f.pollers.every((p) => gone.has(p.poller.id)), "every killed poller's last will");
}

/**
 * A fresh poller's first read comes within 3 polls of its start: its claim leaves when the lease's TTL
 * (3 polls) has passed, and it reads as soon as the claim is back from the broker. On top come that trip
 * (measured), the read's way to the recorder (50 ms at most here), and however late this busy machine
 * ran this process's timers meanwhile, in all.
 */
async function expectFreshPollerWithin3Polls(f: Rig, id: string): Promise<PollerProcess> {
  const watcher = await f.client();
  const claims: number[] = [];
  watcher.on('message', (_, payload) => {
    const { from, body } = JSON.parse(payload.toString()) as { from?: string; body?: { renewedAt?: number } };
    if (from === id && body?.renewedAt !== undefined) claims.push(body.renewedAt);
  });
  await watcher.subscribeAsync(MAIN.lease, { qos: 1 });
  const late = timersLate();
  const fresh = await f.startPoller(id);
  const heldAt = new Promise<number>((resolve) => fresh.poller.holding$.subscribe((held) => held && resolve(Date.now())));
  const readAt = await firstReadAfter(f, fresh.startedAt);
  const lateMs = late.stop();
  await until(() => claims.length > 0, 'the claim at the broker');
  const trip = (await heldAt) - (claims[0] ?? Number.NaN);
  expect(readAt - fresh.startedAt, `the claim's trip ${trip} ms, timers ${lateMs} ms late in all`).toBeLessThanOrEqual(3 * POLL_MS + trip + 50 + lateMs);
  await until(() => f.panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'the panels live again', 15_000);
  return fresh;
}

// Each test has its own facility (two kill every poller). The two that hold the lease to its own TTL of
// 3 polls run one at a time, which a process busy with other facilities beside them could miss; the two
// others give it a TTL of 3 s, so that a stall of this busy machine moves no lease, and run side by side.
describe.concurrent('the lease', () => {
  it.sequential('holder and standby killed together: a fresh poller polls within 3 polls (the retained lease is no renewal, the standby\'s will is no sign of life)', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a', 'poller-b'], more: ['poller-c'], panels: ['panel-a'] });
    await killAll(f);
    const fresh = await expectFreshPollerWithin3Polls(f, 'poller-c');
    expect(fresh.log.lines).toContainEqual(expect.stringMatching(/"poller-c" claims the lease \(epoch \d+\): no renewal from "poller-[ab]"/));
  }, 60_000);

  it.sequential('a forged lease left retained (unsigned, or signed by a panel) holds nobody back: a fresh poller polls within 3 polls', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a'], more: ['poller-c'], panels: ['panel-a'] });
    await killAll(f);
    const forger = await f.client();
    const forged = { recorder: 'main', identity: { url: 'http://forged', tokenSha256Prefix: '000000000000' }, holder: 'poller-a', term: 'forged-term-0001', epoch: 999_999, renewedAt: Date.now(), ttlMs: 3_600_000 };
    await forger.publishAsync(MAIN.lease, f.members.authority('panel-a').seal(MAIN.lease, Date.now(), { ...forged, holder: 'panel-a' }), { qos: 1, retain: true });
    await forger.publishAsync(MAIN.lease, JSON.stringify({ from: 'poller-a', at: Date.now(), body: forged }), { qos: 1, retain: true });
    const fresh = await expectFreshPollerWithin3Polls(f, 'poller-c');
    expect(fresh.log.lines).toContainEqual(expect.stringContaining('recdeck/main/lease: unsigned (said to be from "poller-a"); this lease is ignored'));
    expect(fresh.log.lines).toContainEqual(expect.stringMatching(/"poller-c" claims the lease \(epoch 1\): no lease seen/));
  }, 60_000);

  it('a forged lease does not move a live holder, nor the panels following it', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a'], panels: ['panel-a'], poller: () => ({ ttlMs: STEADY_TTL_MS }) });
    const forger = await f.client();
    const forged = { recorder: 'main', identity: { url: 'http://forged', tokenSha256Prefix: '000000000000' }, holder: 'poller-x', term: 'forged-term-0002', epoch: 999_999, renewedAt: Date.now(), ttlMs: 1 };
    for (let i = 0; i < 5; i++) await forger.publishAsync(MAIN.lease, JSON.stringify({ from: 'poller-x', at: Date.now(), body: forged }), { qos: 1, retain: true });
    const panel = f.panels[0];
    await panel?.link.call({ method: 'recStart', args: [0] });
    expect(holding(f.pollers[0] as PollerProcess)).toBe(true);
    expect(f.writes()).toEqual(['PUT /api/channels/0/rec-start']);
  }, 30_000);

  it('two recorders under one name: the second poller refuses with an error naming both, and never polls its recorder', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a'], more: ['poller-b'], panels: ['panel-a'], poller: () => ({ ttlMs: STEADY_TTL_MS }) });
    const studioB = await startSimulator();
    f.defer(() => studioB.close());
    const b = await f.startPoller('poller-b', { recorder: studioB });
    const error = new RegExp(`two recorders under one name: "poller-a" \\(epoch \\d+, ${new URL(f.sim.sim.url).origin.replaceAll('.', '\\.')}, token sha256`);
    await until(() => b.log.lines.some((line) => error.test(line)), 'the error');
    expect(b.log.lines.find((line) => error.test(line))).toMatch(new RegExp(`and "poller-b" is for ${new URL(studioB.sim.url).origin.replaceAll('.', '\\.')} .*refuses to poll or run commands while that lease is renewed\\. Give one of them another name\\.`));
    // A lease TTL's worth of renewals on (when poller-b would claim a lease nobody renewed), studio B's
    // recorder has not been read once, and studio A's poller holds on.
    const watcher = await f.client();
    let renewals = 0;
    watcher.on('message', () => renewals++);
    await watcher.subscribeAsync(MAIN.lease, { qos: 1 });
    await until(() => renewals > STEADY_TTL_MS / POLL_MS + 1, 'a lease TTL of renewals', 3 * STEADY_TTL_MS);
    expect(studioB.sim.log.list()).toEqual([]);
    expect([holding(f.pollers[0] as PollerProcess), holding(b)]).toEqual([true, false]);
  }, 30_000);
});
