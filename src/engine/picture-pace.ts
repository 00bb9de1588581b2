// How often a control is redrawn when the bridge is short of time: a pure decision, from the share of
// its time that pictures took (WorkScheduler.busyShare) and what changed in the picture.
//
// Only what moves is slowed: a take's clock, a meter's levels, a preview, an age counting up, a
// dialog's blink and the pages of a long text. A new preview alone waits for its key's next clock
// second whatever the load (PREVIEW_MS). A change of meaning (a channel that starts or stops, data
// that goes stale or offline, a flash, a hold starting, a page change) is drawn at once, whatever the
// load: slowing it would show data past its age as live, or hide a command's outcome. So the data-age
// is as honest under load as without it, and what is saved is the redraws nobody reads one by one.
import type { Picture } from './picture.js';
import { sameData } from './picture.js';
import { SLOWEST_POLL_EVERY, STALE_AFTER_INTERVALS } from './recorder-state.js';

/** The share of the time on pictures and frames the pace aims to stay under. */
export const TARGET_SHARE = 0.35;
/**
 * The most a moving part's redraw is held back: one poll (250 ms), so a take's clock and a meter still
 * move several times a second and the bench's change → key (a change of meaning) is not touched.
 */
export const MAX_STRETCH_MS = 250;
/** Where a stretch starts from: a frame of a busy page. */
const FIRST_STRETCH_MS = 20;

/**
 * The least time between two redraws of one control that differ only in what moves, for the next
 * second, from the one in force and the busy share it gave. Over the target it grows in proportion (at
 * most doubling a second); under half the target it eases off by a fifth a second; in between it holds.
 * So it settles where pictures take between a sixth and a third of the time, instead of swinging
 * between none and the most (a share measured under a long stretch is small, and would undo it at once).
 */
export function nextStretchMs(stretch: number, busyShare: number): number {
  if (busyShare > TARGET_SHARE) return Math.min(MAX_STRETCH_MS, Math.round(Math.max(stretch, FIRST_STRETCH_MS) * Math.min(2, busyShare / TARGET_SHARE)));
  if (busyShare < TARGET_SHARE / 2) return Math.max(0, Math.round(stretch * 0.8 - 5));
  return stretch;
}

/**
 * The least time between two redraws of a key that differ only in its preview (ms). Previews are
 * fetched once a second per channel, at any phase of the key's clock: drawn at once, a recording key
 * with a preview was drawn (and sent to a page) twice a second, once for the preview and once for its
 * clock. Held until the key's last drawing is this old, a new preview goes with the clock's next second
 * (a second and a little, so that the clock comes first); a key without a clock shows one at most this
 * often, about the rate they come at. The preview is at most this much later than it would have been;
 * nothing else on the key waits for it, and a key's first preview is drawn at once.
 */
export const PREVIEW_MS = 1050;

/** Whether the newer picture differs from the older in its preview alone (a new frame of the channel, nothing else). */
export function onlyPreviewMoved(older: Picture, newer: Picture): boolean {
  if (older.kind !== 'channel' || newer.kind !== 'channel' || older.thumbnail === null || newer.thumbnail === null || older.thumbnail === newer.thumbnail) return false;
  return sameBut(older, newer, PREVIEW_MOVED);
}

/**
 * Whether two pictures say the same thing, and differ (if at all) only in what moves. Compared in place,
 * field by field by the rules below, where copies of both pictures without their moving parts were made
 * at every redraw: spreads that set fields a picture lacks, each ~0.7 kB (a new hidden class for the
 * copy; measured with V8's sampling heap profiler, docs/performance.md "Allocation per refresh").
 */
export function sameMeaning(a: Picture, b: Picture): boolean {
  return a.kind === b.kind && sameBut(a, b, MOVING[a.kind]);
}

/**
 * How a moving field counts in a picture's meaning: `any`, not at all (its value moves on by itself);
 * `null`, only whether it is null (a take's clock running or not, a meter read or not); `absent`, only
 * whether it is there (a preview turning stale, or live again; a hold ring starting); an object of rules:
 * a part compared by its own.
 */
type Moving = 'any' | 'null' | 'absent' | MovingFields;
interface MovingFields {
  readonly [field: string]: Moving;
}

/** The marks on any picture: a reason's page turns and a hold's ring fills by time alone. */
const OVERLAY_MOVING: MovingFields = { reasonPage: 'any', hold: 'absent' };

/** The moving parts of each kind of picture; a field not named is part of the meaning as it is. */
const MOVING: Readonly<Record<Picture['kind'], MovingFields>> = {
  // A preview turning stale (or live again) is a change of meaning; its age counting up is not.
  channel: { durationS: 'null', fps: 'any', thumbnail: 'any', ageS: 'any', previewAgeS: 'absent', overlay: OVERLAY_MOVING },
  sync: { durationS: 'null', ageS: 'any', overlay: OVERLAY_MOVING },
  dialog: { flashPhase: 'any', textPage: 'any', ageS: 'any', overlay: OVERLAY_MOVING },
  meter: { levels: 'null', ageS: 'any', overlay: OVERLAY_MOVING },
  resources: { cpu: 'any', ram: 'any', disk: { used: 'any' }, overlay: OVERLAY_MOVING },
  status: { ageS: 'any', overlay: OVERLAY_MOVING },
  label: { overlay: OVERLAY_MOVING },
  grid: { overlay: OVERLAY_MOVING },
  schedule: { overlay: OVERLAY_MOVING },
  page: { overlay: OVERLAY_MOVING },
  alarms: { overlay: OVERLAY_MOVING },
  blank: { overlay: OVERLAY_MOVING },
};

