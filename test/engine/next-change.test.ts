// Each picture says when it next changes by time alone (next-change.ts): checked here millisecond by
// millisecond against the pictures themselves. For every kind of change (a clock's second, an age's
// second, data turning stale, a dialog's flash phase and text page, a meter's levels and gain going
// old, a disk's time left and level, a hold ring's step, a reason's page) the moment noted is exactly the first moment the picture
// differs: never later (a change would be missed), never sooner (a refresh for nothing).
import { describe, expect, it } from 'vitest';
import { diskTimesLeft, type DiskHistory, type DiskTimeSettings } from '../../src/engine/disk-time.js';
import { DurationClock } from '../../src/engine/duration-clock.js';
import { gainTruth, type GainRead } from '../../src/engine/gain-truth.js';
import { NextChange, endOf, stepAfter } from '../../src/engine/next-change.js';
import { samePicture, type Picture } from '../../src/engine/picture.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { RING_STEP_MS, REASON_PAGE_MS, overlayOf } from '../../src/engine/session/session-overlays.js';
import { initialSessionState, type SessionState } from '../../src/engine/session/session-state.js';
import { pictureFor, type ResolvedShow } from '../../src/engine/show.js';
import { channelOf } from '../support/channels.js';

const T0 = 1_000_000;
const POLL_MS = 250; // live for 750 ms
const METER_LIVE_MS = 750;

/** A recorder read at `readAt` (fast parts) and `slowAt` (the slow group), 16 channels, 1-3 recording. */
function recorderAt(readAt: number, slowAt: number, over: Partial<RecorderState> = {}): RecorderState {
  const initial = initialRecorderState('main', POLL_MS, 5000);
  return {
    ...initial,
    lastGoodAt: readAt,
    readAt: { channels: readAt, sync: readAt, dialog: readAt, sources: slowAt, resources: slowAt, schedule: slowAt, conversion: slowAt },
    channels: Array.from({ length: 16 }, (_, i) =>
      channelOf(i, i < 3 ? { IsRecording: true, IsRecordingPause: i === 2, IsInSync: i === 1, IsInSyncRec: i === 1, RecordingDuration: 40 + i, RecordingFPS: 25 } : {}),
    ),
    sync: { IsSyncRecording: true, IsSyncRecordingPause: false },
    dialog: null,
    resources: { TotalCPU: 12, CurrentRAM: 4, TotalRAM: 16, DiskInfo: [{ Key: 'D:', Value: 40 }] } as unknown as RecorderState['resources'],
    ...over,
  };
}

interface World {
  recorder: RecorderState;
  durations: DurationClock;
  gain: GainRead | null;
  session: SessionState;
  disks: DiskHistory | null;
}

/** Amber under 2 minutes left, red under 55 s. */
const DISK_TIME: DiskTimeSettings = { windowMs: 15 * 60_000, amberS: 120, redS: 55 };

/** A picture as the session derives it at `now`, and the moment it noted. */
function derive(world: World, show: ResolvedShow, control: string, now: number): { picture: Picture; changesAt: number | null } {
  const changes = new NextChange(now);
  const picture = pictureFor(show, {
    recorder: world.recorder,
    recorderName: 'main',
    now,
    durationOf: (index, noted) => world.durations.read(`${index}`, now, noted),
    diskTimesLeft: () => (world.disks === null ? [] : diskTimesLeft(world.disks, now, DISK_TIME)),
    thumbnailOf: () => null,
    meterOf: () => {
      const truth = gainTruth({ read: world.gain, written: null, now, liveForMs: METER_LIVE_MS, offline: false });
      changes.at(truth.changesAt);
      return truth;
    },
    selectedChannel: 1,
    marksSelection: false,
    page: { name: 'Main', number: 1, count: 1 },
    questionShown: false,
    changes,
  });
  const overlay = overlayOf(world.session, control, 'Main', now, undefined, changes);
  return { picture: overlay ? { ...picture, overlay: { ...picture.overlay, ...overlay } } : picture, changesAt: changes.moment };
}

/** The first millisecond after `from` at which the picture differs from the one at `from`, within `limitMs`; null if none. */
function firstChange(world: World, show: ResolvedShow, control: string, from: number, limitMs: number): number | null {
  const { picture } = derive(world, show, control, from);
  for (let t = from + 1; t <= from + limitMs; t++) if (!samePicture(derive(world, show, control, t).picture, picture)) return t;
  return null;
}

