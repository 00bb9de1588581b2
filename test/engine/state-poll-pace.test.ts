// Sync and dialog at the pace the bridge can afford (issue 35 (i)): the poller on virtual time against
// the simulator over real HTTP. While the pace it is given says 2, sync and dialog are read every other
// poll and channels every poll; at 1 again, every poll. Across any change of pace (here one every few
// hundred ms, at phases that fall anywhere in a wait, with answers 0-400 ms late) each read leaves exactly
// the intervals after the last that were asked when the last one's answer came, no part is ever stale
// while the recorder answers, and none is live past three of the intervals it was read at (as asked of
// the pace, recorded here apart from the state). A command's refresh still reads at once.
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../src/api/clock.js';
import { RecorderClient } from '../../src/api/client.js';
import { freePort } from '../../src/bench/broker.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { freshnessOf, type FastPart } from '../../src/engine/recorder-state.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { RequestCounter, VirtualTime, advanceWithIo, settle } from '../support/virtual-time.js';

const TOKEN = 'perm:11111111-2222-4333-8444-555555555555';
const POLL = 250;
const PATHS: Record<FastPart, string> = { channels: '/api/channels', sync: '/api/app/sync', dialog: '/api/app/dialog' };

let poller: RecorderPoller | undefined;
let client: RecorderClient | undefined;
let sim: RunningSimulator | undefined;
afterEach(async () => {
  poller?.stop();
  await client?.close();
  await sim?.close();
  poller = undefined;
  client = undefined;
  sim = undefined;
});

/** A poller reading every part on virtual time, paced by `pace` (asked with the virtual now), its reads logged. */
async function pacedPoller(pace: (now: number) => number) {
  const time = new VirtualTime();
  sim = await startSimulator({ clock: time, port: await freePort(), token: TOKEN, tickMs: 0 });
  client = new RecorderClient({ clock: realClock, url: sim.url, token: TOKEN });
  const requests = new RequestCounter(client, time);
  poller = new RecorderPoller('main', client, { pollMs: POLL, slowMs: 60_000, time });
  const start = time.now();
  /** Every time the poller asked the pace: when, and what it was told. */
  const asked: Array<{ at: number; every: number }> = [];
  poller.paceBy(() => {
    const every = pace(time.now() - start);
    asked.push({ at: time.now() - start, every });
    return every;
  });
  const sent: Record<FastPart, number[]> = { channels: [], sync: [], dialog: [] };
  client.observe((record) => {
    for (const part of ['channels', 'sync', 'dialog'] as const) if (record.path === PATHS[part]) sent[part].push(time.now() - start);
  });
  const p = poller;
  return { time, requests, poller: p, start, asked, sent, advance: (ms: number) => advanceWithIo(time, ms, requests.quiet), settle: () => settle(requests.quiet, 'I/O', time) };
}

const within = (list: number[], from: number, to: number) => list.filter((at) => at >= from && at < to).length;