/** Only the preview differs: every other field, the marks too, is compared as it is. */
const PREVIEW_MOVED: MovingFields = { thumbnail: 'any' };

/** Two objects the same but for their moving fields (a field absent counts as undefined, as in samePicture). */
function sameBut(a: object, b: object, moving: MovingFields): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key in left) if (!sameField(left[key], right[key], moving[key])) return false;
  for (const key in right) if (!(key in left) && !sameField(undefined, right[key], moving[key])) return false;
  return true;
}

function sameField(x: unknown, y: unknown, moving: Moving | undefined): boolean {
  switch (moving) {
    case undefined:
      return sameData(x, y);
    case 'any':
      return true;
    case 'null':
      return (x === null) === (y === null);
    case 'absent':
      return (x === undefined) === (y === undefined);
    default:
      return x === y || (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && sameBut(x, y, moving));
  }
}

/**
 * The most a preview's fetch is spaced out under load, in its nominal intervals: a preview every 4 s
 * per channel instead of every second (a key's preview is a glance at the picture, not the data: the
 * channel's state beside it is read at its own pace whatever the load).
 */
export const PREVIEW_SLOWEST = 4;

/**
 * How many of its nominal intervals apart a preview is fetched (1 .. PREVIEW_SLOWEST), from the pace
 * of what only moves (`nextStretchMs`): every interval while pictures take little of the time, slower
 * in step with the stretch as they take more, the slowest at the longest stretch. Previews are most of
 * what a busy desk page costs (the fetch, the PNG decode, the key drawn again and sent): this spends
 * less of a held bridge's share on them, so presses and state answer. Derived from the one stretch, so
 * it rises and eases with it (no second measurement, no second controller to swing against the first);
 * whole intervals, as a new preview goes out with its key's clock second anyway (PREVIEW_MS).
 */
export function previewEvery(stretchMs: number): number {
  return everyAtStretch(stretchMs, PREVIEW_SLOWEST);
}

/**
 * The most a meter's read is spaced out under load, in its nominal intervals (250 ms): two, a source's
 * levels twice a second instead of four times. Less than a preview's, because a meter's read is also the
 * gain a dial's step starts from (gain-truth.ts), and that read stays the step's basis for three of the
 * intervals it is read at (meterLiveForMs): at two, a step may build on a read up to 1.5 s old while the
 * bridge is short of time (750 ms otherwise), the same rule as every other datum's age, and a step never
 * waits for a read of its own because the pace moved.
 */
export const METER_SLOWEST = 2;

/**
 * How many of its nominal intervals apart a shown meter is read (1 .. METER_SLOWEST), from the same one
 * stretch as the previews (previewEvery): every interval while pictures take little of the time, two as
 * soon as the scheduler stretches what only moves. The meters were the largest kind of request a held
 * bridge made and the one with no pace (bench (i) under a 15 % quota, 2026-11-28: 13.7 source reads a
 * second against 13 state reads and 4 previews), and each read that brings new levels is a meter key
 * drawn again and framed for the page.
 */
export function meterEvery(stretchMs: number): number {
  return everyAtStretch(stretchMs, METER_SLOWEST);
}

/**
 * How many poll intervals apart sync and dialog are read (1 .. SLOWEST_POLL_EVERY, two), from the same one
 * stretch as the meters: every interval while pictures take little of the time, every other one as soon
 * as the scheduler stretches what only moves. With the meters paced, the three state polls were 12-13 of
 * a held bridge's ~25 reads a second (bench (i), 2026-11-28); sync and dialog are two of them, changed by
 * nobody but an operator or the recorder's own dialog. Channels keep their pace (not asked here).
 */
export function statePollEvery(stretchMs: number): number {
  return everyAtStretch(stretchMs, SLOWEST_POLL_EVERY);
}

/**
 * How long a meter's read is the gain and levels (ms), from how far apart its reads are meant to be now
 * (`meterEvery` of its nominal interval): three of them (STALE_AFTER_INTERVALS), the state parts' and
 * previews' rule. Asked when the meter is judged, from the pace then: the pace steps between 1 and 2 only
 * at the stretch's first step and once it has eased back to nothing, and a read taken at one pace is at
 * most one interval of the other old when it steps, well inside three of either.
 */
export function meterLiveForMs(meterMs: number, every: number): number {
  return STALE_AFTER_INTERVALS * meterMs * every;
}

/** Whole intervals apart, 1 .. slowest, in step with the stretch (the slowest at MAX_STRETCH_MS). */
function everyAtStretch(stretchMs: number, slowest: number): number {
  if (stretchMs <= 0) return 1;
  return Math.min(slowest, 1 + Math.ceil(((slowest - 1) * stretchMs) / MAX_STRETCH_MS));
}

/**
 * How long after its fetch a preview is shown as live (ms), from how far apart its fetches are meant to
 * be then (`paceMs`: its intervals at the pace above, or twice its last fetch time when the recorder is
 * slow; FetchPacer.paceMs). Past it, the preview is shown marked stale with its age until a fetch brings
 * it again: its channel's state may be live while the picture behind it stopped (its fetches fail, or
 * one hangs). Three of its intervals, the rule of the state's parts and the meters
 * (STALE_AFTER_INTERVALS): one fetch late or failed on a busy recorder is not news, two in a row is a
 * picture that no longer shows the channel now. The pace's own steps fit in it: it moves by at most one
 * interval a second (the stretch at most doubles a second), so the first fetch at a slower pace still
 * comes within three of the intervals the last one was fetched at.
 */
export function previewLiveForMs(paceMs: number): number {
  return STALE_AFTER_INTERVALS * paceMs;
}
