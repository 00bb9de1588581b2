// The lease's rules as a pure decision, event by event, without a broker: claims, renewals, lapses,
// fencing by epoch, and another recorder under the same name.
import { describe, expect, it } from 'vitest';
import { holdsAt, initialLease, leaseTransition, leaseWakeAt, type LeaseEffect, type LeaseEvent, type LeaseSettings, type LeaseState } from '../../src/bus/lease.js';
import type { LeaseMessage } from '../../src/bus/topics.js';

const identity = { url: 'http://10.0.0.5:9000', tokenSha256Prefix: 'aaaaaaaaaaaa' };
const settings = (me: string, overrides: Partial<LeaseSettings> = {}): LeaseSettings => ({ recorder: 'main', me, identity, renewMs: 250, ttlMs: 750, ...overrides });

/** Runs events through the transition, numbering new terms, and keeps every effect. */
function run(me: string, events: LeaseEvent[], start: LeaseState = initialLease(0), overrides: Partial<LeaseSettings> = {}) {
  let state = start;
  let terms = 0;
  const effects: LeaseEffect[] = [];
  for (const event of events) {
    const next = leaseTransition(state, event, settings(me, overrides), () => `${me}-term-${++terms}`);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects, published: effects.flatMap((e) => (e.kind === 'publish' ? [e.lease] : [])),
    claims: effects.flatMap((e) => (e.kind === 'publish' && e.claim ? [e.lease] : [])), logs: effects.flatMap((e) => (e.kind === 'log' ? [`${e.level}: ${e.message}`] : [])) };
}

const lease = (holder: string, term: string, epoch: number, renewedAt: number, overrides: Partial<LeaseMessage> = {}): LeaseMessage => ({ recorder: 'main', identity, holder, term, epoch, renewedAt, ttlMs: 750, ...overrides });
const tick = (now: number): LeaseEvent => ({ kind: 'tick', now });
const seen = (l: LeaseMessage, now: number, retained = false): LeaseEvent => ({ kind: 'lease', lease: l, retained, now });

