// What an alarms key shows (`show: alarms`), derived from the alarm monitor's book at the moment it is
// drawn, never kept: how many alarms are active, the worst in a few words (what, which recorder, which
// channel), flashing while any waits for an acknowledgement, calm when none. The book is only as good as
// its last judgement: a monitor that has not judged for longer than three of its own intervals (stopped,
// or starved) has a book nobody keeps up, and the key says so with its age instead of claiming "no alarm"
// or flashing an alarm that may have cleared, as every other picture does with old data.
import { endOf, stepAfter, type NextChange } from '../next-change.js';
import type { AlarmsPicture, Freshness } from '../picture.js';
import { STALE_AFTER_INTERVALS } from '../recorder-state.js';
import type { Alarm, AlarmKind } from './alarm.js';

/** The monitor's book as a key reads it (AlarmMonitor.reading()). */
export interface AlarmReading {
  /** Worst first (alarm.ts: worstFirst). */
  active: readonly Alarm[];
  /** When the book was last judged against the recorders; null: not yet. */
  judgedAt: number | null;
  /** How often it is judged (the fastest recorder's poll); null until the monitor runs. */
  judgeEveryMs: number | null;
}

/** Each kind in a word or two, for a key's line. */
export const ALARM_WORDS: Readonly<Record<AlarmKind, string>> = {
  'channel-fault': 'FAULT',
  'drops-rising': 'DROPS',
  'buffer-growing': 'BUFFER',
  'unexpected-stop': 'STOPPED',
  'recorder-offline': 'OFFLINE',
  'recorder-stale': 'STALE',
  'disk-time': 'DISK',
  'dialog-waiting': 'DIALOG',
  'sync-channel-idle': 'SYNC IDLE',
  'group-disagree': 'GROUP',
};

/**
 * The alarms key now. `reading` is null where recdeck runs no alarm engine: the key is offline, never a
 * calm "0". `flashPhaseMs` is the dialog keys' flash period, so every flashing key of a deck blinks together.
 */
export function alarmsPicture(reading: AlarmReading | null, now: number, changes: NextChange, flashPhaseMs: number): AlarmsPicture {
  const freshness = freshnessOf(reading, now, changes);
  const active = reading?.active ?? [];
  const waiting = active.filter((alarm) => alarm.ackedAt === null).length;
  const worst = active[0];
  const flashing = freshness === 'live' && waiting > 0;
  const phase = Math.floor(now / flashPhaseMs);
  if (flashing) changes.at(stepAfter(0, flashPhaseMs, phase));
  let ageS: number | null = null;
  if (freshness !== 'live' && reading?.judgedAt != null) {
    ageS = Math.max(0, Math.floor((now - reading.judgedAt) / 1000));
    // The age shown counts up by time alone; and a monitor judging again is picked up at the next second.
    changes.at(stepAfter(reading.judgedAt, 1000, ageS));
  }
  return {
    kind: 'alarms',
    count: reading === null || reading.judgedAt === null ? null : active.length,
    waiting,
    worst: worst === undefined ? null : { word: ALARM_WORDS[worst.kind], recorder: worst.recorder, channel: worst.channel, severity: worst.severity, acked: worst.ackedAt !== null },
    flashing,
    flashPhase: flashing && phase % 2 === 0,
    freshness,
    ageS,
  };
}

/** Live while judged within three intervals (as a recorder's own parts are); stale after; offline when never judged. */
function freshnessOf(reading: AlarmReading | null, now: number, changes: NextChange): Freshness {
  if (reading === null || reading.judgedAt === null || reading.judgeEveryMs === null) return 'offline';
  const until = reading.judgedAt + STALE_AFTER_INTERVALS * reading.judgeEveryMs;
  if (now > until) return 'stale';
  changes.at(endOf(until));
  return 'live';
}
