// Bench (i)'s --press-trace wired into a row (desk.ts): the Node flag and variable that load the preload
// into the bridge child, the cgroup's throttling sampled through the row, and the trace read back after
// the bridge has exited (its last lines are written as it exits) and split by press (press-trace.ts).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CpuQuotaGroup } from './cpu-quota.js';
import { parseTrace, splitPresses, summarize, type PressTraceSummary, type SplitInput, type ThrottleSample } from './press-trace.js';
import { preciseNow, sleep } from './stats.js';

const PRELOAD = new URL('./press-trace-preload.js', import.meta.url);

/** What startRunChild needs to run the bridge with the preload writing to `file`. */
export function pressTraceChild(file: string): { nodeFlags: string[]; env: Record<string, string> } {
  // Checked here: a preload not built would otherwise fail inside the child, as an exit before serving.
  if (!existsSync(fileURLToPath(PRELOAD))) throw new Error(`--press-trace: ${fileURLToPath(PRELOAD)} is not built (npm run build)`);
  return { nodeFlags: ['--import', PRELOAD.href], env: { RECDECK_PRESS_TRACE: file } };
}

/**
 * The group's cpu.stat read about every `everyMs` until `end`: each sample says between which two
 * moments its counters were read. 5 ms (half the quota's period) lets a press's hold be told from its
 * neighbours' by about a period; the reads cost the bench, not the bridge (the bench is not in the group).
 */
export async function sampleThrottling(group: CpuQuotaGroup, end: number, everyMs = 5): Promise<ThrottleSample[]> {
  const samples: ThrottleSample[] = [];
  while (preciseNow() < end + 1000) {
    const from = preciseNow();
    const t = await group.throttling();
    samples.push({ from, to: preciseNow(), throttled: t.throttled, throttledMs: t.throttledMs });
    await sleep(everyMs);
  }
  return samples;
}

/** The bridge's trace file, split by press. */
export async function readPressTrace(file: string, input: Omit<SplitInput, 'trace'>): Promise<PressTraceSummary> {
  const trace = parseTrace(await readFile(file, 'utf8'));
  return summarize(splitPresses({ ...input, trace }));
}
