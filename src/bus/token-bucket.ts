// A rate limit per sender: `ratePerS` on average, bursts of up to `burst`. Refilled from the injected
// clock when asked, so nothing runs between requests.

export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly ratePerS: number,
    readonly burst: number,
    now: number,
    /** Tokens to start with: a full burst unless told. */
    tokens = burst,
  ) {
    this.tokens = tokens;
    this.at = now;
  }

  /**
   * Takes one token if there is one. A `now` before the last one asked (a message judged at its arrival
   * after a later one's, or the wall clock set back) refills nothing rather than taking tokens away.
   */
  take(now: number): boolean {
    const elapsed = Math.max(0, now - this.at);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerS) / 1000);
    this.at = Math.max(this.at, now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
