// Where a press's time goes, bench (i) with --press-trace: the bridge's own stamps (written by
// press-trace-preload.ts, a preload the bench gives the bridge child only with that flag) matched to the
// bench's presses and to the writes the simulator logged, so each press's latency is split into hops:
//   bench send -> bridge read        the web deck's socket, the kernel, and the bridge's loop getting to it
//   bridge read -> request created   the bridge's handling of the input up to undici's request
//   created -> headers sent          undici's queue (a pool connection free) and the write of the request
//   headers sent -> simulator read   loopback and the simulator's own loop (a process not under the quota)
// Every stamp is performance.timeOrigin + performance.now() (the bench's preciseNow), one machine's clock
// in three processes. The lines are the wire between the preload and the bench: this schema is their one
// definition (the preload writes the type, the bench checks every line with it).
import { z } from 'zod';
import { percentile } from './stats.js';

const at = z.number().finite();

/** One JSON line of the bridge's trace. */
export const traceLine = z.discriminatedUnion('k', [
  /**
   * A web deck's input message as ws emitted it on the bridge (event-loop time), with how long its
   * handlers ran, and the main thread's event loop since the previous input message: how many times
   * perf_hooks.monitorEventLoopDelay's 10 ms timer fired (`loopTicks`; none when the loop did not turn
   * for the whole window, or the window was under 10 ms) and the most one of them came late
   * (`loopLateMaxMs`: its delay less the 10 ms; 0 without ticks). Reset at each input message.
   */
  z.object({ k: z.literal('read'), at, handledMs: z.number(), surface: z.string(), control: z.string(), input: z.string(), loopLateMaxMs: z.number(), loopTicks: z.number().int() }),
  /** undici's 'undici:request:create' for a request that is not a GET (the writes), numbered by the preload. */
  z.object({ k: z.literal('create'), at, id: z.number().int(), method: z.string(), path: z.string() }),
  /**
   * 'undici:client:sendHeaders': the request's headers written to its socket, and when that socket
   * connected ('undici:client:connected'; null if the preload did not see it connect).
   */
  z.object({ k: z.literal('sent'), at, id: z.number().int(), connectedAt: at.nullable() }),
  /** 'undici:request:headers': the answer's headers arrived. */
  z.object({ k: z.literal('answered'), at, id: z.number().int(), status: z.number().int() }),
  /** A collector pause (PerformanceObserver 'gc'): its start and length on the main thread. */
  z.object({ k: z.literal('gc'), at, ms: z.number(), kind: z.string() }),
]);
export type TraceLine = z.infer<typeof traceLine>;
type Read = Extract<TraceLine, { k: 'read' }>;
type Gc = Extract<TraceLine, { k: 'gc' }>;

