// Virtual time where work costs time: a VirtualTime (its clock, timers and turns) whose precise timer
// (what a WorkScheduler measures its slices with) also moves by what the work says it cost. Work is
// synchronous here, so without this a slice would never see its budget spent.
import { VirtualTime } from './virtual-time.js';

export class WorkTime extends VirtualTime {
  /** CPU spent by work so far, ms. */
  private spentMs = 0;

  override readonly precise = (): number => this.now() + this.spentMs;

  /** A piece of work took this long. */
  spend(ms: number): void {
    this.spentMs += ms;
  }
}
