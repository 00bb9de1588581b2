// The pacing of previews and meters, on a clock the test moves: every wanted item once per interval
// (also those a round starts late, as slots free up), never two fetches of one item or more than the
// bound at once, slower items spaced by twice their fetch time, and items no longer wanted dropped.
import { describe, expect, it } from 'vitest';
import { FetchPacer } from '../../src/engine/fetch-pacer.js';

/** A pacer over `items` whose fetches take `tookMs(item)`, ticked every `intervalMs` for `ms`. */
async function drive(options: { items: number[]; intervalMs: number; concurrency: number; ms: number; tookMs: (item: number, nth: number) => number; wanted?: (now: number) => number[] }) {
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
});
