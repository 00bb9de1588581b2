// Every thread of the bridge but its main thread below the main thread's priority: which threads are
// lowered (all but the main one, each once, a thread gone meanwhile skipped, an id reused looked at
// afresh), the looks on the clock, and a table that cannot be read said once. The kernel's own table read
// for this process.
import { describe, expect, it } from 'vitest';
import { HELPER_THREAD_NICE, HELPER_THREADS_LOOK_MS, lowerHelperThreads, procThreads, watchHelperThreads, type ThreadTable } from '../../src/cli/picture-threads.js';
import { advanceWithIo, VirtualTime } from '../support/virtual-time.js';

const MAIN = 100;

/** A process's threads by id; what was set, in order. */
function table(threads: Set<number>, fail?: (id: number) => Error | null): ThreadTable & { set: Array<[number, number]> } {
  const set: Array<[number, number]> = [];
  return {
    set,
    ids: async () => [...threads],
    setNice: (id, nice) => {
      const error = fail?.(id);
      if (error) throw error;
      set.push([id, nice]);
    },
  };
}

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('helper threads', () => {
  it('lowers every thread but the main one, each once; a new thread at the next look; an id reused is looked at afresh', async () => {
    const threads = new Set([MAIN, 101, 102, 103]);
    const t = table(threads);
    const lowered = new Set<number>();
    expect(await lowerHelperThreads(t, lowered, MAIN)).toBe(3);
    expect(t.set).toEqual([[101, HELPER_THREAD_NICE], [102, HELPER_THREAD_NICE], [103, HELPER_THREAD_NICE]]);
    expect(await lowerHelperThreads(t, lowered, MAIN)).toBe(0);
    threads.add(104);
    threads.delete(103);
    expect(await lowerHelperThreads(t, lowered, MAIN)).toBe(1);
    expect([...lowered].sort()).toEqual([101, 102, 104]);
    threads.add(103); // the kernel gave the id to a new thread
    expect(await lowerHelperThreads(t, lowered, MAIN)).toBe(1);
    expect(t.set.at(-1)).toEqual([103, HELPER_THREAD_NICE]);
    expect(t.set.some(([id]) => id === MAIN)).toBe(false);
  });

  it('a thread gone between the listing and its change is skipped; any other failure is thrown', async () => {
    const threads = new Set([102, 103]);
    const lowered = new Set<number>();
    expect(await lowerHelperThreads(table(threads, (id) => (id === 102 ? errno('ESRCH') : null)), lowered, MAIN)).toBe(1);
    expect([...lowered]).toEqual([103]);
    await expect(lowerHelperThreads(table(threads, () => errno('EPERM')), new Set(), MAIN)).rejects.toThrow('EPERM');
  });

  it('looks at once and every HELPER_THREADS_LOOK_MS on the clock; a table that cannot be read is said once, then no more looks', async () => {
    const time = new VirtualTime();
    const threads = new Set([MAIN, 102]);
    const t = table(threads);
    const said: string[] = [];
    const log = { info: (m: string) => void said.push(m), warn: (m: string) => void said.push(m), error: (m: string) => void said.push(m) };
    // The table answers in memory: a few turns of the loop with nothing due settle a look.
    const settled = () => true;
    const watch = watchHelperThreads(time, log, t, MAIN);
    await advanceWithIo(time, 0, settled);
    expect(t.set).toEqual([[102, HELPER_THREAD_NICE]]);
    threads.add(105);
    await advanceWithIo(time, HELPER_THREADS_LOOK_MS - 1, settled);
    expect(t.set).toHaveLength(1);
    await advanceWithIo(time, 1, settled);
    expect(t.set).toEqual([[102, HELPER_THREAD_NICE], [105, HELPER_THREAD_NICE]]);
    watch.stop();

    let reads = 0;
    const broken: ThreadTable = { ids: async () => (reads++, Promise.reject(errno('ENOENT'))), setNice: () => undefined };
    watchHelperThreads(time, log, broken, MAIN);
    await advanceWithIo(time, 0, settled);
    await advanceWithIo(time, 3 * HELPER_THREADS_LOOK_MS, settled);
    expect(reads).toBe(1);
    expect(said).toEqual(["helper threads: not lowered (ENOENT); they keep the main thread's priority"]);
  });

  it("the kernel's table lists this process's threads, the main one among them", async () => {
    const ids = await procThreads.ids();
    expect(ids).toContain(process.pid);
    expect(ids.length).toBeGreaterThan(1);
  });
});
