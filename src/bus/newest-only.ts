// A panel believes a signed message only if it is newer (its signed time) than the last it believed on
// the same topic from the same sender. A copy (a retained message again after a reconnect) says nothing
// new; an older one is a replay: a dead poller's last messages replayed cannot keep its recorder from
// going stale and offline, nor its alarms from ageing. One record for every kind of message a panel
// follows (state, health, lease, alarms).
export class NewestOnly {
  /** The newest signed time believed per topic and sender. */
  private readonly newest = new Map<string, number>();

  /** `say` tells of a replay (an older message), never of a copy. */
  constructor(private readonly say: (message: string) => void) {}

  /** Whether the message is newer than the last believed on its topic from its sender; remembers it if so. */
  believes(topic: string, from: string, at: number): boolean {
    const key = `${topic}\n${from}`;
    const newest = this.newest.get(key);
    if (newest !== undefined && at <= newest) {
      if (at < newest) this.say(`${topic}: older than the last message from "${from}" (a replay?); ignored`);
      return false;
    }
    this.newest.set(key, at);
    return true;
  }
}
