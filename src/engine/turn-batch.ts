// A page's key images leave in batches: what one turn draws goes in one message, as page-frame work on
// the WorkScheduler (the least urgent), through the one latest-wins queue (latest-wins.ts).
import { LatestWins } from './latest-wins.js';
import type { Slice, WorkScheduler } from './work-scheduler.js';

/**
 * What comes in one turn leaves together: the first item puts a flush in the WorkScheduler's line, at
 * the end of the turn (page frames: the least urgent work), which is handed everything that waits by
 * then. A flush takes what it can: all of it, the first part (its slice's budget is spent: the rest goes
 * in the next slice, behind any more urgent work), or nothing (`hold`: the link cannot take them now;
 * they go with the next flush asked for by schedule(), the newest of each).
 */
export class TurnBatch<K, T> {
  private readonly line: LatestWins<K, T>;
  private scheduled = false;

  constructor(
    private readonly work: WorkScheduler,
    /** The batch's place in the scheduler's line (unique among the scheduler's users). */
    private readonly key: string,
    /** Handed what waits, in line order; returns how many it took from the front (0: hold them all). */
    private readonly flush: (items: ReadonlyArray<[K, T]>, slice: Slice) => number,
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
    if (this.scheduled || this.line.size === 0) return;
    this.scheduled = true;
    this.work.post(
      'frames',
      this.key,
      (slice) => {
        this.scheduled = false;
        this.flushNow(slice);
      },
      true,
    );
  }

  get waiting(): number {
    return this.line.size;
  }

  /** Drops what waits and the flush asked for it. */
  clear(): void {
    this.line.clear();
    this.work.cancel(this.key);
    this.scheduled = false;
  }

  private flushNow(slice: Slice): void {
    if (this.line.size === 0) return;
    const items = this.line.takeAll();
    const taken = this.flush(items, slice);
    if (taken >= items.length) return;
    // Not taken: put back, in their order, under anything newer that came during the flush.
    const newer = this.line.takeAll();
    for (const [key, item] of items.slice(taken)) this.line.put(key, item);
    for (const [key, item] of newer) this.line.put(key, item);
    // Part taken (the slice ran out): the rest goes in the next slice. Held: when schedule() is called.
    if (taken > 0) this.schedule();
  }
}
