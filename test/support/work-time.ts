// Virtual time where work costs time: the clock and its timers are a VirtualTime's, and the precise
// timer (what a WorkScheduler measures its slices with) also moves by what the work says it cost.
// Work is synchronous here, so without this a slice would never see its budget spent.
import type { EngineTime } from '../../src/engine/engine-time.js';
import { VirtualTime } from './virtual-time.js';

export class WorkTime implements EngineTime {
  readonly virtual = new VirtualTime();
  readonly scheduler = this.virtual.scheduler;
  /** CPU spent by work so far, ms. */
  private spentMs = 0;

  readonly now = (): number => this.virtual.now();
  readonly precise = (): number => this.virtual.now() + this.spentMs;

  /** A piece of work took this long. */
  spend(ms: number): void {
    this.spentMs += ms;
  }

  advance(ms: number): void {
    this.virtual.advance(ms);
  }

  /**
   * One turn of the timers: runs those due now that were set before this call, not the ones they set
   * for now (as Node runs a zero-delay timer set by a timer on the next turn of its loop). A
   * VirtualTime's advance(0) would run those too, so a slice that yields would never be seen to.
   */
  turn(): void {
    const { scheduler } = this.virtual;
    const due = scheduler.actions.filter((action) => action.delay <= scheduler.frame).length;
    for (let i = 0; i < due; i++) {
      const action = scheduler.actions.shift();
      const error = action?.execute(action.state, action.delay);
      if (error) throw error;
    }
  }
}
