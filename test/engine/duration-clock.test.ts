import { describe, expect, it } from 'vitest';
import { DurationClock } from '../../src/engine/duration-clock.js';

describe('DurationClock', () => {
  it('ticks every second between polls and never goes backwards on a re-sync', () => {
    const clock = new DurationClock();
    // The take really began at t = 10_300; the recorder reports whole seconds.
    const began = 10_300;
    const reported = (t: number) => Math.floor((t - began) / 1000);
    const shown: number[] = [];
    for (let t = 12_000; t <= 20_000; t += 100) {
      if (t % 2000 === 0) clock.observe('0', true, reported(t), t); // a slow poll every 2 s
      shown.push(clock.read('0', t) as number);
    }
    for (let i = 1; i < shown.length; i++) expect(shown[i]).toBeGreaterThanOrEqual(shown[i - 1] as number);
    // After a few readings it is within a second of the truth, and it steps by one each second.
    expect(Math.abs((clock.read('0', 20_000) as number) - reported(20_000))).toBeLessThanOrEqual(1);
    expect(new Set(shown.slice(-30)).size).toBeGreaterThanOrEqual(3);
  });

  it('holds while paused and starts over on a new take', () => {
    const clock = new DurationClock();
    clock.observe('1', false, 42, 5000);
    expect(clock.read('1', 9000)).toBe(42);
    clock.observe('1', true, 0, 10_000);
    expect([2, 3]).toContain(clock.read('1', 12_600)); // one reading bounds the start within a second
    clock.forget('1');
    expect(clock.read('1', 12_600)).toBeNull();
  });
});
