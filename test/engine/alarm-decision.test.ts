// The alarm engine's rules, pure: recorder states built by hand on a virtual timeline (one evaluation per
// 250 ms poll), every kind raised and cleared, and no flapping at the raise and clear thresholds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/api/channel.js';
import type { Dialog, SyncState } from '../../src/api/app.js';
import type { DiskTimeLeft } from '../../src/engine/disk-time.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { AlarmWebhookPayload, AlarmWire, alarmWire, type AlarmEvent } from '../../src/engine/alarms/alarm.js';
import type { CommandActivity } from '../../src/engine/alarms/alarm-conditions.js';
import { EMPTY_BOOK, acknowledge, acknowledgeAll, evaluate, type AlarmBook } from '../../src/engine/alarms/alarm-decision.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { channelOf } from '../support/channels.js';

const POLL = 250;
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const SETTINGS = AlarmSettings.parse({ raisePolls: 3, clearPolls: 5 });

interface RecorderSetup {
  channels: Channel[];
  sync: SyncState;
  dialog: Dialog;
  commands: CommandActivity;
  disks: DiskTimeLeft[];
  /** Reads stop answering: the state keeps its last read times and counts failures. */
  failing: null | { unreachable: boolean };
}

/** A timeline of evaluations, one per poll; each poll reads every live recorder afresh. */
class Timeline {
  now = T0;
  book: AlarmBook = EMPTY_BOOK;
  events: AlarmEvent[] = [];
  groups = new Map<string, string[]>();
  private readonly states = new Map<string, RecorderState>();
  readonly recorders = new Map<string, RecorderSetup>();

  constructor(
    names: string[] = ['main'],
    readonly settings = SETTINGS,
  ) {
    for (const name of names) {
      this.recorders.set(name, {
        channels: [0, 1, 2, 3].map((i) => channelOf(i)),
        sync: { IsSyncRecording: false, IsSyncRecordingPause: false },
        dialog: { IsDialog: false, DialogContent: '', Buttons: 'OK' },
        commands: IDLE,
        disks: [],
        failing: null,
      });
      this.states.set(name, initialRecorderState(name, POLL, 5000));
    }
  }

  set(name: string, change: (r: RecorderSetup) => void): this {
    change(this.recorders.get(name) as RecorderSetup);
    return this;
  }

  channel(index: number, over: Partial<Channel>, name = 'main'): this {
    return this.set(name, (r) => (r.channels = r.channels.map((c) => (c.Index === index ? { ...c, ...over } : c))));
  }

  /** One poll: every recorder read (or failing), then one evaluation. Returns the events of this poll. */
  poll(): AlarmEvent[] {
    this.now += POLL;
    const observed = [...this.recorders].map(([name, setup]) => {
      const before = this.states.get(name) as RecorderState;
      const state: RecorderState =
        setup.failing === null
          ? {
              ...before,
              channels: setup.channels,
              sync: setup.sync,
              dialog: setup.dialog,
              readAt: { ...before.readAt, channels: this.now, sync: this.now, dialog: this.now },
              readNumber: { ...before.readNumber, channels: before.readNumber.channels + 1, sync: before.readNumber.sync + 1, dialog: before.readNumber.dialog + 1 },
              lastGoodAt: this.now,
              failures: 0,
              lastError: null,
              unreachable: false,
            }
          : { ...before, failures: before.failures + 1, lastError: setup.failing.unreachable ? 'connect ECONNREFUSED' : 'status 500', unreachable: setup.failing.unreachable };
      this.states.set(name, state);
      return { state, commands: setup.commands, disks: setup.disks };
    });
    const decision = evaluate(this.book, { now: this.now, recorders: observed, groups: this.groups }, this.settings);
    this.book = decision.book;
    this.events.push(...decision.events);
    return decision.events;
  }

  polls(n: number): AlarmEvent[] {
    return Array.from({ length: n }, () => this.poll()).flat();
  }

  active(): string[] {
    return [...this.book.active.keys()];
  }
}

const IDLE: CommandActivity = { inFlight: [], lastAnsweredAt: new Map() };
const answered = (channel: number | null, at: number): CommandActivity => ({ inFlight: [], lastAnsweredAt: new Map([[channel, at]]) });

const summary = (events: AlarmEvent[]) => events.map((e) => `${e.state} ${e.alarm.id} ${e.alarm.severity}`);

