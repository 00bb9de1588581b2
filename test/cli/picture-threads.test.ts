// libvips's workers below the main thread's priority: which threads are lowered (only those libvips names
// its workers, each once, a thread gone meanwhile skipped, an id reused looked at afresh), the looks on the
// clock, and a table that cannot be read said once. The kernel's own table read for this process.
import { describe, expect, it } from 'vitest';
import { PICTURE_THREAD_NAME, PICTURE_THREAD_NICE, PICTURE_THREADS_LOOK_MS, lowerPictureThreads, procThreads, watchPictureThreads, type ThreadTable } from '../../src/cli/picture-threads.js';
import { advanceWithIo, VirtualTime } from '../support/virtual-time.js';

/** A process's threads by id and name; what was set, in order. */
function table(threads: Map<number, string>, fail?: (id: number) => Error | null): ThreadTable & { set: Array<[number, number]> } {
  const set: Array<[number, number]> = [];
  return {
    set,
    ids: async () => [...threads.keys()],
    name: async (id) => threads.get(id) ?? null,
    setNice: (id, nice) => {
      const error = fail?.(id);
      if (error) throw error;
      set.push([id, nice]);
    },
  };
}

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('picture threads', () => {
  it("lowers libvips's workers only, each once; a new worker at the next look; an id reused is looked at afresh", async () => {
    const threads = new Map([[100, 'node'], [101, 'node'], [102, PICTURE_THREAD_NAME], [103, PICTURE_THREAD_NAME]]);
    const t = table(threads);
    const lowered = new Set<number>();
    expect(await lowerPictureThreads(t, lowered)).toBe(2);
    expect(t.set).toEqual([[102, PICTURE_THREAD_NICE], [103, PICTURE_THREAD_NICE]]);
    expect(await lowerPictureThreads(t, lowered)).toBe(0);
    threads.set(104, PICTURE_THREAD_NAME);
    threads.delete(103);
    expect(await lowerPictureThreads(t, lowered)).toBe(1);
    expect([...lowered].sort()).toEqual([102, 104]);
    threads.set(103, PICTURE_THREAD_NAME); // the kernel gave the id to a new worker
    expect(await lowerPictureThreads(t, lowered)).toBe(1);
    expect(t.set.at(-1)).toEqual([103, PICTURE_THREAD_NICE]);
  });

  it('a thread gone between the listing and its change is skipped; any other failure is thrown', async () => {
    const threads = new Map([[102, PICTURE_THREAD_NAME], [103, PICTURE_THREAD_NAME]]);
    const lowered = new Set<number>();
    expect(await lowerPictureThreads(table(threads, (id) => (id === 102 ? errno('ESRCH') : null)), lowered)).toBe(1);
    expect([...lowered]).toEqual([103]);
    await expect(lowerPictureThreads(table(threads, () => errno('EPERM')), new Set())).rejects.toThrow('EPERM');
  });

  it('looks at once and every PICTURE_THREADS_LOOK_MS on the clock; a table that cannot be read is said once, then no more looks', async () => {
    const time = new VirtualTime();
    const threads = new Map([[102, PICTURE_THREAD_NAME]]);
    const t = table(threads);
    const said: string[] = [];
    const log = { info: (m: string) => void said.push(m), warn: (m: string) => void said.push(m), error: (m: string) => void said.push(m) };
    // The table answers in memory: a few turns of the loop with nothing due settle a look.
    const settled = () => true;
    const watch = watchPictureThreads(time, log, t);
    await advanceWithIo(time, 0, settled);
    expect(t.set).toEqual([[102, PICTURE_THREAD_NICE]]);
    threads.set(105, PICTURE_THREAD_NAME);
    await advanceWithIo(time, PICTURE_THREADS_LOOK_MS - 1, settled);
    expect(t.set).toHaveLength(1);
    await advanceWithIo(time, 1, settled);
    expect(t.set).toEqual([[102, PICTURE_THREAD_NICE], [105, PICTURE_THREAD_NICE]]);
    watch.stop();

    let reads = 0;
    const broken: ThreadTable = { ids: async () => (reads++, Promise.reject(errno('ENOENT'))), name: async () => null, setNice: () => undefined };
    watchPictureThreads(time, log, broken);
    await advanceWithIo(time, 0, settled);
    await advanceWithIo(time, 3 * PICTURE_THREADS_LOOK_MS, settled);
    expect(reads).toBe(1);
    expect(said).toEqual(["picture threads: not lowered (ENOENT); they keep the main thread's priority"]);
  });

  it("the kernel's table lists this process's threads and names them", async () => {
    const ids = await procThreads.ids();
    expect(ids).toContain(process.pid);
    expect(typeof (await procThreads.name(process.pid))).toBe('string');
  });
});
