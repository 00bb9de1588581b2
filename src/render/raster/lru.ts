// A Map kept in least-recently-used order, bounded by entry count and by bytes (a strip cell is several
// times a small key, and ticking clocks and hold rings add entries quickly).

export class Lru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  set(key: string, value: V): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    const bytes = this.sizeOf(value);
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      if (oldestKey === key) break; // never evict what was just added
      this.entries.delete(oldestKey);
      this.bytes -= oldest.bytes;
    }
  }
}
