// The engine's one source of time. Every timed part (poller, extras, sessions, holds, flashes, macro
// waits) reads the clock and schedules on the scheduler given here, never on Date.now or raw timers, so
// tests run them on virtual time and nothing in the engine races a clock it does not control.
import { realClock, type Clock } from '../api/clock.js';

/** The base clock (`api/clock.ts`, which the recorder client and the simulator take too) plus a precise timer. */
export interface EngineTime extends Clock {
  /** A monotonic sub-millisecond clock, only for measuring latencies (metrics, benchmarks). */
  precise(): number;
}

export const realTime: EngineTime = {
  ...realClock,
  precise: () => performance.now(),
};
