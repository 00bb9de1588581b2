// The disk estimate as pure functions: readings in, time left out, only when the rate is steady.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DISK_TIME, EMPTY_DISK_HISTORY, diskTimesLeft, levelOf, nextDiskHistory, type DiskHistory } from '../../src/engine/disk-time.js';

const MINUTE = 60_000;

/** Readings every 5 s of a disk filling `perMinute` % a minute from `from` %, as whole percents. */
function fill(history: DiskHistory, { from, perMinute, startAt, forMs, writing = '1,2' }: { from: number; perMinute: number; startAt: number; forMs: number; writing?: string }): DiskHistory {
  let h = history;
  for (let at = startAt; at <= startAt + forMs; at += 5000) {
    h = nextDiskHistory(h, { at, writing, disks: [{ Key: 'D:', Value: Math.round(from + ((at - startAt) / MINUTE) * perMinute) }] }, DEFAULT_DISK_TIME.windowMs);
  }
  return h;
}

describe('disk time left', () => {
  it('gives nothing until three steps of the percentage are seen, then the time to full at their rate', () => {
    const early = fill(EMPTY_DISK_HISTORY, { from: 50, perMinute: 1, startAt: 0, forMs: 2 * MINUTE });
    expect(diskTimesLeft(early, 2 * MINUTE, DEFAULT_DISK_TIME)).toMatchObject([{ disk: 'D:', used: 52, secondsLeft: null, level: null }]);
    const steady = fill(EMPTY_DISK_HISTORY, { from: 50, perMinute: 1, startAt: 0, forMs: 10 * MINUTE });
    const [estimate] = diskTimesLeft(steady, 10 * MINUTE, DEFAULT_DISK_TIME);
    // 40 % left at 1 % a minute: 40 minutes (within the half percent the rounding hides).
    expect(estimate?.percentPerMinute).toBeCloseTo(1, 1);
    expect(Math.abs((estimate?.secondsLeft as number) - 40 * 60)).toBeLessThan(45);
    expect(estimate?.level).toBe('ok');
    // Counted down on the clock between readings.
    expect((diskTimesLeft(steady, 10 * MINUTE + 4000, DEFAULT_DISK_TIME)[0]?.secondsLeft as number) - (estimate?.secondsLeft as number)).toBeCloseTo(-4, 5);
  });

  it('starts afresh when other channels write, and forgets all when none does', () => {
    const steady = fill(EMPTY_DISK_HISTORY, { from: 50, perMinute: 1, startAt: 0, forMs: 10 * MINUTE });
    const more = nextDiskHistory(steady, { at: 10 * MINUTE + 5000, writing: '1,2,3', disks: [{ Key: 'D:', Value: 60 }] }, DEFAULT_DISK_TIME.windowMs);
    expect(diskTimesLeft(more, 10 * MINUTE + 5000, DEFAULT_DISK_TIME)[0]?.secondsLeft).toBeNull();
    expect(nextDiskHistory(steady, { at: 10 * MINUTE + 5000, writing: '', disks: [{ Key: 'D:', Value: 60 }] }, DEFAULT_DISK_TIME.windowMs)).toBe(EMPTY_DISK_HISTORY);
  });

  it('is not steady while the rate changes, nor when the next step is overdue', () => {
    const slow = fill(EMPTY_DISK_HISTORY, { from: 50, perMinute: 0.5, startAt: 0, forMs: 8 * MINUTE });
    const faster = fill(slow, { from: 54, perMinute: 2, startAt: 8 * MINUTE + 5000, forMs: 2 * MINUTE });
    expect(diskTimesLeft(faster, 10 * MINUTE, DEFAULT_DISK_TIME)[0]?.secondsLeft).toBeNull();
    const steady = fill(EMPTY_DISK_HISTORY, { from: 50, perMinute: 1, startAt: 0, forMs: 10 * MINUTE });
    const stalled = fill(steady, { from: 60, perMinute: 0, startAt: 10 * MINUTE + 5000, forMs: 3 * MINUTE });
    expect(diskTimesLeft(stalled, 13 * MINUTE, DEFAULT_DISK_TIME)[0]?.secondsLeft).toBeNull();
  });

  it('turns amber under 30 minutes and red under 10 by default', () => {
    expect([31 * 60, 29 * 60, 11 * 60, 9 * 60].map((s) => levelOf(s, DEFAULT_DISK_TIME))).toEqual(['ok', 'amber', 'amber', 'red']);
  });
});
