// The alarm conditions' memory between reads (issue 35 (d)): a counter kept as the reads where it changed
// instead of every read, and a read that changes nothing keeping the same memory. Judged against the rule
// it replaces, written out here as the specification (every read of the window kept, the newest read at
// or before the window's start as the baseline): the same conditions, texts and severities at every poll,
// over long seeded runs of counters that stay, step, rise and reset. And the monitor's recorder groups,
// merged once per list of profiles, not at every poll, yet afresh when the profiles change.
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/api/channel.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { AlarmMonitor } from '../../src/engine/alarms/alarm-monitor.js';
import { Profile, type LoadedProfile } from '../../src/profiles/schema.js';
import { VirtualTime } from '../support/virtual-time.js';
import { NO_CONDITION_MEMORY, conditionsNow, type CommandActivity, type ConditionMemory, type Condition } from '../../src/engine/alarms/alarm-conditions.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { channelOf } from '../support/channels.js';

const POLL = 250;
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const SETTINGS = AlarmSettings.parse({ dropsPerMinute: 3, dropsPerMinuteCritical: 40, bufferedFrames: 25, bufferGrowingS: 5 });
const IDLE: CommandActivity = { inFlight: [], lastAnsweredAt: new Map() };

interface Sample {
  at: number;
  value: number;
}

/** The rule as it was: every read of the window kept (alarm-conditions.ts before issue 35 (d)). */
function everyRead(samples: readonly Sample[], sample: Sample, windowMs: number): Sample[] {
  const last = samples.at(-1);
  if (last !== undefined && sample.value < last.value) return [sample];
  const from = sample.at - windowMs;
  const firstInside = samples.findIndex((s) => s.at > from);
  const kept = firstInside === -1 ? samples.slice(-1) : samples.slice(Math.max(0, firstInside - 1));
  return [...kept, sample];
}

/** The conditions the old rule gave for one recording channel's drops and buffer, from every read kept. */
function expected(losses: readonly Sample[], buffered: readonly Sample[], channel: Channel): Array<Pick<Condition, 'kind' | 'severity' | 'text'>> {
  const out: Array<Pick<Condition, 'kind' | 'severity' | 'text'>> = [];
  const label = `Recorder main, channel ${channel.Index + 1} (Cam ${channel.Index + 1})`;
  const lost = losses.length < 2 ? 0 : (losses.at(-1) as Sample).value - (losses[0] as Sample).value;
  if (lost >= SETTINGS.dropsPerMinute) {
    out.push({ kind: 'drops-rising', severity: lost >= SETTINGS.dropsPerMinuteCritical ? 'critical' : 'warning', text: `${label}: ${lost} frames dropped or broken in the last minute (${channel.RecordingDrops} drops, ${channel.RecordingBreaks} breaks this take)` });
  }
  const first = buffered[0];
  const last = buffered.at(-1);
  const grew = first !== undefined && last !== undefined && last.value > first.value && last.at - first.at >= SETTINGS.bufferGrowingS * 1000 - POLL;
  if (channel.RecordingBuffered >= SETTINGS.bufferedFrames && grew) {
    out.push({ kind: 'buffer-growing', severity: 'warning', text: `${label}: ${channel.RecordingBuffered} frames buffered and growing (the recorder is not keeping up)` });
  }
  return out;
}

/** A seeded generator (mulberry32), so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A state with channels read `read` at `at` (sync and dialog read with it). */
function stateAt(before: RecorderState, channels: Channel[], at: number, read: number): RecorderState {
  return {
    ...before,
    channels,
    sync: { IsSyncRecording: false, IsSyncRecordingPause: false },
    dialog: { IsDialog: false, DialogContent: '', Buttons: 'OK' },
    readAt: { ...before.readAt, channels: at, sync: at, dialog: at },
    readNumber: { ...before.readNumber, channels: read, sync: read, dialog: read },
    lastGoodAt: at,
  };
}

