// The state's age limits, derived from the interval each part was read at (issue 35 (i)): a state poll's
// value is live for three of the poll intervals its read was paced at (pollEvery, recorded with the value
// by the poller), the slow group's for three slow intervals; freshness, liveUntil and the alarm engine's
// "recorder-stale" all take that one derived limit, so sync and dialog read every other poll on a held
// bridge neither turn stale nor stay live past three of their own intervals. And the pace they are read
// at, from the bridge's one stretch: 1 calm, 2 from the first stretch, never more.
import { describe, expect, it } from 'vitest';
import { conditionsNow, NO_CONDITION_MEMORY, type CommandActivity } from '../../src/engine/alarms/alarm-conditions.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { MAX_STRETCH_MS, meterEvery, statePollEvery } from '../../src/engine/picture-pace.js';
import { freshnessOf, initialRecorderState, intervalMs, liveForMs, liveUntil, offlineReason, PACED_PARTS, SLOWEST_POLL_EVERY, type RecorderState } from '../../src/engine/recorder-state.js';

const POLL = 250;
const SLOW = 5000;
const T0 = Date.UTC(2026, 10, 28, 18, 0, 0);
const IDLE: CommandActivity = { inFlight: [], lastAnsweredAt: new Map() };

/** A state whose three state polls were answered at T0 (sync and dialog at `every` polls), the slow group at T0 too. */
function readAt(every: number): RecorderState {
  const base = initialRecorderState('main', POLL, SLOW);
  return {
    ...base,
    channels: [],
    sync: { IsSyncRecording: false, IsSyncRecordingPause: false },
    dialog: { IsDialog: false, DialogContent: '', Buttons: 'OK' },
    schedule: null,
    readAt: { channels: T0, sync: T0, dialog: T0, sources: T0, resources: T0, schedule: T0, conversion: T0 },
    readNumber: { channels: 1, sync: 1, dialog: 1, sources: 1, resources: 1, schedule: 1, conversion: 1 },
    pollEvery: { channels: 1, sync: every, dialog: every },
    lastGoodAt: T0,
  };
}

describe("a part's age limit, from the interval it was read at", () => {
  it('is three poll intervals for a state poll read at the poll pace, three of the slower ones when paced, three slow intervals for the slow group', () => {
    const calm = readAt(1);
    expect(initialRecorderState('main', POLL, SLOW).pollEvery).toEqual({ channels: 1, sync: 1, dialog: 1 });
    for (const part of ['channels', 'sync', 'dialog'] as const) expect(liveForMs(calm, part), part).toBe(750);
    const held = readAt(2);
    expect(intervalMs(held, 'sync')).toBe(500);
    expect(liveForMs(held, 'sync')).toBe(1500);
    expect(liveForMs(held, 'dialog')).toBe(1500);
    expect(liveForMs(held, 'channels')).toBe(750); // never paced
    for (const part of ['sources', 'resources', 'schedule', 'conversion'] as const) expect(liveForMs(held, part), part).toBe(3 * SLOW);
    expect(PACED_PARTS).toEqual(['sync', 'dialog']);
  });

  it('freshness and liveUntil judge each part by its own interval: the paced ones live to 1.5 s, channels to 750 ms', () => {
    const held = readAt(2);
    expect(liveUntil(held, ['sync', 'dialog'])).toBe(T0 + 1500);
    expect(liveUntil(held, ['channels', 'sync', 'dialog'])).toBe(T0 + 750);
    expect(freshnessOf(held, T0 + 1400, ['sync'])).toBe('live');
    expect(freshnessOf(held, T0 + 1400, ['dialog'])).toBe('live');
    expect(freshnessOf(held, T0 + 1501, ['sync'])).toBe('stale');
    expect(freshnessOf(held, T0 + 751, ['channels'])).toBe('stale');
    // The same read at the poll pace is stale after 750 ms: the limit is the interval it was read at, not the pace now.
    expect(freshnessOf(readAt(1), T0 + 751, ['sync'])).toBe('stale');
  });

  it("the alarm engine's recorder-stale takes the derived limit: no alarm while sync and dialog are within three of their paced intervals, one past it", () => {
    const settings = AlarmSettings.parse({});
    const stale = (state: RecorderState, now: number) => conditionsNow(NO_CONDITION_MEMORY, { now, recorders: [{ state, commands: IDLE, disks: [] }], groups: new Map() }, settings).holding.filter((c) => c.kind === 'recorder-stale');
    // Channels read just now, sync and dialog 1.2 s ago at the held pace: within their age.
    const held = { ...readAt(2), readAt: { ...readAt(2).readAt, channels: T0 + 1000 } };
    expect(stale(held, T0 + 1200)).toEqual([]);
    // Read at the poll pace, the same 1.2 s is past their age: the alarm is raised, as before.
    const calm = { ...readAt(1), readAt: { ...readAt(1).readAt, channels: T0 + 1000 } };
    expect(stale(calm, T0 + 1200).map((c) => c.kind)).toEqual(['recorder-stale']);
    // Paced, past three of the slower intervals: raised too (nothing is live past its age).
    const late = { ...held, readAt: { ...held.readAt, channels: T0 + 1500 } };
    expect(stale(late, T0 + 1600).map((c) => c.kind)).toEqual(['recorder-stale']);
  });
});

describe('statePollEvery: how far apart sync and dialog are read, from the pace of what only moves', () => {
  it('every poll while nothing is stretched, two from the first stretch on, never more, as the meters', () => {
    expect(SLOWEST_POLL_EVERY).toBe(2); // said as a number, so this test cannot follow a change of it
    expect(statePollEvery(0)).toBe(1);
    expect(statePollEvery(-5)).toBe(1);
    expect(statePollEvery(1)).toBe(2);
    expect(statePollEvery(MAX_STRETCH_MS)).toBe(2);
    expect(statePollEvery(10 * MAX_STRETCH_MS)).toBe(2);
    for (let stretch = 0; stretch <= MAX_STRETCH_MS; stretch++) expect(statePollEvery(stretch)).toBe(meterEvery(stretch));
  });
});

describe('why a state is offline', () => {
  it('says the reads\' last error, or what the state shows: nothing read yet, or reads failing without a word', () => {
    const never = initialRecorderState('main', POLL, SLOW);
    expect(freshnessOf(never, T0)).toBe('offline');
    expect(offlineReason(never)).toBe('nothing read from it yet');
    const failing: RecorderState = { ...readAt(1), unreachable: true, failures: 4, lastError: 'GET /api/channels failed (network): connection refused' };
    expect(freshnessOf(failing, T0)).toBe('offline');
    expect(offlineReason(failing)).toBe('GET /api/channels failed (network): connection refused');
    expect(offlineReason({ ...failing, lastError: null })).toBe('its last 4 reads did not reach it');
  });
});
