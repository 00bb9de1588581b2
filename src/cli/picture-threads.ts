// Every thread of the bridge but its main thread runs at a lower priority than the main thread, so that on
// a busy core, or under a CPU quota, a press waiting to be read goes before a helper's work: libvips's
// workers (previews' decodes, scaling), V8's platform threads (the optimizing compiler, the collector's
// concurrent marking and sweeping), libuv's pool (sharp's pipelines, file reads).
//
// bench (i) with the bridge alone on a core and no quota (docs/performance.md, "Where a press's time goes"):
// the slowest press's main thread ran 6 ms and waited 62 ms for its core around one write, with no other
// process on that core: it waited behind the bridge's own threads. First only libvips's workers were
// lowered ("libvips's workers below the main thread"). Under a quota the held stretches are the other
// threads' too (bench (i) --press-trace, "Held stretches under a quota: what runs in them"): V8's platform
// threads were 13-14 % of the bridge's CPU after a minute's run and 26-38 % of the CPU in its stretches
// of three held periods or more, the longest of them three quarters theirs: the optimizing compiler's
// jobs and the collector's concurrent marking, background work that runs as long as it has work, so it
// took every period's quota until done. A press that came then shared each period's quota with four of
// them at the same priority. Lowered, they still have every cycle the main thread does not want (it is
// idle most of the time, so the marking ends as soon), but the main thread goes first when it has work.
//
// Linux's nice is per thread (setpriority on a thread's id). New threads come later (libvips makes its
// pool at the first picture, libuv at its first use), so the bridge looks again now and then
// (HELPER_THREADS_LOOK_MS) rather than once. Only where /proc/self/task exists (Linux); elsewhere it says
// so once and stops looking.

import { readdir } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { timer } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import type { Logger } from '../engine/log.js';

/** How much lower: nice 10 gets about a tenth of the CPU of a nice-0 thread that wants it at the same time. */
export const HELPER_THREAD_NICE = 10;
/** How often the bridge looks for threads made since (ms). */
export const HELPER_THREADS_LOOK_MS = 5000;

/** The process's threads, by id: the kernel's view (procThreads), or a table in tests. */
export interface ThreadTable {
  /** The ids of the process's threads now. */
  ids(): Promise<number[]>;
  /** Sets a thread's nice value. */
  setNice(id: number, nice: number): void;
}

/**
 * Lowers every thread but the main one (`mainId`: the process's id) not lowered before (kept in
 * `lowered`); returns how many it lowered now. A thread that goes away between the listing and its change
 * is skipped; ids no longer listed are forgotten (the kernel reuses them).
 */
export async function lowerHelperThreads(table: ThreadTable, lowered: Set<number>, mainId: number): Promise<number> {
  const ids = await table.ids();
  const now = new Set(ids);
  for (const id of lowered) if (!now.has(id)) lowered.delete(id);
  let count = 0;
  for (const id of ids) {
    if (lowered.has(id) || id === mainId) continue;
    try {
      table.setNice(id, HELPER_THREAD_NICE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') continue; // gone meanwhile
      throw error;
    }
    lowered.add(id);
    count++;
  }
  return count;
}

/** The kernel's table of this process's threads (Linux: /proc/self/task). */
export const procThreads: ThreadTable = {
  ids: async () => (await readdir('/proc/self/task')).map(Number).filter((id) => Number.isInteger(id) && id > 0),
  setNice: (id, nice) => setPriority(id, nice),
};

/**
 * Looks for helper threads now and every HELPER_THREADS_LOOK_MS on `clock`, one look at a time, until
 * stopped. Where the table cannot be read (no /proc: not Linux) it says so once and looks no more.
 */
export function watchHelperThreads(clock: Clock, log: Logger, table: ThreadTable = procThreads, mainId: number = process.pid): { stop(): void } {
  const lowered = new Set<number>();
  let looking: Promise<void> | null = null;
  const look = async (): Promise<void> => {
    try {
      const count = await lowerHelperThreads(table, lowered, mainId);
      if (count > 0) log.debug?.(`helper threads: ${count} more at nice ${HELPER_THREAD_NICE} (${lowered.size} in all)`);
    } catch (error) {
      looks.unsubscribe();
      log.info(`helper threads: not lowered (${messageOf(error)}); they keep the main thread's priority`);
    }
  };
  const looks = timer(0, HELPER_THREADS_LOOK_MS, clock.scheduler).subscribe(() => void (looking ??= look().finally(() => (looking = null))));
  return { stop: () => looks.unsubscribe() };
}