describe('the alarm conditions memory', () => {
  it.each([1, 2, 3])('judges drops and a growing buffer as keeping every read did, over 2000 polls of seed %i', (seed) => {
    const next = random(seed);
    let channel = channelOf(0, { IsRecording: true, RecordingBuffered: 20 });
    let state = initialRecorderState('main', POLL, 5000);
    let memory: ConditionMemory = NO_CONDITION_MEMORY;
    let losses: Sample[] = [];
    let buffered: Sample[] = [];
    let now = T0;
    let raisedSeen = 0;
    const differing: string[] = [];
    for (let poll = 1; poll <= 2000; poll++) {
      // Long calm stretches (the window moves past old changes), steps, bursts, and a reset now and then.
      const roll = next();
      const drops = roll < 0.9 ? channel.RecordingDrops : roll < 0.99 ? channel.RecordingDrops + Math.floor(next() * 20) : 0;
      const bufferRoll = next();
      const buffer = bufferRoll < 0.85 ? channel.RecordingBuffered : bufferRoll < 0.95 ? channel.RecordingBuffered + 1 + Math.floor(next() * 4) : Math.floor(next() * 30);
      channel = { ...channel, RecordingDrops: drops, RecordingBuffered: buffer };
      // Reads come late now and then (a loaded machine): the window's edge falls between reads.
      now += POLL + (next() < 0.1 ? Math.floor(next() * 900) : 0);
      state = stateAt(state, [channel], now, poll);
      losses = everyRead(losses, { at: now, value: drops + channel.RecordingBreaks }, 60_000);
      buffered = everyRead(buffered, { at: now, value: buffer }, SETTINGS.bufferGrowingS * 1000);
      const found = conditionsNow(memory, { now, recorders: [{ state, commands: IDLE, disks: [] }], groups: new Map() }, SETTINGS);
      memory = found.memory;
      const judged = found.holding.map(({ kind, severity, text }) => ({ kind, severity, text }));
      if (JSON.stringify(judged) !== JSON.stringify(expected(losses, buffered, channel))) differing.push(`poll ${poll}: ${JSON.stringify(judged)}`);
      raisedSeen += judged.length;
    }
    expect(differing).toEqual([]);
    // The runs do reach the conditions (a comparison of two calm judges would show nothing).
    expect(raisedSeen).toBeGreaterThan(100);
  });

  it('keeps the same channel memory for a read that changes no counter, and makes a new one when one moves', () => {
    const channels = [0, 1, 2].map((i) => channelOf(i, { IsRecording: true, RecordingDrops: 5, RecordingBuffered: 3 }));
    const judge = (memory: ConditionMemory, state: RecorderState, now: number) => conditionsNow(memory, { now, recorders: [{ state, commands: IDLE, disks: [] }], groups: new Map() }, SETTINGS).memory;
    let state = stateAt(initialRecorderState('main', POLL, 5000), channels, T0, 1);
    const first = judge(NO_CONDITION_MEMORY, state, T0);
    state = stateAt(state, channels.map((c) => ({ ...c, RecordingDuration: 9 })), T0 + POLL, 2);
    const second = judge(first, state, T0 + POLL);
    // A new read (its own number and time) of the same counters: the channels' memory is the same map.
    expect(second.get('main')?.channels).toBe(first.get('main')?.channels);
    // One channel's drops move: that channel's memory is new, the others' are the same objects.
    state = stateAt(state, channels.map((c) => (c.Index === 1 ? { ...c, RecordingDrops: 9 } : c)), T0 + 2 * POLL, 3);
    const third = judge(second, state, T0 + 2 * POLL);
    const [before, after] = [second.get('main')?.channels, third.get('main')?.channels];
    expect(after).not.toBe(before);
    expect(after?.get(1)).not.toBe(before?.get(1));
    expect(after?.get(0)).toBe(before?.get(0));
    expect(after?.get(2)).toBe(before?.get(2));
    // And the rise is judged from it: 4 drops within the minute.
    const found = conditionsNow(second, { now: T0 + 2 * POLL, recorders: [{ state, commands: IDLE, disks: [] }], groups: new Map() }, SETTINGS);
    expect(found.holding.map((c) => [c.kind, c.channel, c.text])).toEqual([['drops-rising', 2, 'Recorder main, channel 2 (Cam 2): 4 frames dropped or broken in the last minute (9 drops, 0 breaks this take)']]);
  });

  it('lets a rise leave the minute by time alone, though the counter does not move again', () => {
    const channel = channelOf(0, { IsRecording: true, RecordingDrops: 0 });
    let state = initialRecorderState('main', POLL, 5000);
    let memory: ConditionMemory = NO_CONDITION_MEMORY;
    const holdsAt: boolean[] = [];
    for (let poll = 1; poll <= 300; poll++) {
      const now = T0 + poll * POLL;
      state = stateAt(state, [{ ...channel, RecordingDrops: poll >= 10 ? 5 : 0 }], now, poll);
      const found = conditionsNow(memory, { now, recorders: [{ state, commands: IDLE, disks: [] }], groups: new Map() }, SETTINGS);
      memory = found.memory;
      holdsAt.push(found.holding.some((c) => c.kind === 'drops-rising'));
    }
    // The rise at poll 10 (2.5 s) holds for one minute of reads after it, then the window has passed it.
    expect(holdsAt.indexOf(true)).toBe(9);
    expect(holdsAt.lastIndexOf(true)).toBe(9 + 60_000 / POLL - 1);
  });
});

