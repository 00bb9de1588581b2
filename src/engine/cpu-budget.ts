// A CPU budget for the work that can wait (pictures and the page's frames), so that under a CPU quota
// input always finds some of the quota left.
//
// Under a CFS quota (cgroup cpu.max, or a container's CPU limit) the kernel freezes every thread of the
// process once its group has used its quota in a period, until the period ends. Yielding to the event
// loop does nothing against that: only not using the CPU does. Measured (docs/performance.md, the lead's
// runs of 16:50-17:31): under 25 % of a core the bridge averaged 13.9 %, yet was held in 958 of 1402
// periods, because picture work came in bursts (a second's clocks on every key, previews' decodes on
// libvips's threads, a page's frames) that used the whole quota of several periods in a row; a press
// that came then waited for the hold to end (20-90 ms).
//
// So a token bucket, in ms of CPU: refilled at `share x reserve` ms per ms of the clock (share: the CPU the
// bridge may use; reserve < 1, so that input and state find the rest), holding at most about one quota
// period's worth (an idle bridge does not save up a burst the kernel would then hold), and debited by the
// CPU the process actually used, whatever used it (polls, the collector, libvips: the kernel counts it
// all). The picture line asks `waitMs()` before each slice; input and state never ask.
//
// The CPU used between two looks is taken as spread over the time between them (as the kernel spreads it
// when it holds the process): it is debited after that time's refill, and the cap applies to the result.
// A look comes before every slice, so while pictures are made the looks are about a slice apart.
//
// Pure: the meter (the process's CPU), the clock and the quota are given; no timer, no I/O.

/** The CPU the process has used so far, all its threads (process.cpuUsage() in the real wiring). */
export interface CpuMeter {
  /** Total CPU time used, ms (only differences are read). */
  usedMs(): number;
}

/** The CPU the process may use: a share of one core (0.25: a quarter; 2: two cores), counted per period. */
export interface CpuQuota {
  share: number;
  /** The kernel's accounting period, ms (cgroup: 100 by default, the bench's 10). */
  periodMs: number;
}

export interface CpuBudgetOptions {
  /** The process's CPU. */
  meter: CpuMeter;
  /** The quota now, or null for none (then the budget never waits). Asked on every look: it may change. */
  quota: () => CpuQuota | null;
  /** The share of the quota pictures and frames may count on over time (default RESERVE_SHARE). */
  reserve?: number;
  /** The longest a slice is told to wait (default MAX_WAIT_MS). */
  maxWaitMs?: number;
}

/**
 * What deferrable work may spend of the quota: 0.75. The rest is headroom in every period for input and
 * state (a press's command, a recorder's answer), which run at once and are never counted out.
 */
export const RESERVE_SHARE = 0.75;

/**
 * The longest one wait lasts, and so the deepest the debt goes. Without a floor, a bridge whose polls
 * alone took more than the budget would never make a picture again; with it, the picture line still gets
 * a slice at least this often, whatever else uses the CPU. 25 ms, not 100: under 15 % of a core (where the
 * bridge's other work fills the budget) a key's change reached the page 1.0-1.4 s late (p50) with 100 and
 * 0.8 with 25, presses alike in both (bench (i), docs/performance.md, "A CPU budget for pictures").
 */
export const MAX_WAIT_MS = 25;

/** The clock the bucket reads (the engine's precise timer). */
export interface BudgetClock {
  precise(): number;
}

export class CpuBudget {
  private readonly reserve: number;
  private readonly maxWaitMs: number;
  /** CPU ms the picture line may still use now (negative: owed). */
  private tokens = 0;
  /** The clock and the meter at the last look; null: no quota at the last look (nothing counted). */
  private last: { at: number; usedMs: number } | null = null;

  constructor(
    private readonly time: BudgetClock,
    private readonly options: CpuBudgetOptions,
  ) {
    this.reserve = options.reserve ?? RESERVE_SHARE;
    this.maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
    if (!(this.reserve > 0 && this.reserve <= 1)) throw new Error(`a CPU budget's reserve must be in (0, 1], not ${this.reserve}`);
    if (!(this.maxWaitMs > 0)) throw new Error(`a CPU budget's longest wait must be above 0 ms, not ${this.maxWaitMs}`);
  }

  /**
   * How long the picture line should wait before its next slice, ms on the clock: 0 while the bucket holds
   * CPU, else the time its refill takes to pay what is owed (at most maxWaitMs). Always 0 without a quota.
   */
  waitMs(): number {
    const quota = this.options.quota();
    // No quota (every bridge without a CPU limit): nothing to count, so the meter (a system call) is not read.
    if (quota === null || !(quota.share > 0) || !(quota.periodMs > 0)) {
      this.last = null;
      return 0;
    }
    const now = this.time.precise();
    const usedMs = this.options.meter.usedMs();
    const rate = quota.share * this.reserve;
    const capacity = rate * quota.periodMs;
    if (this.last === null) {
      // A quota from now (at the start, or one set since): what was used before it is not owed.
      this.tokens = capacity;
    } else {
      const elapsed = Math.max(0, now - this.last.at);
      const used = Math.max(0, usedMs - this.last.usedMs);
      this.tokens = Math.max(-rate * this.maxWaitMs, Math.min(capacity, this.tokens + elapsed * rate - used));
    }
    this.last = { at: now, usedMs };
    // Whole ms (the clock's timers are), rounded up but not for a rounding error's worth (0.4 / 0.2 is 2.0000000000000004).
    return this.tokens > 0 ? 0 : Math.min(this.maxWaitMs, Math.max(1, Math.ceil(-this.tokens / rate - 1e-9)));
  }
}
