// The one clock every timed part reads and schedules on. It lives here, at the base, because the
// recorder client (a request's time limit, its latency) and the simulator (ticks, injected delays) are
// timed parts too and may not import the engine; the engine's `EngineTime` is this clock plus a
// precise timer for latencies, so one real clock, or one virtual clock in tests, drives them all.
// The scheduler comes from its own module, not rxjs's index: the index loads all of rxjs (223 files, a
// sixth of a second of CPU) and the recorder client, and so every `recdeck call`, needs only this. It
// is the same object the index exports (rxjs's exports map has ./internal/*; the index re-exports this
// file), so the engine's operators and this clock share one scheduler; test/api/clock.test.ts holds it.
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs/internal/scheduler/async';

export interface Clock {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Runs every timer of the part that was given this clock. */
  readonly scheduler: SchedulerLike;
}

/** A clock with a precise timer beside it, only for measuring latencies and CPU windows. */
export interface PreciseClock extends Clock {
  /** High-resolution milliseconds since the epoch, monotonic (a difference of two is a duration to the microsecond). */
  precise(): number;
}

/**
 * The real clock. It is chosen once, where the process is put together (src/cli/, and the benchmarks):
 * every part takes its clock as a required argument, so a test that forgets one does not compile,
 * instead of silently running on real time (test/architecture/one-home.test.ts holds it so).
 */
export const realClock: PreciseClock = {
  now: () => Date.now(),
  scheduler: asyncScheduler,
  precise: () => performance.timeOrigin + performance.now(),
};

/** Resolves after `ms` on the clock (a delay the part itself decides, never a test waiting for I/O). */
export function delay(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.scheduler.schedule(() => resolve(), ms));
}
