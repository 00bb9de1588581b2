// The alarm engine's rules as pure functions, like the session's transition: the book before, what is
// observed now (or an acknowledgement) and the settings give the book after and the events to deliver
// (raised, acked, cleared). No clock, no timer, no I/O: the monitor feeds in time and observations.
//
// - A condition raises its alarm only after it held for `raisePolls` evaluations in a row, and clears
//   it only after it did not hold for `clearPolls` in a row: a value at a threshold cannot flap.
// - A condition that cannot be judged (its data is not live) counts neither way.
// - An alarm that becomes worse (warning to critical) is raised again, and wants a new acknowledgement.
import type { Alarm, AlarmEvent } from './alarm.js';
import { NO_CONDITION_MEMORY, conditionsNow, scopeOf, type AlarmObservation, type Condition, type ConditionMemory } from './alarm-conditions.js';
import type { AlarmSettings } from './alarm-settings.js';

interface Count {
  /** Evaluations in a row it held, and did not hold. */
  holds: number;
  misses: number;
  /** When it was first seen holding in this run of evaluations. */
  firstSeen: number;
  /** `kind:recorder`, which says whether it can be judged now. */
  scope: string;
}

export interface AlarmBook {
  conditions: ConditionMemory;
  counts: ReadonlyMap<string, Count>;
  active: ReadonlyMap<string, Alarm>;
  /** Newest first, at most the settings' clearedKept. */
  cleared: readonly Alarm[];
}

export const EMPTY_BOOK: AlarmBook = { conditions: NO_CONDITION_MEMORY, counts: new Map(), active: new Map(), cleared: [] };

export interface AlarmDecision {
  book: AlarmBook;
  events: AlarmEvent[];
}

export function evaluate(book: AlarmBook, observation: AlarmObservation, settings: AlarmSettings): AlarmDecision {
  const { now } = observation;
  const found = conditionsNow(book.conditions, observation, settings);
  // The calm poll: nothing holds, nothing is counted or active, so nothing is judged (no maps copied).
  if (found.holding.length === 0 && book.counts.size === 0 && book.active.size === 0) return { book: { ...book, conditions: found.memory }, events: [] };
  const counts = new Map(book.counts);
  const active = new Map(book.active);
  let cleared = book.cleared;
  const events: AlarmEvent[] = [];
  const holdingIds = new Set<string>();

  for (const condition of found.holding) {
    holdingIds.add(condition.id);
    const count = counts.get(condition.id);
    // An id names its kind and recorder, so a count's scope stays what it was.
    const next = { holds: (count?.holds ?? 0) + 1, misses: 0, firstSeen: count?.firstSeen ?? now, scope: count?.scope ?? scopeOf(condition.kind, condition.recorder) };
    counts.set(condition.id, next);
    const alarm = active.get(condition.id);
    if (alarm) {
      const worse = alarm.severity === 'warning' && condition.severity === 'critical';
      const updated: Alarm = { ...alarm, severity: condition.severity, text: condition.text, lastSeen: now, ...(worse ? { raisedAt: now, ackedAt: null, ackedBy: null } : {}) };
      active.set(condition.id, updated);
      if (worse) events.push({ state: 'raised', at: now, alarm: updated });
    } else if (next.holds >= settings.raisePolls) {
      const raised = raise(condition, next.firstSeen, now);
      active.set(condition.id, raised);
      events.push({ state: 'raised', at: now, alarm: raised });
    }
  }

  for (const id of new Set([...counts.keys(), ...active.keys()])) {
    if (holdingIds.has(id)) continue;
    const alarm = active.get(id);
    const scope = alarm ? scopeOf(alarm.kind, alarm.recorder) : (counts.get(id) as Count).scope;
    if (found.unknown.has(scope)) continue;
    if (!alarm) {
      counts.delete(id);
      continue;
    }
    const count = counts.get(id) ?? { holds: 0, misses: 0, firstSeen: alarm.firstSeen, scope };
    const next = { ...count, holds: 0, misses: count.misses + 1 };
    if (next.misses < settings.clearPolls) {
      counts.set(id, next);
      continue;
    }
    counts.delete(id);
    active.delete(id);
    const ended: Alarm = { ...alarm, clearedAt: now };
    cleared = [ended, ...cleared].slice(0, settings.clearedKept);
    events.push({ state: 'cleared', at: now, alarm: ended });
  }
  return { book: { conditions: found.memory, counts, active, cleared }, events };
}

/** An operator saw it: the alarm stays active (its condition still holds) but stops asking for attention. */
export function acknowledge(book: AlarmBook, id: string, by: string, now: number): AlarmDecision | { error: string } {
  const alarm = book.active.get(id);
  if (!alarm) return { error: book.cleared.some((a) => a.id === id) ? `alarm ${id} has cleared already` : `no active alarm ${id}` };
  if (alarm.ackedAt !== null) return { book, events: [] };
  const acked: Alarm = { ...alarm, ackedAt: now, ackedBy: by };
  return { book: { ...book, active: new Map(book.active).set(id, acked) }, events: [{ state: 'acked', at: now, alarm: acked }] };
}

/** Every active alarm not yet acknowledged (a key or pedal acknowledges them all at once). */
export function acknowledgeAll(book: AlarmBook, by: string, now: number): AlarmDecision {
  let decision: AlarmDecision = { book, events: [] };
  for (const alarm of book.active.values()) {
    const next = acknowledge(decision.book, alarm.id, by, now);
    if ('error' in next) continue;
    decision = { book: next.book, events: [...decision.events, ...next.events] };
  }
  return decision;
}

function raise(condition: Condition, firstSeen: number, now: number): Alarm {
  const { id, kind, recorder, channel, disk, severity, text } = condition;
  return { id, kind, recorder, channel, disk, severity, text, firstSeen, lastSeen: now, raisedAt: now, ackedAt: null, ackedBy: null, clearedAt: null };
}
