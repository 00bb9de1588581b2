// Running durations between polls. The recorder reports whole seconds, so one answer only says the take
// began somewhere within a one-second window; every answer narrows that window. Between answers the
// duration is counted from the window's middle, so a key's clock ticks every second whatever the poll
// interval, and a new answer re-syncs it without visible jumps.
import type { Channel } from '../api/channel.js';
import { stepAfter, type NextChange } from './next-change.js';
import type { Freshness } from './picture.js';

interface Take {
  /** Bounds (ms) on when the current running stretch would have begun at the reported duration. */
  earliest: number;
  latest: number;
  /** The last reported duration, for a paused take. */
  seconds: number;
  running: boolean;
}

export class DurationClock {
  private readonly takes = new Map<string, Take>();

  /**
   * Takes one reading: `seconds` reported at `receivedAt` for a take that is `running` (recording and
   * not paused). A reading outside the current window means a new take, a pause or a resume: start over.
   */
  observe(key: string, running: boolean, seconds: number, receivedAt: number): void {
    const earliest = receivedAt - (seconds + 1) * 1000;
    const latest = receivedAt - seconds * 1000;
    const take = this.takes.get(key);
    if (take && take.running && running && earliest < take.latest && latest > take.earliest) {
      take.earliest = Math.max(take.earliest, earliest);
      take.latest = Math.min(take.latest, latest);
      take.seconds = seconds;
      return;
    }
    this.takes.set(key, { earliest, latest, seconds, running });
  }

  forget(key: string): void {
    this.takes.delete(key);
  }

  /**
   * Whole seconds at `now`: counted on while running (the next second noted in `changes`), the reported
   * value while paused.
   */
  read(key: string, now: number, changes?: NextChange): number | null {
    const take = this.takes.get(key);
    if (!take) return null;
    if (!take.running) return take.seconds;
    const began = (take.earliest + take.latest) / 2;
    const seconds = Math.max(take.seconds, Math.floor((now - began) / 1000));
    changes?.at(stepAfter(began, 1000, seconds));
    return seconds;
  }
}

/**
 * A take's duration as everything shows it (keys, the page, GET /state): counted on between polls while
 * the channel data is live; otherwise frozen at the last value the recorder confirmed, which is shown
 * beside the data's age. null when the channel is not recording.
 */
export function takeDuration(channel: Channel, freshness: Freshness, counted: (index: number) => number | null): number | null {
  if (!channel.IsRecording) return null;
  return (freshness === 'live' ? counted(channel.Index) : null) ?? channel.RecordingDuration;
}
