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

  /** Takes one token if there is one. */
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.ratePerS) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
