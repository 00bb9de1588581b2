// Alarms judged elsewhere (a poller on the bus), pure: the bus message's schema, an alarm back from its
// wire form, the merge of several readings (as old as its oldest part), and the monitor that takes a
// followed recorder's alarms instead of judging it (on virtual time, over a hand-made source).
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { AlarmsMessage, MAX_BUS_ALARMS } from '../../src/bus/topics.js';
import { alarmWire, type Alarm } from '../../src/engine/alarms/alarm.js';
import { AlarmMonitor, type AlarmSource } from '../../src/engine/alarms/alarm-monitor.js';
import type { AlarmReading } from '../../src/engine/alarms/alarm-picture.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { alarmFromWire, mergedReading, type FollowedAlarms } from '../../src/engine/alarms/followed-alarms.js';
import { initialRecorderState } from '../../src/engine/recorder-state.js';
import { VirtualTime } from '../support/virtual-time.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);

const alarm = (over: Partial<Alarm> = {}): Alarm => ({
  id: 'channel-fault:main:ch3',
  kind: 'channel-fault',
  recorder: 'main',
  channel: 3,
  disk: null,
  severity: 'critical',
  text: 'main, channel 3: the recorder says something is wrong',
  firstSeen: T0,
  lastSeen: T0 + 500,
  raisedAt: T0 + 500,
  ackedAt: null,
  ackedBy: null,
  clearedAt: null,
  ...over,
});

describe('the alarms message on the bus', () => {
  it('carries the alarm list as GET /alarms does, and how often the poller judges', () => {
    const body = { active: [alarmWire(alarm())], judgeEveryMs: 250 };
    expect(AlarmsMessage.parse(body)).toEqual(body);
    expect(AlarmsMessage.parse({ active: [], judgeEveryMs: 250 })).toEqual({ active: [], judgeEveryMs: 250 });
  });

  it('refuses what is not one: another member, a bad alarm, no interval, too many alarms', () => {
    const wire = alarmWire(alarm());
    expect(AlarmsMessage.safeParse({ active: [wire], judgeEveryMs: 250, cleared: [] }).success).toBe(false);
    expect(AlarmsMessage.safeParse({ active: [{ ...wire, kind: 'fire' }], judgeEveryMs: 250 }).success).toBe(false);
    expect(AlarmsMessage.safeParse({ active: [{ ...wire, channel: 0 }], judgeEveryMs: 250 }).success).toBe(false);
    expect(AlarmsMessage.safeParse({ active: [wire] }).success).toBe(false);
    expect(AlarmsMessage.safeParse({ active: [wire], judgeEveryMs: 0 }).success).toBe(false);
    expect(AlarmsMessage.safeParse({ active: Array.from({ length: MAX_BUS_ALARMS + 1 }, () => wire), judgeEveryMs: 250 }).success).toBe(false);
  });

  it('an alarm comes back from its wire form as it was (times in ms)', () => {
    const acked = alarm({ ackedAt: T0 + 900, ackedBy: 'desk-1 key0' });
    expect(alarmFromWire(alarmWire(acked))).toEqual(acked);
    const cleared = alarm({ clearedAt: T0 + 2000 });
    expect(alarmFromWire(alarmWire(cleared))).toEqual(cleared);
  });
});

describe('merged readings', () => {
  const reading = (active: Alarm[], judgedAt: number | null, judgeEveryMs: number | null): AlarmReading => ({ active, judgedAt, judgeEveryMs });

  it('lists every alarm worst first', () => {
    const warning = alarm({ id: 'drops-rising:main:ch1', kind: 'drops-rising', severity: 'warning', channel: 1, raisedAt: T0 });
    const critical = alarm({ id: 'recorder-offline:b', kind: 'recorder-offline', recorder: 'b', channel: null, raisedAt: T0 + 1000 });
    expect(mergedReading([reading([warning], T0, 250), reading([critical], T0, 250)]).active.map((a) => a.id)).toEqual(['recorder-offline:b', 'drops-rising:main:ch1']);
  });

  it('is judged as of the part that goes stale first, so a silent part makes the whole old', () => {
    // Live until T0 + 3 x 250 and T0 + 400 + 3 x 100: the second goes stale first.
    expect(mergedReading([reading([], T0, 250), reading([], T0 + 400, 100)])).toMatchObject({ judgedAt: T0 + 400, judgeEveryMs: 100 });
    expect(mergedReading([reading([], T0 + 1000, 250), reading([], T0, 250)])).toMatchObject({ judgedAt: T0, judgeEveryMs: 250 });
  });

  it('is never judged while a part never was, or when there is no part', () => {
    expect(mergedReading([reading([alarm()], T0, 250), reading([], null, null)])).toEqual({ active: [alarm()], judgedAt: null, judgeEveryMs: null });
    expect(mergedReading([])).toEqual({ active: [], judgedAt: null, judgeEveryMs: null });
  });
});

