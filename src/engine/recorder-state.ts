// What the bridge knows about one recorder at a moment: the last good answers, when they came, and how
// the last attempts went. Freshness is derived from this and the current time, never stored, so a
// picture can turn stale without any new answer arriving.
import type { Dialog, Resources, Schedule, SyncState } from '../api/app.js';
import type { Channel } from '../api/channel.js';
import type { ConversionConfig } from '../api/conversion.js';
import type { SourceListEntry } from '../api/source.js';
import type { Freshness } from './picture.js';

export interface RecorderState {
  name: string;
  /** The poll interval, which freshness is measured in. */
  pollMs: number;
  /** When the channels, sync and dialog last came back good (ms), or null if never. */
  lastGoodAt: number | null;
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
  /** The last failure's message (no secrets: RecorderError never carries the token). */
  lastError: string | null;
  /** The last failure could not reach the recorder at all (refused, reset, timeout). */
  unreachable: boolean;
}

export function initialRecorderState(name: string, pollMs: number): RecorderState {
  return {
    name,
    pollMs,
    lastGoodAt: null,
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
/** Intervals without a good answer before the data counts as stale. */
const STALE_AFTER_INTERVALS = 3;

/**
 * live: a good answer within the last 3 poll intervals; offline: never reached, or the last 3 polls
 * could not reach it; stale: otherwise (old data, recorder answering badly or slowly).
 */
export function freshnessOf(state: RecorderState, now: number): Freshness {
  if (state.lastGoodAt === null) return 'offline';
  if (state.unreachable && state.failures >= OFFLINE_AFTER_FAILURES) return 'offline';
  return now - state.lastGoodAt <= STALE_AFTER_INTERVALS * state.pollMs ? 'live' : 'stale';
}

/** Whole seconds since the last good answer, or null when there never was one. */
export function ageSeconds(state: RecorderState, now: number): number | null {
  return state.lastGoodAt === null ? null : Math.max(0, Math.floor((now - state.lastGoodAt) / 1000));
}
