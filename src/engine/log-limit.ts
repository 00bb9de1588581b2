// A broken cable, a confused device or a hostile client on a shared bus can send garbage many times a
// second; one line per message would bury everything else in the log. A few lines per window are enough
// to see what is wrong, and the next line after a window says how many were left out.

export class LogLimiter {
  private windowStart = Number.NEGATIVE_INFINITY;
  private count = 0;
  private suppressed = 0;

  constructor(
    private readonly write: (message: string) => void,
    /** The injected clock (EngineTime's now), so tests run it on virtual time. */
    private readonly now: () => number,
    private readonly max = 5,
    private readonly windowMs = 10_000,
  ) {}

  say(message: string): void {
    const at = this.now();
    if (at - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) this.write(`(${this.suppressed} more like that in the last ${Math.round(this.windowMs / 1000)} s were not logged)`);
      this.windowStart = at;
      this.count = 0;
      this.suppressed = 0;
    }
    if (this.count < this.max) {
      this.count += 1;
      this.write(message);
    } else {
      this.suppressed += 1;
    }
  }
}
