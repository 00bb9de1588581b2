// Bench (i)'s --press-trace splits each press's latency with the bridge's stamps: the stamps are matched
// to the presses by channel and order, hop by hop, and what does not match is counted, never guessed.
import { expect, it } from 'vitest';
import { hopsOf, parseTrace, schedDuring, splitPresses, summarize, type SchedSample, type SplitInput, type TraceLine } from '../../src/bench/press-trace.js';

const base = {
  surface: 'web:web-15',
  controlOf: (channel: number) => `key${channel}`,
  method: 'PUT',
  pathOf: (channel: number) => `/api/channels/${channel}/rec-start`,
} satisfies Partial<SplitInput>;

const read = (at: number, control: string, input = 'up', loopLateMaxMs = 0, surface = 'web:web-15', loopTicks = 4): TraceLine => ({ k: 'read', at, handledMs: 0.2, surface, control, input, loopLateMaxMs, loopTicks });
const create = (at: number, id: number, channel: number, method = 'PUT'): TraceLine => ({ k: 'create', at, id, method, path: `/api/channels/${channel}/rec-start` });
const sent = (at: number, id: number, connectedAt: number | null = 500): TraceLine => ({ k: 'sent', at, id, connectedAt });

it("splits a press into its hops, whose sum is the whole, with the loop's windows before and after its read", () => {
  const trace = [read(990, 'key0', 'down', 1.5), read(1002, 'key0', 'up', 2.5, 'web:web-15', 0), create(1005, 1, 0), sent(1006.5, 1), { k: 'answered', at: 1010, id: 1, status: 200 } as const, read(1200, 'key1', 'down', 7, 'web:web-15', 19)];
  const { splits, unexplained } = splitPresses({ ...base, presses: [{ channel: 0, at: 1000 }], trace, writes: [{ channel: 0, receivedAt: 1008 }] });
  expect(unexplained).toBe(0);
  expect(splits).toEqual([
    { channel: 0, sentAt: 1000, readAt: 1002, createdAt: 1005, headersSentAt: 1006.5, receivedAt: 1008, handledMs: 0.2, loopBefore: { windowMs: 12, ticks: 0, lateMaxMs: 2.5 }, loopAfter: { windowMs: 198, ticks: 19, lateMaxMs: 7 }, gc: [], newConnection: false, sched: null, schedByHop: [null, null, null, null] },
  ]);
  const { hops, whole } = hopsOf(splits[0] as (typeof splits)[number]);
  expect(hops).toEqual([2, 3, 1.5, 1.5]);
  expect(whole).toBe(8);
  expect(hops.reduce((a, b) => (a ?? 0) + (b ?? 0), 0)).toBe(whole);
});

it("matches reads to presses by order on each channel, requests by the latest earlier read, writes by the latest earlier headers sent", () => {
  const presses = [
    { channel: 0, at: 1000 },
    { channel: 1, at: 1100 },
    { channel: 0, at: 2000 },
  ];
  // Channel 1's request is created after channel 0's second read, and its write arrives last: out of press order.
  const trace = [read(1001, 'key0'), read(1101, 'key1'), create(1003, 1, 0), sent(1004, 1), read(2001, 'key0'), create(2002, 2, 0), create(2003, 3, 1), sent(2004, 3), sent(2005, 2)];
  const writes = [
    { channel: 0, receivedAt: 1005 },
    { channel: 0, receivedAt: 2006 },
    { channel: 1, receivedAt: 2010 },
  ];
  const { splits, unexplained } = splitPresses({ ...base, presses, trace, writes });
  expect(unexplained).toBe(0);
  expect(splits.map((s) => [s.readAt, s.createdAt, s.headersSentAt, s.receivedAt])).toEqual([
    [1001, 1003, 1004, 1005],
    [1101, 2003, 2004, 2010],
    [2001, 2002, 2005, 2006],
  ]);
  // A release the bridge sent nothing for (refused) leaves the next request to the latest release before it.
  const refused = splitPresses({ ...base, presses: [presses[0], presses[2]] as typeof presses, trace: [read(1001, 'key0'), read(2001, 'key0'), create(2002, 1, 0), sent(2003, 1)], writes: [{ channel: 0, receivedAt: 2004 }] });
  expect(refused.splits.map((s) => [s.readAt, s.createdAt, s.receivedAt])).toEqual([
    [1001, null, null],
    [2001, 2002, 2004],
  ]);
});

it('leaves a stamp null where the chain stops, counts it by the first stamp missing, and counts stamps no press explains', () => {
  const presses = [
    { channel: 0, at: 1000 },
    { channel: 1, at: 1100 },
    { channel: 2, at: 1200 },
  ];
  // key0: read, no request (refused); key1: request created, never sent; key2: never read. A release on key3,
  // a channel never pressed, is not a press's; a release on another deck and a GET are not looked at.
  const trace = [read(1001, 'key0'), read(1101, 'key1'), create(1102, 7, 1), read(1150, 'key0', 'up', 0, 'web:web-32'), create(1160, 8, 0, 'GET'), read(1170, 'key9')];
  const { splits, unexplained } = splitPresses({ ...base, presses, trace, writes: [{ channel: 2, receivedAt: 1300 }] });
  expect(splits.map((s) => [s.readAt, s.createdAt, s.headersSentAt, s.receivedAt])).toEqual([
    [1001, null, null, null],
    [1101, 1102, null, null],
    [null, null, null, null],
  ]);
  // The write on channel 2 has no headers sent before it.
  expect(unexplained).toBe(1);
  const summary = summarize({ splits, unexplained });
  expect(summary.incomplete).toEqual({ 'no createdAt': 1, 'no headersSentAt': 1, 'no readAt': 1 });
  expect(summary.slowest).toEqual([]);
  // A second release on key0 with only one press on it is a stamp no press explains.
  expect(splitPresses({ ...base, presses, trace: [read(1001, 'key0'), read(1500, 'key0')], writes: [] }).unexplained).toBe(1);
});

