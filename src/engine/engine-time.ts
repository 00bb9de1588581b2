// The engine's one source of time. Every timed part (poller, extras, sessions, holds, flashes, macro
// waits) reads the clock and schedules on the scheduler given here, never on Date.now or raw timers, so
// tests run them on virtual time and nothing in the engine races a clock it does not control.
import { asyncScheduler, type SchedulerLike } from 'rxjs';

export interface EngineTime {
  /** Wall-clock milliseconds since the epoch: freshness, ages, durations, the audit log. */
  now(): number;
  /** Runs every engine timer. */
  readonly scheduler: SchedulerLike;
  /** A monotonic sub-millisecond clock, only for measuring latencies (metrics, benchmarks). */
  precise(): number;
}

export const realTime: EngineTime = {
  now: () => Date.now(),
  scheduler: asyncScheduler,
  precise: () => performance.now(),
};
