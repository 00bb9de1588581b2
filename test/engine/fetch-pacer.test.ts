// The pacing of previews and meters, on a clock the test moves: every wanted item once per interval
// (also those a round starts late, as slots free up), never two fetches of one item or more than the
// bound at once, slower items spaced by twice their fetch time, and items no longer wanted dropped;
// spaced by whole intervals while the owner says so (previews and meters on a bridge short of time), and
// how many intervals the bridge says, from its pace of what only moves; a meter's read live for three of
// the intervals it is read at, across the pace's steps.
import { describe, expect, it } from 'vitest';
import { FetchPacer } from '../../src/engine/fetch-pacer.js';
import { MAX_STRETCH_MS, METER_SLOWEST, PREVIEW_SLOWEST, meterEvery, meterLiveForMs, nextStretchMs, previewEvery, previewLiveForMs } from '../../src/engine/picture-pace.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';
import { WorkTime } from '../support/work-time.js';

/** A pacer over `items` whose fetches take `tookMs(item)`, ticked every `intervalMs` for `ms`. */
async function drive(options: { items: number[]; intervalMs: number; concurrency: number; ms: number; tookMs: (item: number, nth: number) => number; wanted?: (now: number) => number[]; every?: (now: number) => number }) {
  let now = 0;
  const fetches: Array<{ item: number; at: number }> = [];
  const endings: Array<{ at: number; end: () => void }> = [];
  let underWay = 0;
  let most = 0;
  const busy = new Set<number>();
  const pacer = new FetchPacer<number>({
    intervalMs: options.intervalMs,
    concurrency: options.concurrency,
    now: () => now,
    wanted: () => options.wanted?.(now) ?? options.items,
    ...(options.every ? { every: () => options.every?.(now) ?? 1 } : {}),
    fetch: (item) => {
      expect(busy.has(item), `item ${item} fetched twice at once`).toBe(false);
      busy.add(item);
      fetches.push({ item, at: now });
      most = Math.max(most, ++underWay);
      const took = options.tookMs(item, fetches.filter((f) => f.item === item).length);
      return new Promise<number>((resolve) =>
        endings.push({
          at: now + took,
          end: () => {
            busy.delete(item);
            underWay--;
            resolve(took);
          },
        }),
      );
    },
  });
  // Time moves to the next tick or fetch ending, whichever is first; the pacer runs at each.
  let nextTick = 0;
  for (;;) {
    endings.sort((a, b) => a.at - b.at);
    const ending = endings[0];
    if (ending !== undefined && (ending.at <= nextTick || nextTick > options.ms)) {
      endings.shift();
      now = ending.at;
      ending.end();
      await new Promise((resolve) => setImmediate(resolve)); // the pacer's own continuation after the fetch runs at this moment
      continue;
    }
    if (nextTick > options.ms) break;
    now = nextTick;
    nextTick += options.intervalMs;
    pacer.pump();
  }
  return { fetches, most, count: (item: number) => fetches.filter((f) => f.item === item).length };
}