describe('the lease', () => {
  it('a fresh poller with no lease claims after the TTL, and holds once its claim comes back', () => {
    const { state, published, claims, effects } = run('a', [tick(100), tick(750)]);
    expect(published).toEqual([lease('a', 'a-term-1', 1, 750)]);
    expect(claims).toEqual(published);
    expect(state.holding).toBe(false);
    const back = run('a', [seen(lease('a', 'a-term-1', 1, 750), 760)], state);
    expect(back.state.holding).toBe(true);
    expect(back.effects.map((e) => e.kind)).toEqual(['hold', 'log']);
    expect(effects.some((e) => e.kind === 'hold')).toBe(false);
  });

  it('the holder renews every poll and lapses when no renewal came back for the TTL', () => {
    const held = run('a', [tick(750), seen(lease('a', 'a-term-1', 1, 750), 755)]);
    const renewing = run('a', [tick(1000), seen(lease('a', 'a-term-1', 1, 1000), 1004), tick(1250)], held.state);
    expect(renewing.published.map((l) => l.renewedAt)).toEqual([1000, 1250]);
    expect(renewing.claims).toEqual([]);
    expect(holdsAt(renewing.state, settings('a'), 1749)).toBe(true);
    // Stopped (SIGSTOP) after 1250: nothing comes back; at 1000 + 750 it holds no more, and it says so.
    expect(holdsAt(renewing.state, settings('a'), 1750)).toBe(false);
    expect(leaseWakeAt(renewing.state, settings('a'))).toBe(1500);
    const woken = run('a', [tick(9000)], renewing.state);
    expect(woken.effects.map((e) => e.kind)).toEqual(['release', 'log']);
    expect(woken.logs[0]).toMatch(/"a" lost the lease: none of its renewals came back for 8000 ms \(TTL 750 ms\)/);
    expect(woken.published).toEqual([]);
  });

  it('a standby claims the next epoch only when renewals stop for the TTL', () => {
    const standing = run('b', [seen(lease('a', 'a-term-1', 4, 100), 100), tick(600), seen(lease('a', 'a-term-1', 4, 350), 350 + 500), tick(1500)]);
    expect(standing.published).toEqual([]);
    expect(standing.logs).toEqual([expect.stringMatching(/^info: .*"b" stands by: the lease is held by "a" \(epoch 4/)]);
    const claimed = run('b', [tick(1600)], standing.state);
    expect(claimed.published).toEqual([lease('b', 'b-term-1', 5, 1600)]);
    expect(claimed.logs[0]).toMatch(/"b" claims the lease \(epoch 5\): no renewal from "a" \(epoch 4\) for 750 ms/);
  });

  it('a retained lease is not a renewal: a fresh poller beside a dead holder claims the TTL after it started', () => {
    const { published } = run('c', [seen(lease('a', 'a-term-1', 7, 5), 1000, true), tick(1749), tick(1750)], initialLease(1000));
    expect(published).toEqual([lease('c', 'c-term-1', 8, 1750)]);
  });

  it('an old holder is fenced off: a lease of a lower epoch is ignored, and a holder that sees a newer one stops', () => {
    const held = run('a', [tick(750), seen(lease('a', 'a-term-1', 1, 750), 751)]);
    const lost = run('a', [seen(lease('b', 'b-term-1', 2, 900), 901)], held.state);
    expect(lost.effects.map((e) => e.kind)).toEqual(['release', 'log', 'log']);
    expect(lost.state.holding).toBe(false);
    const stale = run('b', [seen(lease('b', 'b-term-1', 2, 900), 901), seen(lease('a', 'a-term-1', 1, 950), 951)]);
    expect(stale.state.seen?.holder).toBe('b');
    expect(stale.logs.at(-1)).toMatch(/ignoring a lease of epoch 1 from "a": epoch 2 of "b" is newer \(an old holder's, or a replay\)/);
  });

  it('two claims of one epoch: the higher term holds, for both claimants, in whichever order they arrive', () => {
    const claimA = lease('a', 'a-term-1', 1, 750);
    const claimB = lease('b', 'b-term-1', 1, 750);
    for (const order of [[claimA, claimB], [claimB, claimA]]) {
      const afterA = run('a', [tick(750), ...order.map((l, i) => seen(l, 760 + i))]);
      const afterB = run('b', [tick(750), ...order.map((l, i) => seen(l, 760 + i))]);
      expect([afterA.state.holding, afterB.state.holding]).toEqual([false, true]);
    }
  });

  it('replayed leases change nothing: an old renewal does not keep a dead holder alive, nor an old claim unseat a live one', () => {
    const renewal = (at: number) => lease('a', 'a-term-1', 4, at);
    const standing = run('b', [seen(renewal(100), 100), seen(renewal(350), 350)]);
    // Renewals stop at 350; a replay of the one of 100 (or 350) arrives at 900.
    const replayed = run('b', [seen(renewal(100), 900), seen(renewal(350), 901), tick(1100)], standing.state);
    expect(replayed.published).toEqual([lease('b', 'b-term-1', 5, 1100)]);
    // A live holder of term "z" in epoch 6; an old claim of that epoch with a lower term comes again.
    const held = run('z', [tick(750), seen(lease('z', 'z-term-1', 1, 750), 751)]);
    const unmoved = run('z', [seen(lease('y', 'y-term-1', 1, 700), 800)], held.state);
    expect(unmoved.state.holding).toBe(true);
  });

  it('another recorder under the same name is refused loudly while its lease is renewed, and only then', () => {
    const other = { url: 'http://10.0.0.6:9000', tokenSha256Prefix: 'bbbbbbbbbbbb' };
    const live = run('b', [seen(lease('a', 'a-term-1', 1, 100, { identity: other }), 100), tick(600), seen(lease('a', 'a-term-1', 1, 350, { identity: other }), 600), tick(1349)]);
    expect(live.published).toEqual([]);
    expect(live.logs.filter((l) => l.startsWith('error'))).toEqual([
      expect.stringMatching(/^error: recorder "main": two recorders under one name: "a" \(epoch 1, http:\/\/10\.0\.0\.6:9000, token sha256 bbbbbbbbbbbb…\) holds the lease and renews it, and "b" is for http:\/\/10\.0\.0\.5:9000 .*refuses to poll or run commands while that lease is renewed/),
    ]);
    // Once nobody renews it (the recorder was moved, its poller is gone), it is claimed.
    expect(run('b', [tick(1350)], live.state).published).toEqual([lease('b', 'b-term-1', 2, 1350)]);
  });

  it('a clean stop hands the lease over: its last renewal expires at once', () => {
    const { published } = run('b', [seen(lease('a', 'a-term-1', 3, 100, { ttlMs: 1 }), 100), tick(101)], initialLease(0));
    expect(published).toEqual([lease('b', 'b-term-1', 4, 101)]);
  });
  it('a holder whose renewals stop coming back says it is falling behind a renewal before it lapses, and when it catches up', () => {
    const claimed = run('a', [tick(750), seen(lease('a', 'a-term-1', 1, 750), 760)]);
    const late = run('a', [tick(1000), tick(1250)], claimed.state);
    expect(late.logs).toEqual(['warn: recorder "main": "a" is falling behind: its last renewal that came back was sent 500 ms ago; it loses the lease in 250 ms unless one comes back']);
    expect(late.state.behind).toBe(true);
    expect(holdsAt(late.state, settings('a'), 1250)).toBe(true);
    const back = run('a', [seen(lease('a', 'a-term-1', 1, 1250), 1300), tick(1500)], late.state);
    expect(back.logs).toEqual(['info: recorder "main": "a" caught up: its renewal sent 50 ms ago came back']);
    expect(back.state.behind).toBe(false);
  });
});
