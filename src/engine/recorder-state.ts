// What the bridge knows about one recorder at a moment: the last good answers, when each was read, and
// how the last attempts went. Freshness is derived from this and the current time, never stored, so a
// picture can turn stale without any new answer arriving. Each part carries its own age: a key is live
// only when everything it shows is young enough: a part is as old as the answer that brought it, so
// one slow read never makes the others look older, nor an old answer look new.
import type { Dialog, Resources, Schedule, SyncState } from '../api/app.js';
import type { Channel } from '../api/channel.js';
import type { ConversionConfig } from '../api/conversion.js';
import type { SourceListEntry } from '../api/source.js';
import type { Freshness } from './picture.js';

/** The state polls, read every poll interval (sync and dialog every other one while the bridge is held: PACED_PARTS). */
export const FAST_PARTS = ['channels', 'sync', 'dialog'] as const;
/** The slow group, read every slow interval and after commands that touch it. */
export const SLOW_PARTS = ['sources', 'resources', 'schedule', 'conversion'] as const;
export type StatePart = (typeof FAST_PARTS)[number] | (typeof SLOW_PARTS)[number];
export type FastPart = (typeof FAST_PARTS)[number];
/**
 * The state polls a poller may read more slowly while the bridge is short of time (recorder-poller.ts
 * paceBy; the bridge's one pace, picture-pace.ts statePollEvery). Not `channels`: the channel list is
 * what a take starting or stopping shows from (the bench's change -> key is defined by it), so it keeps
 * the poll interval whatever the load.
 */
export const PACED_PARTS: readonly FastPart[] = ['sync', 'dialog'];
/**
 * The most poll intervals apart a paced part is read: two (500 ms at the default 250), so it is live for
 * up to 1.5 s after its read while the bridge is held (750 ms otherwise). The meters' rule (METER_SLOWEST):
 * a paced read still carries a state a command is checked against, so it goes no further.
 */
export const SLOWEST_POLL_EVERY = 2;

export interface RecorderState {
  name: string;
  /** The poll interval, which freshness of the state polls is measured in. */
  pollMs: number;
  /** The slow group's interval, which its freshness is measured in. */
  slowMs: number;
  /**
   * How many poll intervals apart each state poll was meant to be read when its value came (1, or up to
   * SLOWEST_POLL_EVERY for a paced part while the bridge is held): recorded with the value by the read
   * that brought it, and what its age limit is measured in (liveForMs). The pace itself has one owner
   * (the bridge's work scheduler); this is only the interval each value was read at, never asked again.
   */
  pollEvery: Readonly<Record<FastPart, number>>;
  /** When the oldest answer of the last complete good poll (channels, sync and dialog) came, or null if never. */
  lastGoodAt: number | null;
  /** When the answer behind each part's value came; null while it was never read. */
  readAt: Readonly<Record<StatePart, number | null>>;
  /** The number of the read behind each part's value (reads are numbered as they are sent; 0: never read). */
  readNumber: Readonly<Record<StatePart, number>>;
  channels: readonly Channel[] | null;
  sync: SyncState | null;
  dialog: Dialog | null;
  /** Slower reads. */
  sources: readonly SourceListEntry[] | null;
  resources: Resources | null;
  schedule: Schedule | null;
  conversion: ConversionConfig | null;
  /** Failed polls since the last good one. */
  failures: number;
  /** The last failure's message (no secrets: the client masks the token in what the recorder says). */
  lastError: string | null;
  /** The last failure could not reach the recorder at all (refused, reset, timeout). */
  unreachable: boolean;
}

