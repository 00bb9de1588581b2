// How far a panel's clock is from its poller's, measured from the poller's signed messages as they
// arrive: arrival (panel's clock) minus sent (poller's clock) is the offset plus the transit time, so
// the lowest of these over a window is the offset plus the shortest transit. That estimate errs by the
// transit only, and on the safe side for deadlines: a deadline worked out from it falls a little early.
// Retained messages are not samples (they may have been sent long ago).

export class ClockOffset {
  private current = Number.POSITIVE_INFINITY;
  private previous = Number.POSITIVE_INFINITY;
  private windowStart = Number.NEGATIVE_INFINITY;

  /** Samples count for one to two windows: a clock stepped since then is followed within that. */
  constructor(private readonly windowMs = 30_000) {}

  /** A message the poller sent at `sentAt` (its clock) arrived at `arrivedAt` (ours). */
  sample(arrivedAt: number, sentAt: number): void {
    if (arrivedAt - this.windowStart >= this.windowMs) {
      this.previous = this.current;
      this.current = Number.POSITIVE_INFINITY;
      this.windowStart = arrivedAt;
    }
    this.current = Math.min(this.current, arrivedAt - sentAt);
  }

  /** Our clock minus the poller's (ms), or 0 before any sample (clocks assumed in step). */
  get ms(): number {
    const lowest = Math.min(this.current, this.previous);
    return Number.isFinite(lowest) ? lowest : 0;
  }

  /** Whether any message has been measured. */
  get measured(): boolean {
    return Number.isFinite(Math.min(this.current, this.previous));
  }
}
