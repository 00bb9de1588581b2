// One job at a time per control with latest-wins (the session's renderings): while a picture is being
// rendered, a newer one replaces any still waiting, so a burst of changes never queues up stale pictures
// behind the current one. Controls do not wait for each other; the device's one writer is DeviceOutput.

export class LatestWinsQueue<T> {
  private readonly pending = new Map<string, T>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly write: (id: string, item: T) => Promise<void>,
    private readonly onError: (id: string, error: unknown) => void,
  ) {}

  push(id: string, item: T): void {
    this.pending.set(id, item);
    if (!this.busy.has(id)) void this.drain(id);
  }

  /** Nothing waiting and nothing being written. */
  get idle(): boolean {
    return this.pending.size === 0 && this.busy.size === 0;
  }

  clear(): void {
    this.pending.clear();
  }

  private async drain(id: string): Promise<void> {
    this.busy.add(id);
    try {
      for (let item = this.take(id); item !== undefined; item = this.take(id)) {
        try {
          await this.write(id, item);
        } catch (error) {
          this.onError(id, error);
        }
      }
    } finally {
      this.busy.delete(id);
    }
  }

  private take(id: string): T | undefined {
    const item = this.pending.get(id);
    this.pending.delete(id);
    return item;
  }
}
