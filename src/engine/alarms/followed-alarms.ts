// Alarms judged by another recdeck: a panel follows recorders on the state bus, and their alarms are
// the poller's (which reads the recorder and knows which commands were recdeck's), never judged again
// here from the bus's copy of the state. The alarm monitor merges them with its own book (alarm-monitor.ts:
// follow), so keys, pages, GET /alarms and metrics read one list.
//
// The merged book is as old as its oldest part: a key shows one count, and a count that leaves out the
// alarms of a poller gone silent would be a calm nobody can vouch for, so it shows its age instead.
import type { Observable } from 'rxjs';
import { STALE_AFTER_INTERVALS } from '../recorder-state.js';
import { worstFirst, type Alarm, type AlarmWire } from './alarm.js';
import type { AlarmReading } from './alarm-picture.js';

/**
 * Why an acknowledgement of a followed alarm was not done where it is judged: not-active (no such alarm
 * there), raised-again (raised again since the raise shown here: look again), not-allowed (this panel may
 * not acknowledge it), not-run (not sent, or refused: it did not run and never will), no-answer (none by
 * its deadline: it may have run; the alarm's state, as it comes back, says).
 */
export type AckRefusal = 'not-active' | 'raised-again' | 'not-allowed' | 'not-run' | 'no-answer';

/** An acknowledgement of a followed alarm where it is judged: the alarm as it holds it now, or why not. */
export type FollowedAck = { ok: true; alarm: Alarm } | { ok: false; reason: string; refusal: AckRefusal };

export interface FollowedAlarms {
  /** The recorders whose alarms come from here: the local engine does not judge them. */
  readonly recorders: ReadonlySet<string>;
  /**
   * Their alarms now, worst first; judgedAt is when the one who judges them was last heard from (this
   * process's clock), null while nothing from it has been believed.
   */
  reading(): AlarmReading;
  /** The last cleared ones, newest first. */
  cleared(): readonly Alarm[];
  /** Emits whenever what reading() or cleared() give changes. */
  readonly changed$: Observable<void>;
  /** Acknowledges one of its alarms where it is judged, at once or once that answers (null: not one of them). */
  ack(id: string, by: string): FollowedAck | Promise<FollowedAck> | null;
  /** Acknowledges all of its alarms waiting for one (sent to where they are judged): how many it asked for. */
  ackAll(by: string): number;
}

/** When a reading stops counting as live: STALE_AFTER_INTERVALS of its intervals after its judgement (alarm-picture.ts's rule). */
function liveUntil(reading: AlarmReading): number | null {
  if (reading.judgedAt === null || reading.judgeEveryMs === null) return null;
  return reading.judgedAt + STALE_AFTER_INTERVALS * reading.judgeEveryMs;
}

/**
 * One reading of several: every alarm, worst first, judged as of the part that goes stale first (so the
 * whole reads stale as soon as any part is), and never judged while any part never was (or there is none).
 */
export function mergedReading(readings: readonly AlarmReading[]): AlarmReading {
  const active = readings.flatMap((reading) => reading.active).sort(worstFirst);
  let oldest: AlarmReading | null = null;
  for (const reading of readings) {
    const until = liveUntil(reading);
    if (until === null) return { active, judgedAt: null, judgeEveryMs: null };
    if (oldest === null || until < (liveUntil(oldest) as number)) oldest = reading;
  }
  return { active, judgedAt: oldest?.judgedAt ?? null, judgeEveryMs: oldest?.judgeEveryMs ?? null };
}

/** An alarm as another recdeck lists it (GET /alarms, the bus), with its times back in ms. */
export function alarmFromWire(wire: AlarmWire): Alarm {
  const ms = (iso: string) => Date.parse(iso);
  const { id, kind, recorder, channel, disk, severity, text, ackedBy } = wire;
  return {
    id,
    kind,
    recorder,
    channel,
    disk,
    severity,
    text,
    firstSeen: ms(wire.firstSeen),
    lastSeen: ms(wire.lastSeen),
    raisedAt: ms(wire.raisedAt),
    ackedAt: wire.ackedAt === null ? null : ms(wire.ackedAt),
    ackedBy,
    clearedAt: wire.clearedAt === null ? null : ms(wire.clearedAt),
  };
}
