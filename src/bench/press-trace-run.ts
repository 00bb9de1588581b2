// Bench (i)'s --press-trace wired into a row (desk.ts): the Node flag and variable that load the preload
// into the bridge child, the kernel's counters for the bridge (its main thread's schedstat, its cgroup's cpu.stat) sampled
// through the row, and the trace read back after
// the bridge has exited (its last lines are written as it exits) and split by press (press-trace.ts).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CpuQuotaGroup } from './cpu-quota.js';
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
function parseSchedstat(text: string): { runMs: number; waitMs: number } {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait)) throw new Error(`schedstat: expected two numbers, got ${JSON.stringify(text.slice(0, 100))}`);
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/**
 * The bridge's main thread's schedstat (its tid is the pid) and, under a quota, its group's cpu.stat,
 * read about every `everyMs` until a second past `end` (the last presses' writes): each sample says
 * between which two moments its counters were read. 5 ms (half the quota's period) tells a press's
 * waits from its neighbours' to about a period; the reads cost the bench (not in the group), not the bridge.
 */
export async function sampleScheduling(pid: number, group: CpuQuotaGroup | null, end: number, everyMs = 5): Promise<SchedSample[]> {
  const samples: SchedSample[] = [];
  const schedstat = `/proc/${pid}/task/${pid}/schedstat`;
  while (preciseNow() < end + 1000) {
    const from = preciseNow();
    const [main, t] = await Promise.all([readFile(schedstat, 'utf8').then(parseSchedstat), group?.throttling() ?? null]);
    samples.push({ from, to: preciseNow(), mainRunMs: main.runMs, mainWaitMs: main.waitMs, throttle: t === null ? null : { throttled: t.throttled, throttledMs: t.throttledMs } });
    await sleep(everyMs);
  }
  return samples;
}

/** The bridge's trace file, split by press. */
export async function readPressTrace(file: string, input: Omit<SplitInput, 'trace'>): Promise<PressTraceSummary> {
  const trace = parseTrace(await readFile(file, 'utf8'));
  return summarize(splitPresses({ ...input, trace }));
}
