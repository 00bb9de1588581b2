// Password guessing, slowed per client address: after FREE_FAILURES wrong passwords in a row an address
// waits 1 s, then 2, 4, … (up to MAX_WAIT_S) before its next guess is even looked at. A good password
// clears the count. Time is injected so the schedule can be tested without waiting.

const FREE_FAILURES = 5;
const MAX_WAIT_S = 15 * 60;
/** An address not heard from for this long is forgotten (keeps the table small). */
const FORGET_MS = 60 * 60 * 1000;

interface Record {
  failures: number;
  lastFailureAt: number;
}

export class LoginThrottle {
  private readonly addresses = new Map<string, Record>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds the address must still wait before a guess is looked at; 0 when it may try. */
  waitSeconds(address: string): number {
    const record = this.addresses.get(address);
    if (!record || record.failures < FREE_FAILURES) return 0;
    const waitMs = Math.min(2 ** (record.failures - FREE_FAILURES), MAX_WAIT_S) * 1000;
    const left = record.lastFailureAt + waitMs - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts a wrong password; returns how many in a row this address has now. */
  failed(address: string): number {
    const now = this.now();
    for (const [key, record] of this.addresses) if (now - record.lastFailureAt > FORGET_MS) this.addresses.delete(key);
    const record = this.addresses.get(address) ?? { failures: 0, lastFailureAt: now };
    record.failures += 1;
    record.lastFailureAt = now;
    this.addresses.set(address, record);
    return record.failures;
  }

  succeeded(address: string): void {
    this.addresses.delete(address);
  }
}