/** The trace file's lines, each checked; a line that is not one is an error naming its number. */
export function parseTrace(text: string): TraceLine[] {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`press trace line ${i + 1} is not JSON: ${JSON.stringify(line.slice(0, 120))}`);
    }
    const parsed = traceLine.safeParse(json);
    if (!parsed.success) throw new Error(`press trace line ${i + 1}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'line'}: ${issue.message}`).join('; ')}`);
    return [parsed.data];
  });
}

/**
 * The kernel's counters for the bridge, read by the bench somewhere between `from` and `to`: its main
 * thread's /proc/PID/task/PID/schedstat (time on a CPU; time runnable but waiting for one, whether
 * behind other processes or held by the quota) and, under a quota, its cgroup's cpu.stat.
 */
export interface SchedSample {
  from: number;
  to: number;
  mainRunMs: number;
  mainWaitMs: number;
  /** Null without a quota. */
  throttle: { throttled: number; throttledMs: number } | null;
  /** Every thread's time on a CPU (schedstat), ms by thread id (press-lumps.ts); absent where not read. */
  threads?: ReadonlyMap<number, number>;
}

/** The bridge's event loop between two input messages it read. */
export interface LoopWindow {
  windowMs: number;
  ticks: number;
  lateMaxMs: number;
}

export interface PressSplit {
  channel: number;
  /** The bench's stamp as it sent the release. */
  sentAt: number;
  /** The bridge's stamps; null where the press's chain stopped (or its stamp was not in the trace). */
  readAt: number | null;
  createdAt: number | null;
  headersSentAt: number | null;
  /** The simulator's receivedAt of the write. */
  receivedAt: number | null;
  /** How long the input message's handlers ran, synchronously, at the read. */
  handledMs: number | null;
  /**
   * The bridge's event loop from the input message before this one (the key's down, which the bench
   * sent 40 ms before the release) to this read: a window much shorter than 40 ms with no ticks says
   * the bridge read the down and the release together, late.
   */
  loopBefore: LoopWindow | null;
  /** ... and from this read to the next input message (the time in which the press was handled). */
  loopAfter: LoopWindow | null;
  /** Collector pauses that overlapped the press (from the bench's send to the write's arrival, or to the last stamp known). */
  gc: Array<{ at: number; ms: number; kind: string }>;
  /** The write's socket connected after the request was created: it waited for a new connection. */
  newConnection: boolean;
  /** What the kernel's counters say of a window holding the press (schedDuring); null without samples around it. */
  sched: Sched | null;
  /** The same for each hop (HOPS' order) with both its stamps. */
  schedByHop: Array<Sched | null>;
}

/**
 * The kernel's counters over a window of samples. The kernel adds a wait to the counters when it ends
 * (the thread gets a CPU, the group is let run), each whole: a window counts the waits that ended in it,
 * some of which began before it, so a short window can count more than its length. The group's held time
 * is also summed over the CPUs its threads were queued on (up to twice the window on this machine).
 */
export interface Sched {
  windowMs: number;
  /** The main thread's time on a CPU. */
  runMs: number;
  /** The main thread's time runnable but waiting for a CPU (other processes, or the quota). */
  waitMs: number;
  /** The cgroup's throttled time and periods (cpu.stat); null without a quota. */
  heldMs: number | null;
  periods: number | null;
}

/** The hops, in the order of the path; each is the difference of two consecutive stamps. */
export const HOPS = [
  ['bench send -> bridge read', 'sentAt', 'readAt'],
  ['bridge read -> request created', 'readAt', 'createdAt'],
  ['created -> headers sent', 'createdAt', 'headersSentAt'],
  ['headers sent -> simulator received', 'headersSentAt', 'receivedAt'],
] as const satisfies ReadonlyArray<readonly [string, keyof PressSplit, keyof PressSplit]>;

type Stamp = 'sentAt' | 'readAt' | 'createdAt' | 'headersSentAt' | 'receivedAt';
const hop = (split: PressSplit, from: Stamp, to: Stamp): number | null => {
  const a = split[from];
  const b = split[to];
  return a === null || b === null ? null : b - a;
};

/** A press's hops in ms (null where a stamp is missing) and the whole, bench send -> simulator received. */
export function hopsOf(split: PressSplit): { hops: Array<number | null>; whole: number | null } {
  return { hops: HOPS.map(([, from, to]) => hop(split, from, to)), whole: hop(split, 'sentAt', 'receivedAt') };
}

/** The loop between two input messages, as the later one's stamp tells it. */
const loopWindow = (from: Read, to: Read): LoopWindow => ({ windowMs: to.at - from.at, ticks: to.loopTicks, lateMaxMs: to.loopLateMaxMs });

/** For each of `later` (in time order), the latest of `earlier` on its channel stamped before it (within `slackMs`) that none before claimed; -1 if none. */
function claimLatestEarlier(earlier: ReadonlyArray<{ channel: number; at: number }>, later: ReadonlyArray<{ channel: number; at: number }>, slackMs: number): number[] {
  const claimed = new Set<number>();
  return later.map((item) => {
    let found = -1;
    earlier.forEach((e, i) => {
      if (e.channel === item.channel && e.at <= item.at + slackMs && !claimed.has(i)) found = i;
    });
    if (found >= 0) claimed.add(found);
    return found;
  });
}

export interface SplitInput {
  /** The bench's presses in the order sent (desk-match's SentPress). */
  presses: ReadonlyArray<{ channel: number; at: number }>;
  trace: readonly TraceLine[];
  /** The writes as the simulator logged them, in arrival order (desk-match's writesOf). */
  writes: ReadonlyArray<{ channel: number; receivedAt: number }>;
  /** The deck pressed, and its control for a channel (`key0` for channel 0). */
  surface: string;
  controlOf: (channel: number) => string;
  /** The write's method and path for a channel (PUT /api/channels/0/rec-start). */
  method: string;
  pathOf: (channel: number) => string;
  sched?: readonly SchedSample[];
  /** How far apart the processes' clocks may be taken (their timeOrigins). */
  slackMs?: number;
}

export interface PressSplits {
  /** One per press, in the order pressed. */
  splits: PressSplit[];
  /** Stamps of the chain no press explains (a release read that no press sent, a write no request explains). */
  unexplained: number;
}

/**
 * Matches the stamps to the presses, hop by hop, by channel and order: the bridge reads a socket's
 * messages in the order sent and loses none, so the n-th release read on a channel is the n-th press on
 * it; a request belongs to the latest release read on its channel before it that no request claimed (as
 * desk-match.ts gives a write to a press); 'sent' to its request by undici's request (the preload's id);
 * a write at the simulator to the latest headers sent on its channel before it not yet claimed.
 */
export function splitPresses(input: SplitInput): PressSplits {
  const slack = input.slackMs ?? 1;
  const channelOfControl = new Map(input.presses.map((p) => [input.controlOf(p.channel), p.channel]));
  const channelOfPath = new Map(input.presses.map((p) => [input.pathOf(p.channel), p.channel]));
  const inputs = input.trace.filter((l): l is Read => l.k === 'read');
  const releases = inputs.flatMap((l, index) => {
    const channel = l.surface === input.surface && l.input === 'up' ? channelOfControl.get(l.control) : undefined;
    return channel === undefined ? [] : [{ channel, at: l.at, line: l, previous: inputs[index - 1], next: inputs[index + 1] }];
  });
  const creates = input.trace.flatMap((l) => {
    const channel = l.k === 'create' && l.method === input.method ? channelOfPath.get(l.path) : undefined;
    return channel === undefined || l.k !== 'create' ? [] : [{ channel, at: l.at, id: l.id }];
  });
  const sentById = new Map(input.trace.flatMap((l) => (l.k === 'sent' ? [[l.id, l] as const] : [])));
  const gcs = input.trace.filter((l): l is Gc => l.k === 'gc');
  let unexplained = 0;

  // Reads by order on each channel.
  const readOf = new Map<number, (typeof releases)[number]>();
  const byChannel = new Map<number, number[]>();
  input.presses.forEach((p, i) => byChannel.set(p.channel, [...(byChannel.get(p.channel) ?? []), i]));
  const seen = new Map<number, number>();
  for (const release of releases) {
    const n = seen.get(release.channel) ?? 0;
    seen.set(release.channel, n + 1);
    const press = byChannel.get(release.channel)?.[n];
    if (press === undefined) unexplained++;
    else readOf.set(press, release);
  }
  const readIndex = new Map([...readOf].map(([press, release]) => [release, press]));
  const createReads = claimLatestEarlier(releases, creates, slack);
  const createOf = new Map<number, (typeof creates)[number]>();
  createReads.forEach((r, i) => {
    const press = r < 0 ? undefined : readIndex.get(releases[r] as (typeof releases)[number]);
    if (press === undefined) unexplained++;
    else createOf.set(press, creates[i] as (typeof creates)[number]);
  });
  const sents = [...createOf].flatMap(([press, create]) => {
    const sent = sentById.get(create.id);
    return sent === undefined ? [] : [{ channel: create.channel, at: sent.at, press }];
  });
  sents.sort((a, b) => a.at - b.at);
  const writes = input.writes.map((w) => ({ channel: w.channel, at: w.receivedAt }));
  const receivedOf = new Map<number, number>();
  claimLatestEarlier(sents, writes, slack).forEach((s, i) => {
    if (s < 0) unexplained++;
    else receivedOf.set((sents[s] as (typeof sents)[number]).press, (writes[i] as (typeof writes)[number]).at);
  });

  const samples = input.sched;
  const splits = input.presses.map((press, i): PressSplit => {
    const read = readOf.get(i);
    const create = createOf.get(i);
    const sent = create === undefined ? undefined : sentById.get(create.id);
    const stamps = { sentAt: press.at, readAt: read?.at ?? null, createdAt: create?.at ?? null, headersSentAt: sent?.at ?? null, receivedAt: receivedOf.get(i) ?? null };
    // The press ends at its write's arrival, or at the last stamp it has.
    const end = stamps.receivedAt ?? stamps.headersSentAt ?? stamps.createdAt ?? stamps.readAt ?? press.at;
    return {
      channel: press.channel,
      ...stamps,
      handledMs: read?.line.handledMs ?? null,
      loopBefore: read?.previous === undefined ? null : loopWindow(read.previous, read.line),
      loopAfter: read?.next === undefined ? null : loopWindow(read.line, read.next),
      gc: gcs.filter((g) => g.at < end && g.at + g.ms > press.at).map(({ at, ms, kind }) => ({ at, ms, kind })),
      newConnection: create !== undefined && sent?.connectedAt != null && sent.connectedAt >= create.at,
      sched: samples === undefined ? null : schedDuring(samples, press.at, end),
      schedByHop: HOPS.map(([, from, to]) => {
        const [a, b] = [stamps[from], stamps[to]];
        return samples === undefined || a === null || b === null ? null : schedDuring(samples, a, b);
      }),
    };
  });
  return { splits, unexplained };
}

/**
 * The counters' change between `a` and `b`, as far as the samples can say: from the last sample read
 * wholly before `a` to the first read wholly after `b`. That covers the window and its edges
 * (`windowMs`, from the first read's start to the second's end), as close as the samples are together.
 */
export function schedDuring(samples: readonly SchedSample[], a: number, b: number): Sched | null {
  const before = samples.filter((s) => s.to <= a).at(-1);
  const after = samples.find((s) => s.from >= b);
  if (before === undefined || after === undefined) return null;
  const held = before.throttle !== null && after.throttle !== null ? { ms: after.throttle.throttledMs - before.throttle.throttledMs, periods: after.throttle.throttled - before.throttle.throttled } : null;
  return { windowMs: after.to - before.from, runMs: after.mainRunMs - before.mainRunMs, waitMs: after.mainWaitMs - before.mainWaitMs, heldMs: held?.ms ?? null, periods: held?.periods ?? null };
}

export interface HopSummary {
  hop: string;
  /** Presses with both stamps of the hop. */
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface PressTraceSummary {
  /** Each hop's p50/p95/p99 over the presses that have it, then the whole. */
  hops: HopSummary[];
  /** Presses whose chain stopped before the simulator, by the stamp missing first. */
  incomplete: Record<string, number>;
  unexplained: number;
  /** The slowest presses (by the whole), slowest first. */
  slowest: PressSplit[];
}

export function summarize(result: PressSplits, slowest = 5): PressTraceSummary {
  const per = result.splits.map(hopsOf);
  const row = (name: string, values: Array<number | null>): HopSummary => {
    const known = values.filter((v): v is number => v !== null);
    return { hop: name, n: known.length, p50: percentile(known, 50), p95: percentile(known, 95), p99: percentile(known, 99) };
  };
  const hops = [
    ...HOPS.map(([name], i) => row(name, per.map((p) => p.hops[i] ?? null))),
    row('whole: bench send -> simulator received', per.map((p) => p.whole)),
  ];
  const incomplete: Record<string, number> = {};
  for (const split of result.splits) {
    const missing = (['readAt', 'createdAt', 'headersSentAt', 'receivedAt'] as const).find((s) => split[s] === null);
    if (missing !== undefined) incomplete[`no ${missing}`] = (incomplete[`no ${missing}`] ?? 0) + 1;
  }
  const complete = result.splits.filter((s) => s.receivedAt !== null);
  const slow = [...complete].sort((a, b) => (hopsOf(b).whole ?? 0) - (hopsOf(a).whole ?? 0)).slice(0, slowest);
  return { hops, incomplete, unexplained: result.unexplained, slowest: slow };
}