/**
 * Follows the moments a picture notes, `steps` of them from `from`: each must be the first moment the
 * picture really changes. Returns the moments, for the test to say what they should be.
 */
function followMoments(world: World, show: ResolvedShow, from: number, steps: number, control = 'key0'): Array<number | null> {
  const moments: Array<number | null> = [];
  let now = from;
  for (let step = 0; step < steps; step++) {
    const noted = derive(world, show, control, now).changesAt;
    // Where nothing is noted, nothing may change for a long while (20 s: past every threshold here).
    expect(firstChange(world, show, control, now, noted === null ? 20_000 : noted - now + 1), `the moment noted at ${now - T0} ms`).toBe(noted);
    moments.push(noted === null ? null : noted - T0);
    if (noted === null) break;
    now = noted;
  }
  return moments;
}

function world(over: Partial<World> = {}): World {
  return { recorder: recorderAt(T0, T0), durations: new DurationClock(), gain: null, session: initialSessionState('Main', 70), disks: null, ...over };
}

describe('the moment a picture next changes', () => {
  it('stepAfter and endOf: the next whole period counted from an origin, the first millisecond past a last live one', () => {
    expect(stepAfter(0, 500, 3)).toBe(2000);
    expect(stepAfter(100.5, 1000, 0)).toBe(1101);
    expect(endOf(750)).toBe(751);
    const changes = new NextChange(100);
    changes.at(100);
    changes.at(null);
    expect(changes.moment).toBeNull();
    changes.at(300);
    changes.at(200);
    expect(changes.moment).toBe(200);
  });

  it('a recording channel: its clock each second from the middle of its window; stale 750 ms after its read; then its age each second', () => {
    const w = world();
    // Read at T0 - 300 saying 40 s, and at T0 saying 40 s: the take began 40.3 to 41 s before T0; counted from 40.65 s.
    w.durations.observe('0', true, 40, T0 - 300);
    w.durations.observe('0', true, 40, T0);
    // Clock: 41 at T0 + 350; stale at T0 + 751 (frozen at 40, age 0), age 1 at T0 + 1000, 2 at T0 + 2000.
    expect(followMoments(w, { channel: 1, thumbnail: false }, T0, 5)).toEqual([350, 751, 1000, 2000, 3000]);
  });

  it('a paused channel and an idle one change only when their data turns stale, then by their age', () => {
    const w = world();
    w.durations.observe('2', false, 42, T0);
    expect(followMoments(w, { channel: 3, thumbnail: false }, T0, 3)).toEqual([751, 1000, 2000]);
    expect(followMoments(w, { channel: 5, thumbnail: false }, T0 + 100, 3)).toEqual([751, 1000, 2000]);
  });

  it('the sync key: its take clock, the older of its two parts going stale, then their age', () => {
    const w = world({ recorder: recorderAt(T0, T0, { readAt: { ...recorderAt(T0, T0).readAt, sync: T0 - 200 } }) });
    w.durations.observe('1', true, 41, T0 - 100);
    // The take began 41 to 42 s before T0 - 100, counted from T0 - 41600: 42 s at T0 + 400. Stale when sync is
    // 750 ms old; its age counts from the sync read.
    expect(followMoments(w, { sync: 'start' }, T0, 4, 'key1')).toEqual([400, 551, 800, 1800]);
  });

  it('the sync key shows its longest take: it steps when that one does, not when a shorter one does', () => {
    const takers = recorderAt(T0, T0).channels?.map((c) => (c.Index <= 1 ? { ...c, IsRecording: true, IsRecordingPause: false, IsInSync: true, IsInSyncRec: true } : c)) ?? null;
    const w = world({ recorder: recorderAt(T0, T0, { channels: takers }) });
    // Channel 1 counted from T0 - 50500 (51 s at T0 + 500), channel 2 from T0 - 30800 (31 s at T0 + 200,
    // still the shorter).
    w.durations.observe('0', true, 50, T0);
    w.durations.observe('1', true, 30, T0 - 300);
    expect(followMoments(w, { sync: 'start' }, T0 - 100, 2, 'key1')).toEqual([500, 751]);
  });

  it('status, grid, resources and schedule keys turn stale on time; those that show no age change no more', () => {
    const w = world({ recorder: recorderAt(T0, T0 - 14_000) });
    expect(followMoments(w, 'status', T0, 3)).toEqual([751, 1000, 2000]);
    expect(followMoments(w, { grid: 9 }, T0, 2)).toEqual([751, null]);
    // The slow group lives 3 slow intervals (15 s): read 14 s ago, it turns stale in a second.
    expect(followMoments(w, 'resources', T0, 2)).toEqual([1001, null]);
    expect(followMoments(w, 'schedule', T0, 2)).toEqual([1001, null]);
  });

  it('the time left on a disk counts down its minutes and steps its level between reads, while the reads are live', () => {
    // A percent every 13 s, 95 % used at T0: full at T0 + 65 s. 1 minute left (amber) until T0 + 5 s, 0 from
    // 5001 ms; red under 55 s, from 10001 ms; the slow group read at T0 is stale from 15001 ms, and an
    // estimate from old reads is not shown.
    const samples = [91, 92, 93, 94, 95].map((used, i) => ({ at: T0 - (4 - i) * 13_000, used }));
    const w = world({ disks: { writing: '1', disks: new Map([['D:', samples]]) } });
    expect(derive(w, 'resources', 'key0', T0).picture).toMatchObject({ timeLeft: { disk: 'D:', minutes: 1, level: 'amber' } });
    expect(followMoments(w, 'resources', T0, 4)).toEqual([5001, 10001, 15001, null]);
  });

  it('a dialog up: the keys flash each half second and the text pages every 3 s while live; stale, they stop and show their age', () => {
    const dialog = { IsDialog: true, DialogContent: 'Disk D: is almost full. Stop all channels?', Buttons: 'Yes_No' as const };
    const w = world({ recorder: recorderAt(T0 + 100, T0, { dialog }) });
    expect(followMoments(w, 'dialog', T0 + 200, 4)).toEqual([500, 851, 1100, 2000]);
    expect(followMoments(w, 'dialog-ok', T0 + 200, 2)).toEqual([500, 851]);
    // Live long enough to see a page turn: read at T0 + 2800.
    const later = world({ recorder: recorderAt(T0 + 2800, T0, { dialog }) });
    expect(followMoments(later, 'dialog', T0 + 2900, 3)).toEqual([3000, 3500, 3551]);
    // No dialog: nothing flashes or pages; only the data's age moves.
    expect(followMoments(world(), 'dialog', T0, 2)).toEqual([751, 1000]);
  });

  it('a meter: its levels and gain are live 3 meter intervals after the read, then the gain shows its age', () => {
    const w = world({ gain: { db: -6, levels: [-20, -24], at: T0 - 250, order: 1 } });
    expect(followMoments(w, { meter: 1 }, T0, 3)).toEqual([501, 750, 1750]);
  });

  it('a label never changes by time alone', () => {
    expect(followMoments(world(), { label: 'GO' }, T0, 1)).toEqual([null]);
  });

  it('a hold ring fills a step each 40 ms from the press; a reason moves a page each 2 s from the failure', () => {
    const held = initialSessionState('Main', 70);
    const session: SessionState = {
      ...held,
      held: new Map([['key0', { origin: null, page: 'Main', binding: null, downAt: T0 - 10, holdMs: 400, holdFired: false, cancelled: false, id: 1 }]]),
      flashes: new Map([['key1', { kind: 'failed', reason: 'a reason long enough for pages', page: 'Main', at: T0 - 500, id: 2 }]]),
    };
    const w = world({ session });
    const ring = followMoments(w, { label: 'STOP' }, T0, 12);
    expect(ring.slice(0, 3)).toEqual([30, 30 + RING_STEP_MS, 30 + 2 * RING_STEP_MS]);
    // Full after 10 steps (400 ms): the ring stays full until the hold fires (a timer of the session).
    expect(ring.at(-1)).toBeNull();
    expect(followMoments(w, { label: 'START' }, T0, 3, 'key1')).toEqual([REASON_PAGE_MS - 500, 2 * REASON_PAGE_MS - 500, 3 * REASON_PAGE_MS - 500]);
  });
});
