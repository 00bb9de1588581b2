// The poller's memory of the commands it took, so a command the broker delivers twice (QoS 1 is "at
// least once") runs once and its duplicate gets the same answer, whichever lease term it came in. An id
// is remembered until its deadline has passed: after that no copy of it can run anyway. Its size is
// bounded by the panels' command rate limits times the deadline, not by a count.
export class RecentCommands<T> {
  private readonly entries = new Map<string, { deadline: number; result: T }>();

  /** The remembered result of `id`, or runs `run` once and remembers what it gives until `deadline`. */
  once(id: string, deadline: number, now: number, run: () => T): { result: T; duplicate: boolean } {
    const known = this.entries.get(id);
    if (known !== undefined) return { result: known.result, duplicate: true };
    this.forgetBefore(now);
    const result = run();
    this.entries.set(id, { deadline, result });
    return { result, duplicate: false };
  }

  get size(): number {
    return this.entries.size;
  }

  private forgetBefore(now: number): void {
    for (const [id, entry] of this.entries) if (entry.deadline < now) this.entries.delete(id);
  }
}
