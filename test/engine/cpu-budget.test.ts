// The CPU budget of pictures and frames (src/engine/cpu-budget.ts) on a hand-moved clock and a fake CPU
// meter: it refills at share x reserve, is debited by whatever used the CPU, says how long the picture
// line waits, and an idle bridge does not save up more than about a period's worth.
import { describe, expect, it } from 'vitest';
import { CpuBudget, MAX_WAIT_MS, type CpuQuota } from '../../src/engine/cpu-budget.js';

/** A clock and a CPU meter the test moves: `run(ms)` is CPU used over as much time, `idle(ms)` time alone. */
class Machine {
  at = 1_000_000;
  cpuMs = 0;
  quota: CpuQuota | null = { share: 0.25, periodMs: 10 };
  readonly precise = (): number => this.at;
  readonly meter = { usedMs: (): number => this.cpuMs };
  run(ms: number): void {
    this.at += ms;
    this.cpuMs += ms;
  }
  idle(ms: number): void {
    this.at += ms;
  }
  /** CPU used on other threads (the collector's helpers, libvips) while no time passes on the clock. */
  foreign(ms: number): void {
    this.cpuMs += ms;
  }
  /** The default reserve (0.75) unless one is given. */
  budget(reserve?: number): CpuBudget {
    return new CpuBudget(this, { meter: this.meter, quota: () => this.quota, ...(reserve === undefined ? {} : { reserve }) });
  }
}

// share 0.25 x reserve 0.75: the picture line may count on 0.1875 ms of CPU per ms (3/16: the figures below
// are exact); capacity 1.875 ms (a 10 ms period's).
describe('CpuBudget', () => {
  it('starts with a period\'s worth: work goes on until that is used, then waits the time the refill takes to pay it', () => {
    const machine = new Machine();
    const budget = machine.budget();
    expect(budget.waitMs()).toBe(0); // full: 1.875 ms
    machine.run(1);
    expect(budget.waitMs()).toBe(0); // 1.875 + 0.1875 - 1 = 1.0625
    machine.run(1);
    expect(budget.waitMs()).toBe(0); // 0.25
    machine.run(1);
    // 0.25 + 0.1875 - 1 = -0.5625 owed: 0.5625 / 0.1875 = 3 ms to pay it.
    expect(budget.waitMs()).toBe(3);
    machine.idle(3);
    // Paid (0): not yet positive, so the smallest wait.
    expect(budget.waitMs()).toBe(1);
    machine.idle(1);
    expect(budget.waitMs()).toBe(0);
  });

  it('over time the line gets share x reserve of the clock: a 1 ms slice about every 5.3 ms', () => {
    const machine = new Machine();
    const budget = machine.budget();
    let slices = 0;
    const start = machine.at;
    while (machine.at - start < 1000) {
      const wait = budget.waitMs();
      if (wait > 0) machine.idle(wait);
      else {
        machine.run(1);
        slices++;
      }
    }
    // 1000 ms x 0.1875 = 187.5 ms of CPU, plus the first 1.875 ms of capacity; the waits are rounded up to the ms.
    expect(slices).toBeGreaterThanOrEqual(150);
    expect(slices).toBeLessThanOrEqual(190);
    expect(machine.cpuMs / (machine.at - start)).toBeLessThanOrEqual(0.1875 + 0.005);
  });

  it('an idle bridge refills to one period\'s worth, not more: after a minute idle, 2 ms then a wait', () => {
    const machine = new Machine();
    const budget = machine.budget();
    expect(budget.waitMs()).toBe(0);
    machine.idle(60_000);
    expect(budget.waitMs()).toBe(0);
    machine.run(2.5);
    // 1.875 + 2.5 x 0.1875 - 2.5 < 0: owed, never the 11 s a minute of refill would have been.
    expect(budget.waitMs()).toBeGreaterThan(0);
  });

  it('CPU the picture line did not use counts against it too: a burst of the collector (on other threads) puts pictures off', () => {
    const machine = new Machine();
    const budget = machine.budget();
    expect(budget.waitMs()).toBe(0);
    machine.foreign(5); // a 5 ms mark-compact on V8's helpers while the clock stood
    // 1.875 - 5 = -3.125 owed: 16.7 ms at 0.1875.
    expect(budget.waitMs()).toBe(17);
    machine.idle(16);
    expect(budget.waitMs()).toBe(1); // 0.125 still owed
    machine.idle(1);
    expect(budget.waitMs()).toBe(0);
  });

  it('a wait never exceeds MAX_WAIT_MS, however much was used: pictures still move when polls alone exceed the budget', () => {
    const machine = new Machine();
    const budget = machine.budget();
    budget.waitMs();
    machine.foreign(500); // half a second of start-up work
    expect(budget.waitMs()).toBe(MAX_WAIT_MS);
    // The debt is floored at what MAX_WAIT_MS of refill pays: after that wait, the line is even again.
    machine.idle(MAX_WAIT_MS + 1);
    expect(budget.waitMs()).toBe(0);
  });

  it('without a quota it never waits, and a quota that comes later counts only what is used from then on', () => {
    const machine = new Machine();
    machine.quota = null;
    const budget = machine.budget();
    machine.run(50);
    expect(budget.waitMs()).toBe(0);
    machine.foreign(50);
    expect(budget.waitMs()).toBe(0);
    machine.quota = { share: 0.25, periodMs: 10 }; // the bench moves the bridge into its group; a container's limit set
    expect(budget.waitMs()).toBe(0); // the 100 ms before it are not owed
    machine.run(3);
    expect(budget.waitMs()).toBe(3); // 1.875 + 0.5625 - 3 = -0.5625: 3 ms
    machine.quota = null; // the limit lifted
    machine.run(10);
    expect(budget.waitMs()).toBe(0);
  });

  it('follows a changed share: under 15 % the same work waits longer than under 25 %', () => {
    const waitAfter = (share: number): number => {
      const machine = new Machine();
      machine.quota = { share, periodMs: 10 };
      const budget = machine.budget();
      budget.waitMs();
      machine.foreign(3);
      return budget.waitMs();
    };
    expect(waitAfter(0.25)).toBe(6); // (3 - 1.875) / 0.1875
    expect(waitAfter(0.15)).toBe(17); // (3 - 1.125) / 0.1125 = 16.7
  });

  it('refuses a reserve outside (0, 1] and a longest wait of 0', () => {
    const machine = new Machine();
    expect(() => machine.budget(0)).toThrow(/reserve must be in \(0, 1\], not 0/);
    expect(() => machine.budget(1.5)).toThrow(/reserve/);
    expect(() => new CpuBudget(machine, { meter: machine.meter, quota: () => machine.quota, maxWaitMs: 0 })).toThrow(/longest wait must be above 0 ms/);
  });
});