describe('a monitor following alarms judged elsewhere', () => {
  const POLL = 250;

  function setUp() {
    const time = new VirtualTime(T0);
    // Two recorders, both offline (their reads fail): "local" is judged here, "main" is followed.
    const failing = (name: string) => ({ ...initialRecorderState(name, POLL), failures: 3, unreachable: true, lastError: 'connection refused' });
    const states = [failing('local'), failing('main')];
    const source: AlarmSource = {
      time,
      groups: new Map(),
      recorderStates: () => states,
      commandsOf: () => ({ inFlight: [], lastAnsweredAt: new Map() }),
      diskTimesLeft: () => [],
      loadedProfiles: () => [],
    };
    const changes = new Subject<void>();
    const followedReading: { value: AlarmReading } = { value: { active: [], judgedAt: null, judgeEveryMs: null } };
    const followed: FollowedAlarms = {
      recorders: new Set(['main']),
      reading: () => followedReading.value,
      cleared: () => [],
      changed$: changes.asObservable(),
      ack: (id) => (followedReading.value.active.some((a) => a.id === id) ? { ok: false, reason: `alarm ${id} is judged by its poller`, refusal: 'not-run' } : null),
      ackAll: () => 0,
    };
    const monitor = new AlarmMonitor(source, AlarmSettings.parse({ raisePolls: 2, clearPolls: 2 }));
    monitor.follow(followed);
    return { time, monitor, changes, followedReading };
  }

  it('judges only its own recorders, and lists, shows and acknowledges both', () => {
    const { time, monitor, changes, followedReading } = setUp();
    let changed = 0;
    monitor.changed$.subscribe(() => changed++);
    monitor.start();
    time.advance(3 * POLL);
    // Only the recorder judged here raised its offline alarm; the followed one is its poller's to judge.
    expect(monitor.activeJudgedHere().map((a) => a.id)).toEqual(['recorder-offline:local']);
    // Not yet heard from the poller: the merged book is not one anyone judged.
    expect(monitor.reading()).toMatchObject({ judgedAt: null });

    const fault = alarm({ raisedAt: T0 });
    followedReading.value = { active: [fault], judgedAt: time.now(), judgeEveryMs: POLL };
    changes.next();
    expect(changed).toBe(2); // the raise here, and the followed change
    expect(monitor.active().map((a) => a.id)).toEqual(['channel-fault:main:ch3', 'recorder-offline:local']);
    expect(monitor.list().active.map((a) => a.id)).toEqual(['channel-fault:main:ch3', 'recorder-offline:local']);
    expect(monitor.reading()).toMatchObject({ judgedAt: time.now(), judgeEveryMs: POLL });
    expect(monitor.activeJudgedHere().map((a) => a.id)).toEqual(['recorder-offline:local']);

    expect(monitor.ack('channel-fault:main:ch3', 'a page')).toEqual({ ok: false, reason: 'alarm channel-fault:main:ch3 is judged by its poller', refusal: 'not-run' });
    expect(monitor.ack('recorder-offline:local', 'a page')).toMatchObject({ ok: true, alarm: { ackedBy: 'a page' } });
    expect(monitor.ack('nothing:here', 'a page')).toEqual({ ok: false, reason: 'no active alarm nothing:here' });
    monitor.stop();
  });
});
