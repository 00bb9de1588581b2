// Bench (i)'s held stretches: the group's nr_throttled grows about once a period while the kernel holds the
// bridge; growths a period apart make one stretch, whose CPU (from a period before its first growth to its
// last) is split by the kind of thread that ran it.
import { expect, it } from 'vitest';
import { heldStretches, summarizeLumps, threadKinds, type LumpSample, type ThreadKind } from '../../src/bench/press-lumps.js';

const PID = 100;
const kinds = new Map<number, ThreadKind>([
  [100, 'main'],
  [101, 'V8 platform'],
  [120, 'libvips workers'],
]);

/** Samples 5 ms apart; `held[i]` periods counted in sample i; main and libvips each run `run[i]` ms in sample i. */
function samples(held: number[], run: Array<[number, number]>): LumpSample[] {
  let throttled = 0;
  let main = 0;
  let vips = 0;
  return held.map((h, i) => {
    throttled += h;
    main += run[i]?.[0] ?? 0;
    vips += run[i]?.[1] ?? 0;
    return { from: i * 5, to: i * 5 + 1, throttle: { throttled, throttledMs: throttled * 7 }, threads: new Map([[100, main], [101, 0], [120, vips]]) };
  });
}

it('makes one stretch of growths a period apart, another after a gap, and counts the CPU from a period before the first', () => {
  //        0  1  2  3  4  5  6  7  8  9 10 11 12 13 14
  const held = [0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0];
  const run: Array<[number, number]> = held.map((_, i) => (i >= 1 && i <= 7 ? [1, 2] : [0.5, 0]));
  const stretches = heldStretches(samples(held, run), kinds, 10);
  expect(stretches.map((s) => [s.from, s.to, s.periods, s.heldMs])).toEqual([
    // The first growth is in sample 3: from the last sample read wholly before a period (10 ms) ahead of
    // sample 2's start (none: the first sample), to sample 7; the next growth, sample 13, 30 ms later, is
    // another stretch, from sample 9 (the last read wholly before 50, a period ahead of sample 12 at 60).
    [0, 36, 3, 21],
    [45, 66, 1, 7],
  ]);
  // Samples 1-7 each add 1 ms of main and 2 of libvips (sample 0 is the base).
  expect(stretches[0]?.cpu).toEqual(new Map([['main', 7], ['V8 platform', 0], ['libvips workers', 14]]));
});

it('sums the CPU in the lumps (3 periods or more) apart from the whole window, and the main thread by task when a profile says', () => {
  const held = [0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0];
  const run: Array<[number, number]> = held.map((_, i) => (i <= 6 ? [1, 1] : [2, 0]));
  const tasks = (from: number, to: number) => new Map([['pictures', to - from]]);
  const summary = summarizeLumps(samples(held, run), kinds, 10, tasks);
  expect(summary.lumps).toBe(1);
  expect(summary.byLength.filter((b) => b.stretches > 0)).toEqual([
    { periods: '1', stretches: 1, heldPeriods: 1, heldMs: 7 },
    { periods: '3-4', stretches: 1, heldPeriods: 3, heldMs: 21 },
  ]);
  expect(summary.cpuInLumps).toEqual(new Map([['main', 6], ['V8 platform', 0], ['libvips workers', 6]]));
  expect(summary.cpuAll).toEqual(new Map([['main', 18], ['V8 platform', 0], ['libvips workers', 6]]));
  expect(summary.mainInLumps).toEqual(new Map([['pictures', 31]]));
  expect(summary.mainAll).toEqual(new Map([['pictures', 61]]));
  expect(summary.largest.map((s) => s.periods)).toEqual([3]);
});

it("tells the bridge's threads by name and Node's order: the main thread, libvips's workers, V8's first five, then libuv's pool", () => {
  const names = new Map([
    [PID, 'node'],
    ...[101, 102, 103, 104, 105, 107, 110, 111].map((tid): [number, string] => [tid, 'node']),
    [108, 'libvips worker'],
  ]);
  expect([...threadKinds(PID, names)].sort((a, b) => a[0] - b[0])).toEqual([
    [100, 'main'],
    [101, 'V8 platform'],
    [102, 'V8 platform'],
    [103, 'V8 platform'],
    [104, 'V8 platform'],
    [105, 'V8 platform'],
    [107, 'libuv pool, other'],
    [108, 'libvips workers'],
    [110, 'libuv pool, other'],
    [111, 'libuv pool, other'],
  ]);
});

it("starts a stretch's window no earlier than the one before it ended, so no CPU is counted twice", () => {
  // The bench's read of sample 3 took 18 ms (it waits too): its growth is 19 ms after sample 2's, another
  // stretch, whose period before would reach back over sample 2's stretch to the first sample.
  const at: Array<[number, number, number]> = [
    [0, 1, 0],
    [5, 6, 0],
    [10, 11, 1],
    [12, 30, 2],
  ];
  const run = [0, 1, 2, 4];
  const s = at.map(([from, to, throttled], i): LumpSample => ({ from, to, throttle: { throttled, throttledMs: throttled * 7 }, threads: new Map([[PID, run[i] ?? 0]]) }));
  expect(heldStretches(s, kinds, 10).map((x) => [x.from, x.to, x.cpu.get('main')])).toEqual([
    [0, 11, 2],
    [10, 30, 2],
  ]);
});
