// The one latest-wins queue of every output path: a device's writes (DeviceOutput), a session's
// renderings (PicturePainter), each web page's key images (DeckSocket). What waits is the newest content
// of each key only: a newer one takes the place in line of the one it replaces, so a burst of changes
// never queues stale content behind the current one, and what waits is bounded by the number of keys.
//
// Ways of draining it, one per kind of output, all here so that no output path keeps a queue of its own
// (test/architecture/one-home.test.ts holds it so):
// - one writer for every key, in the order first asked (a device: one link, writes never overlap);
//   the owner runs the loop, taking `next(ready)` (a key may be held, by a hand on a control);
// - one task per key in the WorkScheduler's line (renderings: work-scheduler.ts keeps a LatestWins of
//   tasks, so a newer rendering of a key takes the waiting one's place);
// - everything that waits, in one batch at the end of the turn, as page-frame work on the WorkScheduler
//   (a page's message of frames): TurnBatch (turn-batch.ts).


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

  /** Something waits for the key. */
  has(key: K): boolean {
    return this.waiting.has(key);
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
