// The one latest-wins queue of every output path: a device's writes (DeviceOutput), a session's
// renderings (PicturePainter), each web page's key images (DeckSocket). What waits is the newest content
// of each key only: a newer one takes the place in line of the one it replaces, so a burst of changes
// never queues stale content behind the current one, and what waits is bounded by the number of keys.
//
// Three ways of draining it, one per kind of output, all here so that no output path keeps a queue of
// its own (test/architecture/one-home.test.ts holds it so):
// - one writer for every key, in the order first asked (a device: one link, writes never overlap);
//   the owner runs the loop, taking `next(ready)` (a key may be held, by a hand on a control);
// - one writer per key, keys never waiting for each other (renderings): PerKeyWriter;
// - everything that waits, in one batch at the end of the turn, on the injected clock (a page's
//   message of frames): TurnBatch.

import type { Subscription } from 'rxjs';
import type { EngineTime } from './engine-time.js';

export class LatestWins<K, T> {
  /** In the order first asked for (a Map keeps insertion order; a replaced value keeps its place). */
  private readonly waiting = new Map<K, T>();

  /**
   * @param merge How a newer item replaces one still waiting for its key (default: it is simply the
   *   newer one). A page's image keeps the image the page shows as its base, for instance.
   */
  constructor(private readonly merge: (waiting: T, newer: T) => T = (_waiting, newer) => newer) {}

  /** The newest content for a key: replaces what waits for it, in its place in line, or joins the line. */
  put(key: K, item: T): void {
    const waiting = this.waiting.get(key);
    this.waiting.set(key, waiting === undefined ? item : this.merge(waiting, item));
  }

  /** The first key in line that is ready (default: any), left in line; null when none is. */
  next(ready: (key: K) => boolean = () => true): K | null {
    for (const key of this.waiting.keys()) if (ready(key)) return key;
    return null;
  }

  /** What waits for a key, taken out of the line. */
  take(key: K): T | undefined {
    const item = this.waiting.get(key);
    this.waiting.delete(key);
    return item;
  }

  /** Everything that waits, in line order, taken out of the line. */
  takeAll(): Array<[K, T]> {
    const all = [...this.waiting];
    this.waiting.clear();
    return all;
  }

  /** Drops what waits for a key (the device shows it already). */
  drop(key: K): void {
    this.waiting.delete(key);
  }

  /** Drops everything that waits. */
  clear(): void {
    this.waiting.clear();
  }

  get size(): number {
    return this.waiting.size;
  }
}

/** One write at a time per key, the newest item replacing one still waiting; keys do not wait for each other. */
export class PerKeyWriter<K, T> {
  private readonly line = new LatestWins<K, T>();
  private readonly busy = new Set<K>();

  constructor(
    private readonly write: (key: K, item: T) => Promise<void>,
    private readonly onError: (key: K, error: unknown) => void,
  ) {}

  push(key: K, item: T): void {
    this.line.put(key, item);
    if (!this.busy.has(key)) void this.drain(key);
  }

  /** Nothing waiting and nothing being written. */
  get idle(): boolean {
    return this.line.size === 0 && this.busy.size === 0;
  }

  /** Drops what waits (a write under way finishes). */
  clear(): void {
    this.line.clear();
  }

  private async drain(key: K): Promise<void> {
    this.busy.add(key);
    try {
      for (let item = this.line.take(key); item !== undefined; item = this.line.take(key)) {
        try {
          await this.write(key, item);
        } catch (error) {
          this.onError(key, error);
        }
      }
    } finally {
      this.busy.delete(key);
    }
  }
}

/**
 * What comes in one turn leaves together: the first item schedules a flush at the end of the turn (a
 * zero delay on the injected clock), which is handed everything that waits by then. A flush may keep
 * items waiting (`hold`: the link cannot take them now); they go with the next flush, the newest of each.
 */
export class TurnBatch<K, T> {
  private readonly line: LatestWins<K, T>;
  private scheduled: Subscription | null = null;

  constructor(
    private readonly time: EngineTime,
    /** Handed what waits, in line order; returns false to keep it all waiting for the next flush. */
    private readonly flush: (items: ReadonlyArray<[K, T]>) => boolean,
    merge?: (waiting: T, newer: T) => T,
  ) {
    this.line = new LatestWins(merge);
  }

  push(key: K, item: T): void {
    this.line.put(key, item);
    this.schedule();
  }

  /** Flushes at the end of this turn what waits (after a hold, once the link can take it). */
  schedule(): void {
    if (this.scheduled !== null || this.line.size === 0) return;
    this.scheduled = this.time.scheduler.schedule(() => {
      this.scheduled = null;
      this.flushNow();
    }, 0);
  }

  get waiting(): number {
    return this.line.size;
  }

  /** Drops what waits and the flush scheduled for it. */
  clear(): void {
    this.line.clear();
    this.scheduled?.unsubscribe();
    this.scheduled = null;
  }

  private flushNow(): void {
    if (this.line.size === 0) return;
    const items = this.line.takeAll();
    if (this.flush(items)) return;
    // Held: put back, in their order, under anything newer that came during the flush.
    const newer = this.line.takeAll();
    for (const [key, item] of items) this.line.put(key, item);
    for (const [key, item] of newer) this.line.put(key, item);
  }
}
