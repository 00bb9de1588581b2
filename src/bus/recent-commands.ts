// The poller's memory of commands it ran, so a command the broker delivers twice (QoS 1 is "at least
// once") runs once and its duplicate gets the same answer. Bounded: the oldest ids are forgotten first;
// a duplicate arrives within moments of the first delivery, long before a thousand others.
export class RecentCommands<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly capacity = 1000) {}

  /** The remembered result of `id`, or runs `run` once and remembers what it gives. */
  once(id: string, run: () => T): { result: T; duplicate: boolean } {
    const known = this.entries.get(id);
    if (known !== undefined) return { result: known, duplicate: true };
    const result = run();
    this.entries.set(id, result);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return { result, duplicate: false };
  }

  get size(): number {
    return this.entries.size;
  }
}