describe('the alarm monitor\'s recorder groups', () => {
  it('merges a profile\'s groups once per list of profiles, and judges a new list\'s groups from its next poll', () => {
    const time = new VirtualTime(T0);
    let states: RecorderState[] = [];
    let read = 0;
    // Both recorders read afresh before every poll: "a" records channel 1, "b" does not.
    const readBoth = () => {
      read += 1;
      const at = time.now();
      states = [stateAt(initialRecorderState('a', POLL), [channelOf(0, { IsRecording: true })], at, read), stateAt(initialRecorderState('b', POLL), [channelOf(0)], at, read)];
    };
    let merges = 0;
    const parsed = Profile.parse({ name: 'p', match: { kind: 'memory' }, recorders: { a: { url: 'http://a' }, b: { url: 'http://b' }, both: ['a', 'b'] }, pages: [{ name: 'main', controls: {} }] });
    // Counts every time the monitor reads the profile to merge its groups.
    const grouping: LoadedProfile = {
      get profile() {
        merges += 1;
        return parsed;
      },
      file: 'p.yaml',
      origin: 'operator',
    };
    let profiles: readonly LoadedProfile[] = [];
    const monitor = new AlarmMonitor(
      { time, groups: new Map(), recorderStates: () => states, commandsOf: () => IDLE, diskTimesLeft: () => [], loadedProfiles: () => profiles },
      AlarmSettings.parse({ raisePolls: 2, clearPolls: 2 }),
    );
    const polls = (n: number) => {
      for (let i = 0; i < n; i++) {
        readBoth();
        time.advance(POLL);
      }
    };
    readBoth();
    monitor.start();
    polls(4);
    expect(monitor.activeJudgedHere()).toEqual([]);

    profiles = [grouping];
    polls(2);
    expect(monitor.activeJudgedHere().map((a) => a.id)).toEqual(['group-disagree:both:ch1']);
    polls(6);
    expect(merges).toBe(1); // eight polls, one merge: the list did not change

    // Another list (a reload gives a new one): merged again, the group gone, its alarm clears.
    profiles = [];
    polls(2);
    expect(monitor.activeJudgedHere()).toEqual([]);
    profiles = [grouping];
    polls(1);
    expect(merges).toBe(2);
    monitor.stop();
  });

  it('raises a dialog at its due time from answers that change nothing', () => {
    const time = new VirtualTime(T0);
    const dialogAt = T0;
    let read = 0;
    let state = initialRecorderState('main', POLL);
    // The same answer every poll (new read numbers, the same content): a dialog up since T0.
    const answer = () => {
      read += 1;
      state = { ...stateAt(state, [channelOf(0, { IsRecording: true })], time.now(), read), dialog: { IsDialog: true, DialogContent: 'Disk full?', Buttons: 'OK' }, readAt: { ...state.readAt, channels: time.now(), sync: time.now(), dialog: read === 1 ? dialogAt : time.now() } };
    };
    const monitor = new AlarmMonitor(
      { time, groups: new Map(), recorderStates: () => [state], commandsOf: () => IDLE, diskTimesLeft: () => [], loadedProfiles: () => [] },
      AlarmSettings.parse({ raisePolls: 2, clearPolls: 2, dialogWaitS: 2 }),
    );
    const raised: number[] = [];
    monitor.events$.subscribe((event) => event.state === 'raised' && raised.push(event.at));
    answer();
    monitor.start();
    for (let i = 0; i < 12; i++) {
      answer();
      time.advance(POLL);
    }
    // Held from 2 s (the 8th poll) for two polls: raised at the 9th, 2.25 s after the dialog came.
    expect(raised).toEqual([T0 + 9 * POLL]);
  });
});

