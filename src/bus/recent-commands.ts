// The poller's memory of the commands it took, so a command the broker delivers twice (QoS 1 is "at
// least once") runs once and its duplicate gets the same answer, whichever lease term it came in. An id
// is remembered until its deadline has passed: after that no copy of it can run anyway.
//
// Only commands that may run come here (admission.ts refuses the rest first), and their deadlines are
// at most MAX_DEADLINE_AHEAD_MS ahead, so the memory holds at most the panels' command rates times that.
// Ids are kept in buckets by the second their deadline passes: forgetting is dropping the buckets that
// are over, so no message walks the whole memory. A hard cap bounds it whatever the rates: when it is
// full, a new command is not taken (the caller refuses it) rather than an old one forgotten early.

const BUCKET_MS = 1000;

export class RecentCommands<T> {
  private readonly entries = new Map<string, T>();
  /** Ids by the second their deadline falls in. */
  private readonly buckets = new Map<number, string[]>();
  private oldestBucket = Number.POSITIVE_INFINITY;

  constructor(readonly maxEntries = 20_000) {}

  /** The result remembered for `id`, if any. */
  get(id: string): T | undefined {
    return this.entries.get(id);
  }

  /**
   * The remembered result of `id`, or runs `run` once and remembers what it gives until `deadline`;
   * null (and `run` not called) when the memory is full.
   */
  once(id: string, deadline: number, now: number, run: () => T): { result: T; duplicate: boolean } | null {
    const known = this.entries.get(id);
    if (known !== undefined) return { result: known, duplicate: true };
    this.forgetBefore(now);
    if (this.entries.size >= this.maxEntries) return null;
    const result = run();
    this.entries.set(id, result);
    const bucket = Math.floor(deadline / BUCKET_MS);
    const ids = this.buckets.get(bucket);
    if (ids === undefined) this.buckets.set(bucket, [id]);
    else ids.push(id);
    this.oldestBucket = Math.min(this.oldestBucket, bucket);
    return { result, duplicate: false };
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops every bucket wholly before `now` (an id stays until the whole second after its deadline is over): at most once a second, over a dozen buckets. */
  private forgetBefore(now: number): void {
    const current = Math.floor(now / BUCKET_MS);
    if (this.oldestBucket >= current) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [bucket, ids] of this.buckets) {
      if (bucket >= current) {
        oldest = Math.min(oldest, bucket);
        continue;
      }
      for (const id of ids) this.entries.delete(id);
      this.buckets.delete(bucket);
    }
    this.oldestBucket = oldest;
  }
}