describe('sync and dialog at the pace the bridge can afford', () => {
  it('every other poll while the pace says 2, channels every poll throughout, every poll again once it says 1', async () => {
    const v = await pacedPoller((now) => (now >= 2000 && now < 6000 ? 2 : 1));
    v.poller.start();
    await v.advance(9000);
    // Calm: every 250 ms.
    for (const part of ['channels', 'sync', 'dialog'] as const) expect(within(v.sent[part], 0, 2000), `${part} calm`).toBe(8);
    // Held: the answer of the read at 2000 asks the pace (2), so the next leaves at 2500, and so on every
    // 500 ms; the answer at 6000 asks it again (1): every 250 ms from there. Channels every poll throughout.
    expect(within(v.sent.channels, 2250, 6000)).toBe(15);
    const every = (from: number, to: number, step: number) => Array.from({ length: (to - from) / step + 1 }, (_, i) => from + i * step);
    for (const part of ['sync', 'dialog'] as const) expect(v.sent[part], part).toEqual([...every(0, 2000, 250), ...every(2500, 6000, 500), ...every(6250, 9000, 250)]);
    // Their state says so: each value carries the interval it was read at.
    expect(v.poller.state.pollEvery).toEqual({ channels: 1, sync: 1, dialog: 1 });
    // The pace is asked of sync's and dialog's answers alone (channels never ask it).
    expect(v.asked.length).toBe(v.sent.sync.length + v.sent.dialog.length);
  });

  it('across changes of pace at any phase, with answers 0-400 ms late: each read when the last answer asked, never stale, never live past three of its intervals', async () => {
    // The pace flips at seeded, uneven moments: every 60-700 ms, so a flip falls before, during and after reads.
    const flips: number[] = [];
    let seed = 7;
    for (let at = 300; at < 12_000; ) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      at += 60 + (seed % 640);
      flips.push(at);
    }
    const pace = (now: number) => (flips.filter((at) => at <= now).length % 2 === 0 ? 1 : 2);
    const v = await pacedPoller(pace);
    /** The pace each value was read at, by part and read number: what the poller was told at its answer (channels: 1). */
    const readAtPace: Record<FastPart, Map<number, number>> = { channels: new Map(), sync: new Map(), dialog: new Map() };
    v.poller.state$.subscribe((state) => {
      for (const part of ['channels', 'sync', 'dialog'] as const) {
        const number = state.readNumber[part];
        if (number > 0 && !readAtPace[part].has(number)) readAtPace[part].set(number, part === 'channels' ? 1 : (v.asked.at(-1)?.every ?? Number.NaN));
      }
    });
    v.poller.start();
    await v.advance(0);
    let checked = 0;
    let paced = 0;
    while (v.time.now() - v.start < 12_000) {
      // Every other read of each part answers at once, the others 400 ms late: a fast answer then a slow one
      // is the longest a value waits for the next (a fixed limit of three polls would see sync stale here).
      for (const part of ['sync', 'dialog', 'channels'] as const) v.requests.latencyByPath.set(PATHS[part], v.sent[part].length % 2 === 0 ? 0 : 400);
      await v.advance(10);
      const state = v.poller.state;
      const now = v.time.now();
      for (const part of ['channels', 'sync', 'dialog'] as const) {
        expect(freshnessOf(state, now, [part]), `${part} at ${now - v.start}`).toBe('live');
        const every = readAtPace[part].get(state.readNumber[part]) as number;
        expect(now - (state.readAt[part] as number), `${part}'s age at ${now - v.start}`).toBeLessThanOrEqual(3 * POLL * every);
        if (every === 2) paced++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3000);
    expect(paced, 'values read at the slower pace were judged').toBeGreaterThan(500);
    // Each read of sync and dialog left when the answer before it said: its pace's intervals after the last
    // read left, or at once when that answer came later still (never skipped, never earlier).
    for (const part of ['sync', 'dialog'] as const) {
      const times = v.sent[part];
      const paces = [...readAtPace[part].values()];
      expect(paces.length).toBeGreaterThanOrEqual(times.length - 1);
      let slower = 0;
      for (let i = 1; i < times.length; i++) {
        const gap = (times[i] as number) - (times[i - 1] as number);
        const every = paces[i - 1] as number;
        const latency = i - 1 === 0 || (i - 1) % 2 === 0 ? 0 : 400; // the read before: its answer's lateness
        expect(gap, `${part} read ${i} at ${times[i]}`).toBe(Math.max(every * POLL, latency));
        if (every === 2) slower++;
      }
      expect(slower, `${part} read at the slower pace`).toBeGreaterThan(5);
    }
  });

  it("a command's refresh reads sync and dialog at once while they are paced", async () => {
    const v = await pacedPoller(() => 2);
    v.poller.start();
    await v.advance(1100);
    expect(v.poller.state.pollEvery.sync).toBe(2);
    const before = v.sent.sync.length;
    const at = v.time.now() - v.start;
    v.poller.refresh();
    await v.settle();
    expect(v.sent.sync.slice(before)).toEqual([at]);
    expect(v.sent.dialog.at(-1)).toBe(at);
    expect(v.time.now() - v.start).toBe(at); // no time passed: read at once
  });
});
