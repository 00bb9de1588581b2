// Bench (i) --press-trace under a quota: which of the bridge's threads, and which of the main thread's
// tasks, used the quota in the stretches the kernel held the bridge for several periods in a row.
//
// Under a CFS quota the kernel holds the whole group once its threads have used a period's quota; a
// press that comes then waits for the hold (the trace's slow presses wait to be read, not for their own
// work). The bridge's average CPU was under half its quota (11 % of a core under 25 %), yet it was held in
// a third of the periods, several in a row: its work comes in lumps. To find them, the bench samples every
// thread's schedstat and the group's cpu.stat (press-trace-run.ts) about every 5 ms; here those samples
// are cut into held stretches and each stretch's CPU is split by thread, and, with a CPU profile of the
// bridge (--cpu-prof), the main thread's part of it by task.
//
// Counters: cpu.stat's nr_throttled grows once for each period in which the group was held (the kernel
// counts it at the period's end), so in a stretch of held periods it grows about every period. A stretch
// is a run of samples in which it grew, no two growths further apart than STRETCH_GAP_PERIODS periods.
// Its CPU is what the threads ran from one period before its first growth (the period whose quota ran
// out first) to its last: the quota of each held period, used by whichever threads ran in it.

/** A sample's threads: each thread's id, and its time on a CPU so far (schedstat), ms. */
export type ThreadRun = ReadonlyMap<number, number>;

/** What the lumps' analysis needs of a sample (press-trace.ts's SchedSample has it). */
export interface LumpSample {
  from: number;
  to: number;
  throttle: { throttled: number; throttledMs: number } | null;
  threads?: ThreadRun;
}

/** Two growths of nr_throttled at most this many periods apart belong to one stretch. */
export const STRETCH_GAP_PERIODS = 1.5;
/** A lump: a stretch of at least this many held periods. */
export const LUMP_PERIODS = 3;

/** The kinds of the bridge's threads, as the kernel names them (comm) and the order Node makes them. */
export type ThreadKind = 'main' | 'libvips workers' | 'V8 platform' | 'libuv pool, other';
export const THREAD_KINDS: readonly ThreadKind[] = ['main', 'libvips workers', 'V8 platform', 'libuv pool, other'];

/**
 * A thread's kind. The main thread's id is the process's; libvips names its workers; Node 20 names none
 * of its own threads ("node"), but makes V8's platform threads (a delayed-task scheduler and 4 workers:
 * the collector's helpers, the compiler) before anything else, and libuv's pool only at its first use
 * (checked on Node 20: a pbkdf2 ran on threads made after them, a scavenge-heavy loop on the first 5).
 */
export function threadKinds(pid: number, names: ReadonlyMap<number, string>): Map<number, ThreadKind> {
  const kinds = new Map<number, ThreadKind>();
  let unnamed = 0;
  for (const tid of [...names.keys()].sort((a, b) => a - b)) {
    const name = names.get(tid) ?? '';
    if (tid === pid) kinds.set(tid, 'main');
    else if (name.startsWith('libvips')) kinds.set(tid, 'libvips workers');
    else kinds.set(tid, unnamed++ < 5 ? 'V8 platform' : 'libuv pool, other');
  }
  return kinds;
}

/** The main thread's time in a window by task, from a CPU profile's samples (ms). */
export type MainTasks = (from: number, to: number) => Map<string, number>;

export interface Stretch {
  /** From the start of the period before the first growth to the last growth's sample. */
  from: number;
  to: number;
  periods: number;
  heldMs: number;
  /** CPU by thread kind in [from, to], ms. */
  cpu: Map<ThreadKind, number>;
}

export interface LumpSummary {
  /** Held stretches by their length in periods: 1, 2, 3-4, 5-9, 10+. */
  byLength: Array<{ periods: string; stretches: number; heldPeriods: number; heldMs: number }>;
  /** CPU by thread kind over the whole window, and in the lumps (stretches of LUMP_PERIODS or more), ms. */
  cpuAll: Map<ThreadKind, number>;
  cpuInLumps: Map<ThreadKind, number>;
  windowMs: number;
  lumpsMs: number;
  lumps: number;
  /** The main thread's tasks in the lumps and in the whole window (null without a profile), ms. */
  mainInLumps: Map<string, number> | null;
  mainAll: Map<string, number> | null;
  /** The largest lumps, most periods first. */
  largest: Stretch[];
}

const LENGTHS: Array<[string, number, number]> = [
  ['1', 1, 1],
  ['2', 2, 2],
  ['3-4', 3, 4],
  ['5-9', 5, 9],
  ['10+', 10, Number.POSITIVE_INFINITY],
];