export function initialRecorderState(name: string, pollMs: number, slowMs = 5000): RecorderState {
  return {
    name,
    pollMs,
    slowMs,
    pollEvery: { channels: 1, sync: 1, dialog: 1 },
    lastGoodAt: null,
    readAt: { channels: null, sync: null, dialog: null, sources: null, resources: null, schedule: null, conversion: null },
    readNumber: { channels: 0, sync: 0, dialog: 0, sources: 0, resources: 0, schedule: 0, conversion: 0 },
    channels: null,
    sync: null,
    dialog: null,
    sources: null,
    resources: null,
    schedule: null,
    conversion: null,
    failures: 0,
    lastError: null,
    unreachable: false,
  };
}

/** Polls in a row that must fail to reach the recorder before it counts as offline. */
const OFFLINE_AFTER_FAILURES = 3;
/** Intervals a part may be old and still count as live. */
export const STALE_AFTER_INTERVALS = 3;

/** Whether a part is one of the state polls. */
export function isFastPart(part: StatePart): part is FastPart {
  return (FAST_PARTS as readonly string[]).includes(part);
}

/**
 * The interval a part's value was read at: the poll interval times the pace it was read at for a state
 * poll (pollEvery), the slow interval for the slow group.
 */
export function intervalMs(state: RecorderState, part: StatePart): number {
  return isFastPart(part) ? state.pollMs * state.pollEvery[part] : state.slowMs;
}

/**
 * How long a part stays live after its answer came: three of the intervals it was read at. A value read
 * while sync and dialog are paced is live for three of the slower intervals, so the slower read that
 * follows it comes well within its age; the next value carries the interval it was read at in turn.
 */
export function liveForMs(state: RecorderState, part: StatePart): number {
  return STALE_AFTER_INTERVALS * intervalMs(state, part);
}

/** Nothing of the recorder read yet: no good answer, and none of the parts ever read. */
const neverRead = (state: RecorderState, parts: readonly StatePart[]): boolean => state.lastGoodAt === null && parts.every((part) => state.readAt[part] === null);

/**
 * offline: never reached, or the last 3 polls could not reach it; stale: any of the parts asked for is
 * missing or older than 3 of its intervals (old data, recorder answering badly or slowly); live
 * otherwise. Without parts: the state polls (channels, sync, dialog).
 */
export function freshnessOf(state: RecorderState, now: number, parts: readonly StatePart[] = FAST_PARTS): Freshness {
  if (neverRead(state, parts)) return 'offline';
  if (state.unreachable && state.failures >= OFFLINE_AFTER_FAILURES) return 'offline';
  const until = liveUntil(state, parts);
  return until !== null && now <= until ? 'live' : 'stale';
}

/**
 * Why the state counts as offline, for a refusal to say: the last error of its reads, or what the state
 * itself shows (nothing read yet, or reads failing without a word). A bare "the recorder is offline" left
 * an operator, and a test on a loaded machine (paired run 161), not knowing which.
 */
export function offlineReason(state: RecorderState): string {
  if (state.lastError) return state.lastError;
  if (neverRead(state, FAST_PARTS)) return 'nothing read from it yet';
  return `its last ${state.failures} reads did not reach it`;
}

/** The last moment every one of the parts is young enough to be live, or null when one was never read. */
export function liveUntil(state: RecorderState, parts: readonly StatePart[]): number | null {
  let until = Infinity;
  for (const part of parts) {
    const at = state.readAt[part];
    if (at === null) return null;
    until = Math.min(until, at + liveForMs(state, part));
  }
  return until;
}

/** Whole seconds since the oldest of the parts was read, or null when one was never read. */
export function ageSeconds(state: RecorderState, now: number, parts: readonly StatePart[] = FAST_PARTS): number | null {
  const oldest = oldestReadAt(state, parts);
  return oldest === null ? null : Math.max(0, Math.floor((now - oldest) / 1000));
}

/** When the oldest of the parts was read (what their age counts from), or null when one was never read. */
export function oldestReadAt(state: RecorderState, parts: readonly StatePart[]): number | null {
  const times = parts.map((part) => state.readAt[part]);
  return times.some((at) => at === null) ? null : Math.min(...(times as number[]));
}