describe('FetchPacer', () => {
  it('fetches each of 16 wanted items once per interval, two at a time, though a round starts them one after another', async () => {
    // The recorder answers a little faster every other round: the later items of a round then come due
    // after the fetches before them have ended.
    const run = await drive({ items: Array.from({ length: 16 }, (_, i) => i), intervalMs: 1000, concurrency: 2, ms: 9999, tookMs: (_, nth) => (nth % 2 === 0 ? 5 : 2) });
    for (let item = 0; item < 16; item++) expect(run.count(item), `item ${item}`).toBe(10);
    expect(run.most).toBe(2);
  });

  it('spaces an item by twice its fetch time when that is longer than the interval', async () => {
    const run = await drive({ items: [0, 1], intervalMs: 250, concurrency: 2, ms: 9999, tookMs: (item) => (item === 0 ? 400 : 2) });
    const slow = run.fetches.filter((f) => f.item === 0).map((f) => f.at);
    for (let i = 1; i < slow.length; i++) expect((slow[i] as number) - (slow[i - 1] as number)).toBeGreaterThanOrEqual(800);
    expect(run.count(1)).toBe(40);
  });

  it('stops fetching an item nobody wants any more', async () => {
    const run = await drive({ items: [0, 1], intervalMs: 1000, concurrency: 2, ms: 5999, tookMs: () => 5, wanted: (now) => (now < 3000 ? [0, 1] : [1]) });
    expect(run.count(0)).toBe(3);
    expect(run.count(1)).toBe(6);
  });

  it('spaces every item by the intervals its owner says, from the next tick on, and back when it says 1', async () => {
    // 16 items, 1000 ms ticks: every interval for 4 s, every 4 from 4 s to 16 s, every interval after.
    const every = (now: number) => (now >= 4000 && now < 16000 ? 4 : 1);
    const run = await drive({ items: Array.from({ length: 16 }, (_, i) => i), intervalMs: 1000, concurrency: 2, ms: 19999, tookMs: () => 5, every });
    for (let item = 0; item < 16; item++) {
      const at = run.fetches.filter((f) => f.item === item).map((f) => f.at);
      // 0..3 s: each tick; 4..15 s: 3 fetches (last fetched at 3 s, an item is due 4 s later: at 7, 11
      // and 15 s); 16..19 s: each tick again, from the first tick after the pace eased.
      expect(at.filter((t) => t < 4000), `item ${item} calm`).toHaveLength(4);
      expect(at.filter((t) => t >= 4000 && t < 16000).length, `item ${item} slowed`).toBe(3);
      expect(at.filter((t) => t >= 16000), `item ${item} calm again`).toHaveLength(4);
      // Never two fetches of one item closer than four intervals (less a tick's slack) while slowed.
      const slowed = at.filter((t) => t >= 3000 && t < 16000);
      for (let i = 1; i < slowed.length; i++) expect((slowed[i] as number) - (slowed[i - 1] as number)).toBeGreaterThanOrEqual(3750);
    }
    expect(run.most).toBe(2);
  });
});

describe('previewEvery: how far apart previews are fetched, from the pace of what only moves', () => {
  it('every interval while nothing is stretched, slower as the stretch grows, at most PREVIEW_SLOWEST', () => {
    expect(previewEvery(0)).toBe(1);
    // The first stretch (pictures over their share) already halves the previews.
    expect(previewEvery(20)).toBe(2);
    expect(previewEvery(MAX_STRETCH_MS / 2)).toBe(3);
    expect(previewEvery(MAX_STRETCH_MS)).toBe(PREVIEW_SLOWEST);
    expect(previewEvery(10 * MAX_STRETCH_MS)).toBe(PREVIEW_SLOWEST);
    let last = 1;
    for (let stretch = 0; stretch <= MAX_STRETCH_MS; stretch++) {
      const every = previewEvery(stretch);
      expect(every).toBeGreaterThanOrEqual(last);
      expect(Number.isInteger(every)).toBe(true);
      last = every;
    }
  });
});

describe("a preview's time as live, from its pace", () => {
  it("is three of the intervals its fetches are meant to be apart now: the owner's, or twice a slow fetch's time", () => {
    let every = 1;
    const pacer = new FetchPacer<number>({ intervalMs: 500, concurrency: 2, now: () => 0, every: () => every, wanted: () => [], fetch: () => Promise.resolve(0) });
    expect(pacer.paceMs(0)).toBe(500);
    expect(previewLiveForMs(pacer.paceMs(0))).toBe(1500);
    every = PREVIEW_SLOWEST;
    expect(previewLiveForMs(pacer.paceMs(0))).toBe(3 * PREVIEW_SLOWEST * 500);
    // A fetch that took 4 s: the next is 8 s away, and the picture it brought is live for three of those.
    expect(previewLiveForMs(pacer.paceMs(0, 4000))).toBe(24_000);
    every = 1;
    expect(pacer.paceMs(0, 100)).toBe(500);
  });

  it("outlasts the pace's own steps: a preview fetched at one pace is still live when the first fetch at the next pace comes", () => {
    // The stretch at most doubles a second (nextStretchMs), from its first value; previews come `every`
    // intervals apart (less a quarter, the tick's slack), and the slowest fetch is on the next tick after that.
    const intervalMs = 1000;
    let stretch = 0;
    for (let second = 0; second < 10; second++) {
      const before = previewEvery(stretch);
      stretch = nextStretchMs(stretch, 1);
      const after = previewEvery(stretch);
      expect(after * intervalMs).toBeLessThanOrEqual(previewLiveForMs(before * intervalMs));
    }
  });
});