function add<K>(into: Map<K, number>, from: ReadonlyMap<K, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

/** The CPU each kind ran between samples i and j (j > i), ms; a thread not in both is counted from 0 where it first shows. */
function cpuBetween(a: ThreadRun | undefined, b: ThreadRun | undefined, kinds: ReadonlyMap<number, ThreadKind>): Map<ThreadKind, number> {
  const cpu = new Map<ThreadKind, number>();
  if (a === undefined || b === undefined) return cpu;
  for (const [tid, run] of b) {
    const kind = kinds.get(tid) ?? 'libuv pool, other';
    cpu.set(kind, (cpu.get(kind) ?? 0) + Math.max(0, run - (a.get(tid) ?? 0)));
  }
  return cpu;
}

/** The held stretches of a row's samples (in time order), each with its CPU by thread kind. */
export function heldStretches(samples: readonly LumpSample[], kinds: ReadonlyMap<number, ThreadKind>, periodMs: number): Stretch[] {
  const growths: Array<{ i: number; periods: number; heldMs: number }> = [];
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]?.throttle, samples[i]?.throttle];
    if (a == null || b == null) continue;
    const periods = b.throttled - a.throttled;
    if (periods > 0) growths.push({ i, periods, heldMs: b.throttledMs - a.throttledMs });
  }
  const stretches: Array<Array<(typeof growths)[number]>> = [];
  for (const g of growths) {
    const last = stretches.at(-1);
    const previous = last?.at(-1);
    if (last !== undefined && previous !== undefined && (samples[g.i] as LumpSample).to - (samples[previous.i] as LumpSample).to <= STRETCH_GAP_PERIODS * periodMs) last.push(g);
    else stretches.push([g]);
  }
  // Each stretch's window starts no earlier than the one before it ended: no CPU is counted twice.
  let previousEnd = 0;
  return stretches.map((run) => {
    const first = run[0] as (typeof run)[number];
    const lastGrowth = run.at(-1) as (typeof run)[number];
    const end = samples[lastGrowth.i] as LumpSample;
    // The sample read a period before the first growth's: the period whose quota ran out first starts about there.
    const startAt = (samples[first.i - 1] as LumpSample).from - periodMs;
    let s = first.i - 1;
    while (s > previousEnd && (samples[s] as LumpSample).to > startAt) s--;
    previousEnd = lastGrowth.i;
    const start = samples[s] as LumpSample;
    return {
      from: start.from,
      to: end.to,
      periods: run.reduce((n, g) => n + g.periods, 0),
      heldMs: run.reduce((n, g) => n + g.heldMs, 0),
      cpu: cpuBetween(start.threads, end.threads, kinds),
    };
  });
}

export function summarizeLumps(samples: readonly LumpSample[], kinds: ReadonlyMap<number, ThreadKind>, periodMs: number, mainTasks?: MainTasks, largest = 5): LumpSummary {
  const stretches = heldStretches(samples, kinds, periodMs);
  const lumps = stretches.filter((s) => s.periods >= LUMP_PERIODS);
  const cpuInLumps = new Map<ThreadKind, number>();
  for (const l of lumps) add(cpuInLumps, l.cpu);
  const [first, last] = [samples[0], samples.at(-1)];
  const cpuAll = cpuBetween(first?.threads, last?.threads, kinds);
  let mainInLumps: Map<string, number> | null = null;
  let mainAll: Map<string, number> | null = null;
  if (mainTasks !== undefined && first !== undefined && last !== undefined) {
    mainInLumps = new Map();
    for (const l of lumps) add(mainInLumps, mainTasks(l.from, l.to));
    mainAll = mainTasks(first.from, last.to);
  }
  return {
    byLength: LENGTHS.map(([periods, min, max]) => {
      const these = stretches.filter((s) => s.periods >= min && s.periods <= max);
      return { periods, stretches: these.length, heldPeriods: these.reduce((n, s) => n + s.periods, 0), heldMs: these.reduce((n, s) => n + s.heldMs, 0) };
    }),
    cpuAll,
    cpuInLumps,
    windowMs: first !== undefined && last !== undefined ? last.to - first.from : 0,
    lumpsMs: lumps.reduce((n, l) => n + (l.to - l.from), 0),
    lumps: lumps.length,
    mainInLumps,
    mainAll,
    largest: [...lumps].sort((a, b) => b.periods - a.periods).slice(0, largest),
  };
}
