// Time left on each recording disk, estimated from the used percentage the recorder reports
// (`DiskInfo`, read with the slow group) while channels record: the rate the percentage rises over a
// sliding window, and from it when the disk is full. The recorder reports whole percents, so the rate is
// measured between the readings where the figure stepped up (the moments it crossed a percent), not
// between every reading: a staircase read every few seconds gives a true slope only from its edges.
// An estimate is given only when it is steady: at least three steps seen under the same channels
// writing, the rate of the first half of them within a quarter of the second half's, and the next step
// not overdue. The history is the recorder's (one owner, fed from its state); estimates are derived
// from it and the clock, each with the time of the reading behind it.
import type { Resources } from '../api/app.js';
import type { RecorderState } from './recorder-state.js';
import { endOf } from './next-change.js';

export interface DiskTimeSettings {
  /** Readings older than this (before the latest) are dropped. */
  windowMs: number;
  /** Time left under which the key turns amber, and red. */
  amberS: number;
  redS: number;
}

export const DEFAULT_DISK_TIME: DiskTimeSettings = { windowMs: 15 * 60_000, amberS: 30 * 60, redS: 10 * 60 };

/** Steps of the percentage an estimate needs: two intervals between them, to tell a steady rate. */
const MIN_STEPS = 3;
/** How far the two halves' rates may differ, as a share of the whole window's, for the rate to count as steady. */
const STEADY_WITHIN = 0.25;
/** A step later than this many times the mean interval means the rate fell (a take stopped): not steady. */
const OVERDUE_AFTER = 2;

interface DiskSample {
  at: number;
  used: number;
}

/** The readings behind the estimates: all taken while the same channels wrote. */
export interface DiskHistory {
  /** The channels writing (recording, not paused) when these were read, e.g. "1,3"; '' while none. */
  writing: string;
  disks: ReadonlyMap<string, readonly DiskSample[]>;
}

export const EMPTY_DISK_HISTORY: DiskHistory = { writing: '', disks: new Map() };

export type DiskLevel = 'ok' | 'amber' | 'red';

export interface DiskTimeLeft {
  disk: string;
  /** The used percentage last read. */
  used: number;
  /** When the reading behind it came (the engine's clock). */
  readAt: number;
  /** Seconds until full at the measured rate, counted down on the clock; null until the rate is steady. */
  secondsLeft: number | null;
  /** When it is full at the measured rate (the engine's clock); null until the rate is steady. */
  fullAt: number | null;
  /** Percent a minute, while steady. */
  percentPerMinute: number | null;
  level: DiskLevel | null;
  /** The first moment the level steps on by time alone (to amber, to red); null when it no longer does. */
  levelChangesAt: number | null;
}

/** The history after one more resources reading; another set of channels writing starts it afresh. */
export function nextDiskHistory(history: DiskHistory, reading: { at: number; disks: Resources['DiskInfo']; writing: string }, windowMs: number): DiskHistory {
  if (reading.writing === '') return EMPTY_DISK_HISTORY;
  const fresh = reading.writing !== history.writing;
  const disks = new Map<string, readonly DiskSample[]>();
  for (const { Key, Value } of reading.disks) {
    const before = fresh ? [] : (history.disks.get(Key) ?? []);
    const last = before.at(-1);
    // A disk that got emptier (files deleted, another disk mounted) starts afresh too.
    const kept = last !== undefined && Value < last.used ? [] : before.filter((s) => s.at >= reading.at - windowMs);
    disks.set(Key, [...kept, { at: reading.at, used: Value }]);
  }
  return { writing: reading.writing, disks };
}

/** Each disk's time left now, from the history. */
export function diskTimesLeft(history: DiskHistory, now: number, settings: DiskTimeSettings): DiskTimeLeft[] {
  return [...history.disks].map(([disk, samples]) => {
    const last = samples.at(-1) as DiskSample;
    const rate = steadyRate(samples);
    if (rate === null) return { disk, used: last.used, readAt: last.at, secondsLeft: null, fullAt: null, percentPerMinute: null, level: null, levelChangesAt: null };
    const secondsLeft = Math.max(0, (rate.fullAt - now) / 1000);
    // A level holds while the time left is at least its threshold: it steps on the first whole ms after.
    const thresholds = [settings.amberS, settings.redS].map((s) => endOf(rate.fullAt - s * 1000)).filter((at) => at > now);
    const levelChangesAt = thresholds.length === 0 ? null : Math.min(...thresholds);
    return { disk, used: last.used, readAt: last.at, secondsLeft, fullAt: rate.fullAt, percentPerMinute: rate.perMs * 60_000, level: levelOf(secondsLeft, settings), levelChangesAt };
  });
}

export function levelOf(secondsLeft: number, settings: Pick<DiskTimeSettings, 'amberS' | 'redS'>): DiskLevel {
  return secondsLeft < settings.redS ? 'red' : secondsLeft < settings.amberS ? 'amber' : 'ok';
}

/** The rate between the steps (percent per ms) and when it fills the disk, or null when not steady. */
function steadyRate(samples: readonly DiskSample[]): { perMs: number; fullAt: number } | null {
  const steps = samples.filter((s, i) => i > 0 && s.used > (samples[i - 1] as DiskSample).used);
  if (steps.length < MIN_STEPS) return null;
  const first = steps[0] as DiskSample;
  const last = steps.at(-1) as DiskSample;
  const middle = steps[Math.floor((steps.length - 1) / 2)] as DiskSample;
  const slope = (a: DiskSample, b: DiskSample) => (b.used - a.used) / (b.at - a.at);
  const perMs = slope(first, last);
  if (!(perMs > 0)) return null;
  if (Math.abs(slope(first, middle) - slope(middle, last)) > STEADY_WITHIN * perMs) return null;
  const meanGap = (last.at - first.at) / (steps.length - 1);
  const latest = samples.at(-1) as DiskSample;
  if (latest.at - last.at > OVERDUE_AFTER * meanGap) return null;
  return { perMs, fullAt: last.at + (100 - last.used) / perMs };
}

/** The channels a state shows writing, as the history keys them. */
export function writingChannels(state: RecorderState): string {
  return (state.channels ?? [])
    .filter((c) => c.IsRecording && !c.IsRecordingPause)
    .map((c) => c.Index + 1)
    .join(',');
}

/**
 * One recorder's disk history, kept from its resources reads as they come (each read once, at the time
 * its answer came); estimates are derived on asking.
 */
export class DiskTimes {
  private history: DiskHistory = EMPTY_DISK_HISTORY;
  private lastRead: number | null = null;

  constructor(readonly settings: DiskTimeSettings) {}

  observe(state: RecorderState): void {
    const at = state.readAt.resources;
    if (at === null || state.resources === null || at === this.lastRead) return;
    this.lastRead = at;
    this.history = nextDiskHistory(this.history, { at, disks: state.resources.DiskInfo, writing: writingChannels(state) }, this.settings.windowMs);
  }

  read(now: number): DiskTimeLeft[] {
    return diskTimesLeft(this.history, now, this.settings);
  }
}
