// What the bridge may take as a source's gain, and how current it is: one pure decision over what it read
// and wrote and when, so the meter a control shows and the gain a step starts from can never disagree.
//
// - A gain this bridge writes is the gain while it owns it: a write still under way, or one answered
//   within the live window (3 meter intervals) with no read sent after that answer come back since.
//   Quick detents chain from each other this way, in order, never backwards.
// - Else a read sent after the last write's answer, younger than the live window, is the gain.
// - Else nothing is: the gain last known is shown with its age, never as live, and a step reads the gain
//   at the press (see stepBasis).
// A meter's levels are live only while their read is young; no write makes them current.
import { endOf, stepAfter } from './next-change.js';
import type { Freshness } from './picture.js';

/** A source read (getSource): its gain and levels, when its answer came, and its order among reads and write answers. */
export interface GainRead {
  db: number;
  levels: readonly number[];
  at: number;
  /** Reads are numbered as they are sent, write answers as they come, on one counter. */
  order: number;
}

/** The gains this bridge wrote to a source. */
export interface GainWrites {
  /** The last gain written. */
  db: number;
  /** Writes sent and not answered yet. */
  inFlight: number;
  /** The last answer: when it came, its order, and whether the recorder took the write. */
  answered: { at: number; order: number; ok: boolean } | null;
}

export interface GainFacts {
  read: GainRead | null;
  written: GainWrites | null;
  now: number;
  /** How long a read (or a write's answer) stays the truth: 3 meter intervals. */
  liveForMs: number;
  /** The recorder cannot be reached (its state polls say so). */
  offline: boolean;
}

export interface GainTruth {
  /** The gain to show: the one owned or read, or the last known when neither is current; null when never known. */
  db: number | null;
  /** live: a step may start from db; stale or offline: it is old, and a step must read the gain first. */
  freshness: Freshness;
  /** Whole seconds since db was read or written, when it is not live (null when never known). */
  ageS: number | null;
  /** The levels, while the read that brought them is live; null otherwise. */
  levels: readonly number[] | null;
  /**
   * When this truth next changes by time alone (the levels or the gain turning stale, the age's next
   * second); null when only a read, a write or the recorder's state changes it.
   */
  changesAt: number | null;
}

export function gainTruth(facts: GainFacts): GainTruth {
  const { read, written, now, offline } = facts;
  const young = (at: number) => now - at <= facts.liveForMs;
  const levels = read !== null && !offline && young(read.at) ? read.levels : null;
  // Levels shown go when their read gets old.
  const levelsEnd = levels !== null && read !== null ? endOf(read.at + facts.liveForMs) : null;
  if (written !== null && written.inFlight > 0) return { db: written.db, freshness: offline ? 'offline' : 'live', ageS: null, levels, changesAt: levelsEnd };

  const answered = written?.answered ?? null;
  const readSinceWrite = read !== null && (answered === null || read.order > answered.order);
  // The newest gain known: a write the recorder took, unless a read sent after its answer came back since.
  const known =
    written !== null && answered?.ok === true && !readSinceWrite
      ? { db: written.db, at: answered.at, current: true }
      : read !== null
        ? { db: read.db, at: read.at, current: readSinceWrite }
        : null;
  if (known === null) return { db: null, freshness: offline ? 'offline' : 'stale', ageS: null, levels, changesAt: levelsEnd };
  const freshness: Freshness = offline ? 'offline' : known.current && young(known.at) ? 'live' : 'stale';
  const ageS = freshness === 'live' ? null : Math.max(0, Math.floor((now - known.at) / 1000));
  // A live gain turns stale when it gets old; an old one's age counts on.
  const next = ageS === null ? endOf(known.at + facts.liveForMs) : stepAfter(known.at, 1000, ageS);
  return { db: known.db, freshness, ageS, levels, changesAt: levelsEnd === null ? next : Math.min(levelsEnd, next) };
}

/** The gain a step may start from, or null: then it reads the gain at the press first. */
export function stepBasis(truth: GainTruth): number | null {
  return truth.freshness === 'live' ? truth.db : null;
}