describe('meters at the pace the bridge can afford (meterEvery, meterLiveForMs)', () => {
  it('every interval while nothing is stretched, two from the first stretch on, never more', () => {
    expect(meterEvery(0)).toBe(1);
    expect(meterEvery(1)).toBe(METER_SLOWEST);
    expect(meterEvery(MAX_STRETCH_MS)).toBe(METER_SLOWEST);
    expect(meterEvery(10 * MAX_STRETCH_MS)).toBe(METER_SLOWEST);
    for (let stretch = 0; stretch <= MAX_STRETCH_MS; stretch++) expect(meterEvery(stretch)).toBeLessThanOrEqual(previewEvery(stretch));
    // A read is the gain and levels for three of the intervals it is read at: 750 ms calm, 1.5 s slowed.
    expect(meterLiveForMs(250, 1)).toBe(750);
    expect(meterLiveForMs(250, METER_SLOWEST)).toBe(1500);
  });

  it("a busy picture line halves the meters' reads, a calm one brings them back, and no read is judged stale while they keep the pace", async () => {
    // The bridge's wiring on virtual time where picture work costs time: the scheduler measures its busy
    // share, its stretch says how many intervals apart the 4 shown meters are read (250 ms ticks).
    const time = new WorkTime();
    const work = new WorkScheduler(time, { sliceMs: 2, onError: (_priority, error) => expect.fail(String(error)) });
    const meterMs = 250;
    const t0 = time.now();
    const every = () => meterEvery(work.paceMs());
    const reads = new Map<string, number[]>();
    const pacer = new FetchPacer<string>({
      intervalMs: meterMs,
      concurrency: 2,
      now: () => time.now(),
      every,
      wanted: () => ['A', 'B', 'C', 'D'],
      fetch: (name) => {
        reads.set(name, [...(reads.get(name) ?? []), time.now() - t0]);
        return Promise.resolve(0);
      },
    });
    const loadFrom = 2000;
    const loadTo = 8000;
    const paceAt: Array<{ at: number; every: number }> = [];
    for (let at = 0; at < 30_000; at += meterMs) {
      // Picture work worth 200 ms of every 250 (a page's pictures on a held bridge), on the picture line.
      if (at >= loadFrom && at < loadTo) work.post('pictures', 'load', () => time.spend(200));
      // Just before the tick's reads, each meter's last read is as old as it ever gets: still live.
      for (const [name, times] of reads) expect(at - (times.at(-1) as number), `${name} at ${at}`).toBeLessThanOrEqual(meterLiveForMs(meterMs, every()));
      paceAt.push({ at, every: every() });
      pacer.pump();
      for (let i = 0; i < 4; i++) await Promise.resolve(); // the fetches' answers and the pacer's next look
      time.advance(meterMs);
    }
    const within = (name: string, from: number, to: number) => (reads.get(name) ?? []).filter((t) => t >= from && t < to).length;
    const slowedFrom = paceAt.find((p) => p.every === METER_SLOWEST)?.at ?? Infinity;
    const calmAgainFrom = paceAt.find((p) => p.at > loadTo && p.every === 1)?.at ?? Infinity;
    // The stretch rises within a couple of seconds of the load, and eases back to nothing after it ends.
    expect(slowedFrom).toBeLessThan(loadFrom + 2500);
    expect(calmAgainFrom).toBeLessThan(loadTo + 15_000);
    for (const name of ['A', 'B', 'C', 'D']) {
      expect(within(name, 0, loadFrom), `${name} calm`).toBe(loadFrom / meterMs);
      // Slowed: one read every two intervals (500 ms), from the first tick at the slower pace.
      const slowedMs = calmAgainFrom - (slowedFrom + meterMs);
      expect(within(name, slowedFrom + meterMs, calmAgainFrom), `${name} slowed`).toBeLessThanOrEqual(Math.ceil(slowedMs / (2 * meterMs)) + 1);
      expect(within(name, slowedFrom + meterMs, calmAgainFrom), `${name} slowed`).toBeGreaterThanOrEqual(Math.floor(slowedMs / (2 * meterMs)) - 1);
      expect(within(name, calmAgainFrom + meterMs, 30_000), `${name} calm again`).toBe((30_000 - calmAgainFrom - meterMs) / meterMs);
    }
  });
});