it("tells a write that waited for a new connection: its socket connected after the request was created", () => {
  const trace = [read(1001, 'key0'), create(1002, 1, 0), sent(1021, 1, 1020), read(2001, 'key0'), create(2002, 2, 0), sent(2003, 2, 1020), read(3001, 'key0'), create(3002, 3, 0), sent(3003, 3, null)];
  const presses = [1000, 2000, 3000].map((at) => ({ channel: 0, at }));
  const writes = [1025, 2005, 3005].map((receivedAt) => ({ channel: 0, receivedAt }));
  expect(splitPresses({ ...base, presses, trace, writes }).splits.map((s) => s.newConnection)).toEqual([true, false, false]);
});

it("takes the collector's pauses that overlap the press, from the bench's send to the write's arrival", () => {
  const gc = (at: number, ms: number): TraceLine => ({ k: 'gc', at, ms, kind: 'scavenge' });
  const trace = [gc(990, 5), gc(995, 20), read(1030, 'key0'), create(1031, 1, 0), sent(1032, 1), gc(1032.5, 1), gc(1040, 3)];
  const [split] = splitPresses({ ...base, presses: [{ channel: 0, at: 1000 }], trace, writes: [{ channel: 0, receivedAt: 1035 }] }).splits;
  // 990+5 ends before the send; 995+20 runs over it; 1040 starts after the write arrived.
  expect(split?.gc).toEqual([
    { at: 995, ms: 20, kind: 'scavenge' },
    { at: 1032.5, ms: 1, kind: 'scavenge' },
  ]);
});

it("bounds the kernel's counters around a press by the samples read wholly before and after it", () => {
  const sample = (from: number, to: number, run: number, wait: number, throttled: number, throttledMs: number): SchedSample => ({ from, to, mainRunMs: run, mainWaitMs: wait, throttle: { throttled, throttledMs } });
  const samples = [
    sample(990, 991, 50, 20, 10, 100),
    sample(996, 997, 52, 21, 11, 107),
    sample(1003, 1009, 55, 30, 13, 115), // read across the press's end: not wholly after it
    sample(1010, 1011, 56, 33, 14, 122),
  ];
  const whole = { windowMs: 15, runMs: 4, waitMs: 12, heldMs: 15, periods: 3 };
  expect(schedDuring(samples, 998, 1005)).toEqual(whole);
  expect(schedDuring(samples, 990.5, 1005)).toBeNull(); // no sample before the press
  expect(schedDuring(samples, 998, 1010.5)).toBeNull(); // none after it
  // Without a quota there is no cpu.stat: the main thread's counters alone.
  expect(schedDuring(samples.map((s) => ({ ...s, throttle: null })), 998, 1005)).toEqual({ ...whole, heldMs: null, periods: null });
  const trace = [read(999, 'key0'), create(1000, 1, 0), sent(1001, 1)];
  const [split] = splitPresses({ ...base, presses: [{ channel: 0, at: 998 }], trace, writes: [{ channel: 0, receivedAt: 1005 }], sched: samples }).splits;
  expect(split?.sched).toEqual(whole);
  // By hop: the first three (998-999, 999-1000, 1000-1001) end before the sample read at 1003-1009, which
  // bounds them (996-1009); the fourth (1001-1005) ends in it: the one at 1010 does.
  const early = { windowMs: 13, runMs: 3, waitMs: 9, heldMs: 8, periods: 2 };
  expect(split?.schedByHop).toEqual([early, early, early, whole]);
});

it('summarizes each hop and the whole as p50/p95/p99 over the presses that have it, and names the slowest presses', () => {
  // Ten presses on one channel, one a second; press i takes i+1 ms in each hop.
  const presses = Array.from({ length: 10 }, (_, i) => ({ channel: 0, at: 1000 * (i + 1) }));
  const trace = presses.flatMap((p, i) => [read(p.at + (i + 1), 'key0'), create(p.at + 2 * (i + 1), i, 0), sent(p.at + 3 * (i + 1), i)]);
  const writes = presses.map((p, i) => ({ channel: 0, receivedAt: p.at + 4 * (i + 1) }));
  const summary = summarize(splitPresses({ ...base, presses, trace, writes }), 2);
  expect(summary.hops.map((h) => [h.hop, h.n, h.p50, h.p95, h.p99])).toEqual([
    ['bench send -> bridge read', 10, 5, 10, 10],
    ['bridge read -> request created', 10, 5, 10, 10],
    ['created -> headers sent', 10, 5, 10, 10],
    ['headers sent -> simulator received', 10, 5, 10, 10],
    ['whole: bench send -> simulator received', 10, 20, 40, 40],
  ]);
  expect(summary.slowest.map((s) => s.sentAt)).toEqual([10_000, 9000]);
  expect(summary.incomplete).toEqual({});
});

it('checks every line of the trace file, naming the line that is wrong', () => {
  const good = JSON.stringify(sent(1, 1));
  expect(parseTrace(`${good}\n\n${JSON.stringify({ k: 'gc', at: 2, ms: 0.5, kind: 'scavenge' })}\n`)).toEqual([sent(1, 1), { k: 'gc', at: 2, ms: 0.5, kind: 'scavenge' }]);
  expect(() => parseTrace(`${good}\n{"k":"sent","at":1`)).toThrow('press trace line 2 is not JSON');
  expect(() => parseTrace(`${good}\n{"k":"sent","at":"soon","id":1}`)).toThrow('press trace line 2: at:');
  expect(() => parseTrace('{"k":"press","at":1}')).toThrow('press trace line 1: k:');
});
