// The real clock's scheduler is imported from rxjs's own module for it (not the index, which loads all of
// rxjs): it must still be the very scheduler rxjs's operators use by default, or the engine's timers and
// the client's time limits would run on two schedulers.
import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/api/clock.js';

describe('the real clock', () => {
  it("schedules on rxjs's own asyncScheduler", () => {
    expect(realClock.scheduler).toBe(asyncScheduler);
  });
});
