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

  /** One turn of the timers (VirtualTime.turn): those due now that were set before this call. */
  turn(): void {
    this.virtual.turn();
  }
}
