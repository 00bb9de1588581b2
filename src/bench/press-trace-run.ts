// Bench (i)'s --press-trace wired into a row (desk.ts): the Node flag and variable that load the preload
// into the bridge child, the kernel's counters for the bridge (its main thread's schedstat, its cgroup's cpu.stat) sampled
// through the row, and the trace read back after
// the bridge has exited (its last lines are written as it exits) and split by press (press-trace.ts).
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CpuQuotaGroup } from './cpu-quota.js';
import type { MainTasks } from './press-lumps.js';
import { taskSamples, type CpuProfile } from './profile-top.js';
import { parseTrace, splitPresses, summarize, type PressTraceSummary, type SplitInput, type SchedSample } from './press-trace.js';
import { preciseNow, sleep } from './stats.js';

const PRELOAD = new URL('./press-trace-preload.js', import.meta.url);

/** What startRunChild needs to run the bridge with the preload writing to `file`. */
export function pressTraceChild(file: string): { nodeFlags: string[]; env: Record<string, string> } {
  // Checked here: a preload not built would otherwise fail inside the child, as an exit before serving.
  if (!existsSync(fileURLToPath(PRELOAD))) throw new Error(`--press-trace: ${fileURLToPath(PRELOAD)} is not built (npm run build)`);
  return { nodeFlags: ['--import', PRELOAD.href], env: { RECDECK_PRESS_TRACE: file } };
}

/** /proc/PID/task/TID/schedstat: ns on a CPU, ns runnable waiting for one, timeslices. */
export function parseSchedstat(text: string): { runMs: number; waitMs: number } {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait)) throw new Error(`schedstat: expected two numbers, got ${JSON.stringify(text.slice(0, 100))}`);
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** What sampleScheduling read: the samples, and the name (comm) of every thread seen in them. */
export interface SchedSamples {
  samples: SchedSample[];
  threadNames: Map<number, string>;
}

/**
 * The bridge's threads' schedstat (the main thread's id is the pid) and, under a quota, its group's
 * cpu.stat, read about every `everyMs` until a second past `end` (the last presses' writes): each sample
 * says between which two moments its counters were read. 5 ms (half the quota's period) tells a press's
 * waits from its neighbours' to about a period, and a held stretch's periods apart (press-lumps.ts); the
 * reads (about 20 threads' files a sample) cost the bench (not in the group), not the bridge.
 */
export async function sampleScheduling(pid: number, group: CpuQuotaGroup | null, end: number, everyMs = 5): Promise<SchedSamples> {
  const samples: SchedSample[] = [];
  const threadNames = new Map<number, string>();
  const tasks = `/proc/${pid}/task`;
  // A thread that ends between the listing and its read is left out of that sample (its CPU is then not counted after).
  const threadRun = async (tid: number): Promise<[number, number] | null> => {
    try {
      if (!threadNames.has(tid)) threadNames.set(tid, (await readFile(`${tasks}/${tid}/comm`, 'utf8')).trim());
      return [tid, parseSchedstat(await readFile(`${tasks}/${tid}/schedstat`, 'utf8')).runMs];
    } catch {
      return null;
    }
  };
  while (preciseNow() < end + 1000) {
    const from = preciseNow();
    const [main, t, threads] = await Promise.all([
      readFile(`${tasks}/${pid}/schedstat`, 'utf8').then(parseSchedstat),
      group?.throttling() ?? null,
      readdir(tasks).then((ids) => Promise.all(ids.map((id) => threadRun(Number(id))))),
    ]);
    samples.push({
      from,
      to: preciseNow(),
      mainRunMs: main.runMs,
      mainWaitMs: main.waitMs,
      throttle: t === null ? null : { throttled: t.throttled, throttledMs: t.throttledMs },
      threads: new Map(threads.filter((x): x is [number, number] => x !== null)),
    });
    await sleep(everyMs);
  }
  return { samples, threadNames };
}

/**
 * A CPU profile's main-thread tasks (profile-top.ts's taskSamples) as press-lumps.ts asks for them, in the
 * bench's time: the profile's clock is CLOCK_MONOTONIC (process.hrtime's), the bench's preciseNow is
 * performance.timeOrigin + performance.now(), whose difference is read here once (both in this process).
 */
export async function profileTasks(file: string): Promise<MainTasks> {
  const offsetMs = preciseNow() - Number(process.hrtime.bigint()) / 1e6;
  const samples = taskSamples(JSON.parse(await readFile(file, 'utf8')) as CpuProfile).map((s) => ({ ...s, atMs: s.atMs + offsetMs }));
  return (from, to) => {
    const byTask = new Map<string, number>();
    for (const s of samples) if (s.atMs >= from && s.atMs < to) byTask.set(s.task, (byTask.get(s.task) ?? 0) + s.ms);
    return byTask;
  };
}

/** The bridge's trace file, split by press. */
export async function readPressTrace(file: string, input: Omit<SplitInput, 'trace'>): Promise<PressTraceSummary> {
  const trace = parseTrace(await readFile(file, 'utf8'));
  return summarize(splitPresses({ ...input, trace }));
}