describe('alarm decision', () => {
  it('a channel fault while recording raises after the raise polls, not before, and clears after the clear polls, not before', () => {
    const t = new Timeline();
    t.channel(1, { IsRecording: true }).polls(2);
    t.channel(1, { IsSomethingWrong: true });
    expect(t.polls(2)).toEqual([]);
    const firstSeen = t.now - POLL;
    const raised = t.poll();
    expect(summary(raised)).toEqual(['raised channel-fault:main:ch2 critical']);
    const alarm = raised[0]?.alarm;
    expect(alarm).toMatchObject({ recorder: 'main', channel: 2, kind: 'channel-fault', firstSeen, raisedAt: t.now, ackedAt: null });
    expect(alarm?.text).toContain('channel 2 (Cam 2)');
    // Still holding: nothing new, last seen moves on.
    expect(t.polls(4)).toEqual([]);
    expect(t.book.active.get('channel-fault:main:ch2')?.lastSeen).toBe(t.now);
    t.channel(1, { IsSomethingWrong: false });
    expect(t.polls(4)).toEqual([]);
    const cleared = t.poll();
    expect(summary(cleared)).toEqual(['cleared channel-fault:main:ch2 critical']);
    expect(t.book.cleared[0]?.clearedAt).toBe(t.now);
    expect(t.active()).toEqual([]);
  });

  it('a fault on a channel that is not recording raises nothing', () => {
    const t = new Timeline();
    t.channel(0, { IsSomethingWrong: true });
    expect(t.polls(20)).toEqual([]);
  });

  it('a condition flapping at the thresholds neither raises nor, once raised, clears', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true });
    // Two polls on, one off, for a minute: never three in a row.
    for (let i = 0; i < 240; i++) t.channel(0, { IsSomethingWrong: i % 3 !== 2 }).poll();
    expect(t.events).toEqual([]);
    t.channel(0, { IsSomethingWrong: true }).polls(3);
    expect(t.active()).toEqual(['channel-fault:main:ch1']);
    // Four polls off, one on, for a minute: never five in a row.
    for (let i = 0; i < 240; i++) t.channel(0, { IsSomethingWrong: i % 5 === 4 }).poll();
    expect(summary(t.events)).toEqual(['raised channel-fault:main:ch1 critical']);
  });

  it('drops and breaks rising within the last minute raise drops-rising, critical past its threshold, and clear a minute after the last', () => {
    const t = new Timeline();
    t.channel(2, { IsRecording: true, RecordingDrops: 40 }).polls(4); // drops from before: the first read is the baseline
    expect(t.events).toEqual([]);
    t.channel(2, { RecordingDrops: 45, RecordingBreaks: 1 });
    expect(t.polls(2)).toEqual([]);
    expect(summary(t.poll())).toEqual(['raised drops-rising:main:ch3 warning']);
    expect(t.book.active.get('drops-rising:main:ch3')?.text).toContain('6 frames dropped or broken in the last minute');
    t.channel(2, { RecordingDrops: 400 });
    expect(summary(t.poll())).toEqual(['raised drops-rising:main:ch3 critical']);
    // No more drops: the rise stays in the window for a minute, then five polls to clear.
    const lastRise = t.now;
    while (t.now < lastRise + 60_000) expect(t.poll()).toEqual([]);
    const clearing = t.polls(5);
    expect(summary(clearing)).toEqual(['cleared drops-rising:main:ch3 critical']);
  });

  it('a new take (counters reset) does not count as a rise', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true, RecordingDrops: 500 }).polls(3);
    t.channel(0, { IsRecording: false, RecordingDrops: 500 }).polls(1);
    t.channel(0, { IsRecording: true, RecordingDrops: 0 }).polls(10);
    expect(t.events.filter((e) => e.alarm.kind === 'drops-rising')).toEqual([]);
  });

  it('buffered frames above the threshold and growing over the window raise buffer-growing; steady ones clear it', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true });
    for (let frames = 10; frames <= 60; frames += 2) t.channel(0, { RecordingBuffered: frames }).poll();
    expect(t.active()).toEqual(['buffer-growing:main:ch1']);
    const raisedAt = t.events[0]?.at as number;
    // Raised only once the rise spanned the window (5 s) above 25 frames, never on one step.
    expect(raisedAt).toBeGreaterThanOrEqual(T0 + 2 * POLL);
    // Steady at 60: the rise stays in the 5 s window for its length, then five polls to clear.
    t.polls(5000 / POLL - 1);
    expect(t.active()).toEqual(['buffer-growing:main:ch1']);
    expect(summary(t.polls(7))).toEqual(['cleared buffer-growing:main:ch1 warning']);
  });

  it('a take that stops with no command of recdeck under way raises unexpected-stop; it clears when the channel records again', () => {
    const t = new Timeline();
    t.channel(3, { IsRecording: true }).polls(3);
    t.channel(3, { IsRecording: false });
    expect(t.polls(2)).toEqual([]);
    expect(summary(t.poll())).toEqual(['raised unexpected-stop:main:ch4 critical']);
    expect(t.book.active.get('unexpected-stop:main:ch4')?.text).toContain('stopped without a command from recdeck');
    t.polls(20); // stays while the channel stays stopped
    expect(t.active()).toEqual(['unexpected-stop:main:ch4']);
    t.channel(3, { IsRecording: true });
    expect(summary(t.polls(5))).toEqual(['cleared unexpected-stop:main:ch4 critical']);
  });

  it('a stop read while a command of recdeck is under way, or within its settle time, is recdeck’s and raises nothing', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true }).channel(1, { IsRecording: true }).polls(3);
    t.set('main', (r) => (r.commands = { inFlight: [0], lastAnsweredAt: new Map() }));
    t.channel(0, { IsRecording: false }).poll();
    t.set('main', (r) => (r.commands = answered(0, t.now + 10)));
    t.polls(4);
    // A write about the whole recorder (sync-rec-stop), answered 200 ms before the read that shows the stop.
    t.set('main', (r) => (r.commands = answered(null, t.now + POLL - 200)));
    t.channel(1, { IsRecording: false }).polls(10);
    expect(t.events).toEqual([]);
  });

  it('a stop of recdeck’s read late, the machine stalled past the settle time, is recdeck’s still: it is among the first reads after the answer', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true }).channel(1, { IsRecording: true }).polls(3);
    // Answered now, before read 4; then nothing is read for 10 polls (a stalled host), and read 4 shows the stop.
    t.set('main', (r) => (r.commands = { inFlight: [], lastAnsweredAt: new Map([[0, t.now]]), firstReadAfterAnswer: new Map([[0, 4]]) }));
    t.now += 10 * POLL;
    t.channel(0, { IsRecording: false }).polls(5);
    expect(t.events).toEqual([]);
    // The contrast: a take of channel 1 that stops by itself past the first settle time of reads (4) after that answer is not recdeck's.
    t.channel(0, { IsRecording: true }).polls(2);
    t.channel(0, { IsRecording: false }).polls(3);
    expect(t.active()).toEqual(['unexpected-stop:main:ch1']);
  });

  it('a command about one channel does not cover another channel stopping beside it', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true }).channel(3, { IsRecording: true }).polls(3);
    t.set('main', (r) => (r.commands = { inFlight: [0], lastAnsweredAt: new Map() }));
    t.channel(0, { IsRecording: false }).channel(3, { IsRecording: false }).polls(3);
    expect(t.active()).toEqual(['unexpected-stop:main:ch4']);
  });

  it('a stop long after recdeck’s last command is not recdeck’s', () => {
    const t = new Timeline();
    t.set('main', (r) => (r.commands = answered(0, T0)));
    t.channel(0, { IsRecording: true }).polls(20);
    t.channel(0, { IsRecording: false }).polls(3);
    expect(t.active()).toEqual(['unexpected-stop:main:ch1']);
  });

  it('a recorder unreachable for three reads raises offline (critical); one answering badly raises stale (warning); neither judges its channels on old data', () => {
    const t = new Timeline(['main', 'backup']);
    t.channel(0, { IsRecording: true, IsSomethingWrong: true }, 'main').polls(3);
    expect(t.active()).toEqual(['channel-fault:main:ch1']);
    t.set('main', (r) => (r.failing = { unreachable: true }));
    t.set('backup', (r) => (r.failing = { unreachable: false }));
    t.polls(2);
    expect(t.active()).toEqual(['channel-fault:main:ch1']);
    t.polls(6);
    expect(summary(t.events.slice(1))).toEqual(['raised recorder-offline:main critical', 'raised recorder-stale:backup warning']);
    expect(t.book.active.get('recorder-offline:main')?.text).toBe('Recorder main is offline: connect ECONNREFUSED');
    // The fault is not cleared on data nobody can read: the fault alarm stays until a live read says otherwise.
    t.polls(40);
    expect(t.active().sort()).toEqual(['channel-fault:main:ch1', 'recorder-offline:main', 'recorder-stale:backup']);
    t.channel(0, { IsSomethingWrong: false }, 'main');
    t.set('main', (r) => (r.failing = null)).set('backup', (r) => (r.failing = null));
    expect(summary(t.polls(5)).sort()).toEqual(['cleared channel-fault:main:ch1 critical', 'cleared recorder-offline:main critical', 'cleared recorder-stale:backup warning']);
  });

  it('a recorder never reached and never asked is not offline yet', () => {
    const t = new Timeline();
    const before = t.book;
    const decision = evaluate(before, { now: T0, recorders: [{ state: initialRecorderState('main', POLL), commands: IDLE, disks: [] }], groups: new Map() }, SETTINGS);
    expect(decision.events).toEqual([]);
    expect(decision.book.counts.size).toBe(0);
  });

  it('disk time left under amber raises a warning, under red escalates to critical (to be acknowledged again), and clears above it', () => {
    const t = new Timeline();
    const disk = (level: DiskTimeLeft['level'], secondsLeft: number): DiskTimeLeft => ({ disk: 'D:', used: 91, readAt: t.now, secondsLeft, fullAt: t.now + secondsLeft * 1000, percentPerMinute: 0.3, level, levelChangesAt: null });
    t.set('main', (r) => (r.disks = [disk('amber', 25 * 60)]));
    expect(summary(t.polls(3))).toEqual(['raised disk-time:main:D: warning']);
    expect(t.book.active.get('disk-time:main:D:')?.text).toContain('disk D: is full in 25 min');
    const acked = acknowledge(t.book, 'disk-time:main:D:', 'key 3', t.now);
    if ('error' in acked) throw new Error(acked.error);
    t.book = acked.book;
    t.set('main', (r) => (r.disks = [disk('red', 9 * 60)]));
    const worse = t.poll();
    expect(summary(worse)).toEqual(['raised disk-time:main:D: critical']);
    expect(worse[0]?.alarm.ackedAt).toBeNull();
    t.set('main', (r) => (r.disks = [disk('ok', 60 * 60)]));
    expect(summary(t.polls(5))).toEqual(['cleared disk-time:main:D: critical']);
  });

  it('a dialog waiting longer than the set time raises dialog-waiting; answering it clears', () => {
    const t = new Timeline();
    t.set('main', (r) => (r.dialog = { IsDialog: true, DialogContent: 'Stop all channels?', Buttons: 'Yes_No' }));
    const shownAt = t.now + POLL;
    while (t.now < shownAt + 10_000) expect(t.poll()).toEqual([]);
    // 10 s after it was first read: the condition holds from here, raised after the hold.
    const raised = t.polls(3);
    expect(summary(raised)).toEqual(['raised dialog-waiting:main warning']);
    expect(raised[0]?.alarm.text).toContain('"Stop all channels?"');
    t.set('main', (r) => (r.dialog = { IsDialog: false, DialogContent: '', Buttons: 'OK' }));
    expect(summary(t.polls(5))).toEqual(['cleared dialog-waiting:main warning']);
  });

  it('an InSync channel not recording while sync-rec runs raises sync-channel-idle', () => {
    const t = new Timeline();
    t.set('main', (r) => (r.sync = { IsSyncRecording: true, IsSyncRecordingPause: false }));
    t.channel(0, { IsInSync: true, IsInSyncRec: true, IsRecording: true }).channel(1, { IsInSync: true });
    expect(summary(t.polls(3))).toEqual(['raised sync-channel-idle:main:ch2 critical']);
    t.channel(1, { IsInSyncRec: true, IsRecording: true });
    expect(summary(t.polls(5))).toEqual(['cleared sync-channel-idle:main:ch2 critical']);
  });

  it('a recorder group whose members record differently raises group-disagree on the group; unknown while a member is not live', () => {
    const t = new Timeline(['main', 'backup']);
    t.groups.set('studio', ['main', 'backup']);
    t.channel(0, { IsRecording: true }, 'main').channel(0, { IsRecording: true }, 'backup').polls(5);
    expect(t.events).toEqual([]);
    t.channel(0, { IsRecording: false }, 'backup');
    t.set('backup', (r) => (r.commands = { inFlight: [0], lastAnsweredAt: new Map() })); // recdeck stopped it: no unexpected-stop
    const raised = t.polls(3);
    expect(summary(raised)).toEqual(['raised group-disagree:studio:ch1 critical']);
    expect(raised[0]?.alarm.text).toBe('Group studio, channel 1: records on MAIN but not on BACKUP');
    t.set('backup', (r) => (r.failing = { unreachable: true }));
    t.channel(0, { IsRecording: true }, 'backup');
    t.polls(3);
    expect(t.active()).toContain('group-disagree:studio:ch1');
    t.set('backup', (r) => (r.failing = null));
    expect(summary(t.polls(5)).filter((s) => s.includes('group'))).toEqual(['cleared group-disagree:studio:ch1 critical']);
  });

  it('acknowledging marks the alarm acked once, names who, and refuses unknown and cleared alarms with the reason', () => {
    const t = new Timeline();
    t.channel(0, { IsRecording: true, IsSomethingWrong: true }).channel(1, { IsRecording: true, IsSomethingWrong: true }).polls(3);
    const one = acknowledge(t.book, 'channel-fault:main:ch1', '127.0.0.1 (API)', t.now);
    if ('error' in one) throw new Error(one.error);
    expect(summary(one.events)).toEqual(['acked channel-fault:main:ch1 critical']);
    expect(one.events[0]?.alarm).toMatchObject({ ackedAt: t.now, ackedBy: '127.0.0.1 (API)' });
    expect(alarmWire(one.events[0]?.alarm as never).state).toBe('acked');
    const again = acknowledge(one.book, 'channel-fault:main:ch1', 'someone', t.now + 5);
    expect('error' in again ? again.error : again.events).toEqual([]);
    const all = acknowledgeAll(one.book, 'pedal', t.now);
    expect(summary(all.events)).toEqual(['acked channel-fault:main:ch2 critical']);
    expect(acknowledge(t.book, 'channel-fault:main:ch9', 'x', t.now)).toEqual({ error: 'no active alarm channel-fault:main:ch9' });
    t.book = all.book;
    t.channel(0, { IsSomethingWrong: false }).polls(5);
    expect(acknowledge(t.book, 'channel-fault:main:ch1', 'x', t.now)).toEqual({ error: 'alarm channel-fault:main:ch1 has cleared already' });
    expect(AlarmWire.parse(alarmWire(t.book.cleared[0] as never)).state).toBe('cleared');
  });

  it('kinds turned off are never raised, and only the last clearedKept cleared alarms are kept', () => {
    const t = new Timeline(['main'], AlarmSettings.parse({ raisePolls: 1, clearPolls: 1, clearedKept: 2, off: ['unexpected-stop'] }));
    for (let i = 0; i < 4; i++) {
      t.channel(i, { IsRecording: true, IsSomethingWrong: true }).poll();
      t.channel(i, { IsRecording: false, IsSomethingWrong: false }).poll();
    }
    expect(t.events.some((e) => e.alarm.kind === 'unexpected-stop')).toBe(false);
    expect(t.book.cleared.map((a) => a.id)).toEqual(['channel-fault:main:ch4', 'channel-fault:main:ch3']);
  });

  it('the settings say what is wrong with a bad value', () => {
    const bad = AlarmSettings.safeParse({ raisePolls: 0, off: ['nonsense'], extra: 1 });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.') || i.code);
    expect(paths).toEqual(expect.arrayContaining(['raisePolls', 'off.0']));
    expect(AlarmSettings.parse({})).toMatchObject({ raisePolls: 3, clearPolls: 5, dialogWaitS: 10, webhook: { attempts: 6 } });
  });
});

describe('the README\'s Alarms section', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Alarms'));
  it('its settings file example is valid settings, and its webhook payload a valid payload', () => {
    const settings = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(AlarmSettings.parse(parseYaml(settings))).toMatchObject({ raisePolls: 3, off: ['buffer-growing'] });
    const payload = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(AlarmWebhookPayload.parse(JSON.parse(payload)).alarm.channel).toBe(3);
  });
});
