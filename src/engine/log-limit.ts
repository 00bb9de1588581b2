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

/**
 * A condition that lasts (a device that cannot be opened, a file that cannot be written, profiles that
 * tie) is said once per subject, and again only when what there is to say changes; a subject forgotten
 * (the condition is gone) is said anew if it comes back. The one "say it once" of the program: floods of
 * distinct messages go through LogLimiter above instead.
 */
export class SaidOnce {
  private readonly said = new Map<string, string>();

  /** Writes the message unless it is what was said last about the subject; true when written. */
  say(about: string, message: string, write: (message: string) => void): boolean {
    if (this.said.get(about) === message) return false;
    this.said.set(about, message);
    write(message);
    return true;
  }

  /** The condition is gone; true when something had been said about it. */
  forget(about: string): boolean {
    return this.said.delete(about);
  }
}
