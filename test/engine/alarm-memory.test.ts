// The alarm conditions' memory between reads (issue 35 (d)): a counter kept as the reads where it changed
// instead of every read, and a read that changes nothing keeping the same memory. Judged against the rule
// it replaces, written out here as the specification (every read of the window kept, the newest read at
// or before the window's start as the baseline): the same conditions, texts and severities at every poll,
// over long seeded runs of counters that stay, step, rise and reset.
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/api/channel.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
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
