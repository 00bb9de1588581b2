// The engine's one source of time. Every timed part (poller, extras, sessions, holds, flashes, macro
// waits) reads the clock and schedules on the scheduler given here, never on Date.now or raw timers, so
// tests run them on virtual time and nothing in the engine races a clock it does not control.
import { realClock, type PreciseClock } from '../api/clock.js';

/** The base clock (`api/clock.ts`, which the recorder client and the simulator take too) with its precise timer. */
export type EngineTime = PreciseClock;

/** The real clock (chosen in src/cli/ and the benchmarks only). */
export const realTime: EngineTime = realClock;
