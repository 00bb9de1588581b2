// The threads that decode and scale pictures (libvips's workers, under sharp) run at a lower priority than
// the bridge's main thread, so that on a busy core a press waiting to be read goes before a preview's decode.
//
// bench (i) with the bridge alone on a core and no quota (docs/performance.md, "Where a press's time goes"):
// the slowest press's main thread ran 6 ms and waited 62 ms for its core around one write, with no other
// process on that core: it waited behind the bridge's own threads, of which libvips's workers decode about
// ten previews a second. Linux's nice is per thread (setpriority on a thread's id), and libvips names its
// workers, so they can be told apart from V8's and libuv's threads (unnamed in Node 20), which are left as
// they are: V8's concurrent marking slowed down would leave more of a collection to the main thread.
//
// libvips makes its workers when a picture first needs them and keeps them (a pool), so the bridge looks
// for new ones now and then (PICTURE_THREADS_LOOK_MS) rather than once. Only where /proc/self/task exists
// (Linux); elsewhere it says so once and stops looking.

import { readdir } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { timer } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import type { Logger } from '../engine/log.js';
import { readSmallFile } from './small-file.js';

/** How much lower: nice 10 gets about a tenth of the CPU of a nice-0 thread that wants it at the same time. */
export const PICTURE_THREAD_NICE = 10;
/** libvips's name for its workers, as /proc/self/task/TID/comm shows it. */
export const PICTURE_THREAD_NAME = 'libvips worker';
/** A thread's name is at most 15 bytes and a newline (the kernel's TASK_COMM_LEN); more is not a name. */
const THREAD_NAME_MAX_BYTES = 64;
/** How often the bridge looks for workers libvips made since (ms). */
export const PICTURE_THREADS_LOOK_MS = 5000;

/** The process's threads, by id: the kernel's view (procThreads), or a table in tests. */
export interface ThreadTable {
  /** The ids of the process's threads now. */
  ids(): Promise<number[]>;
  /** A thread's name, or null when it is gone. */
  name(id: number): Promise<string | null>;
  /** Sets a thread's nice value. */
  setNice(id: number, nice: number): void;
}

/**
 * Lowers every picture thread not lowered before (kept in `lowered`); returns how many it lowered now. A
 * thread that goes away between the listing and its change is skipped; ids no longer listed are forgotten
 * (the kernel reuses them).
 */
export async function lowerPictureThreads(table: ThreadTable, lowered: Set<number>): Promise<number> {
  const ids = await table.ids();
  const now = new Set(ids);
  for (const id of lowered) if (!now.has(id)) lowered.delete(id);
  let count = 0;
  for (const id of ids) {
    if (lowered.has(id)) continue;
    if ((await table.name(id)) !== PICTURE_THREAD_NAME) continue;
    try {
      table.setNice(id, PICTURE_THREAD_NICE);
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
  name: async (id) => {
    try {
      return (await readSmallFile(`/proc/self/task/${id}/comm`, THREAD_NAME_MAX_BYTES)).trim();
    } catch {
      return null; // gone meanwhile
    }
  },
  setNice: (id, nice) => setPriority(id, nice),
};

/**
 * Looks for picture threads now and every PICTURE_THREADS_LOOK_MS on `clock`, one look at a time, until
 * stopped. Where the table cannot be read (no /proc: not Linux) it says so once and looks no more.
 */
export function watchPictureThreads(clock: Clock, log: Logger, table: ThreadTable = procThreads): { stop(): void } {
  const lowered = new Set<number>();
  let looking: Promise<void> | null = null;
  const look = async (): Promise<void> => {
    try {
      const count = await lowerPictureThreads(table, lowered);
      if (count > 0) log.debug?.(`picture threads: ${count} more of libvips's workers at nice ${PICTURE_THREAD_NICE} (${lowered.size} in all)`);
    } catch (error) {
      looks.unsubscribe();
      log.info(`picture threads: not lowered (${messageOf(error)}); they keep the main thread's priority`);
    }
  };
  const looks = timer(0, PICTURE_THREADS_LOOK_MS, clock.scheduler).subscribe(() => void (looking ??= look().finally(() => (looking = null))));
  return { stop: () => looks.unsubscribe() };
}
