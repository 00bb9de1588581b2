// Something that can go wrong many times a second (a page sending bad messages in a loop) must not bury
// the log: it is said once, the repeats over the next window are only counted, and their number is said
// with the next line it writes.
import type { EngineTime } from '../engine/engine-time.js';

export class RateLimitedLog {
  /** Until then repeats are counted, not written. */
  private quietUntil = Number.NEGATIVE_INFINITY;
  private unsaid = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly time: Pick<EngineTime, 'now'>,
    private readonly windowMs = 10_000,
  ) {}

  say(line: string): void {
    const now = this.time.now();
    if (now < this.quietUntil) {
      this.unsaid += 1;
      return;
    }
    const unsaid = this.unsaid === 0 ? '' : `${this.unsaid} more not logged since the last; `;
    this.write(`${line} (${unsaid}repeats within ${this.windowMs / 1000} s are counted, not logged)`);
    this.quietUntil = now + this.windowMs;
    this.unsaid = 0;
  }
}
