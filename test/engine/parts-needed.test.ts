// The tables of what each show, action and alarm kind needs read, checked against the code they stand
// for: an action planned from only the parts it is said to need plans exactly as from every part, and
// its effect is checked in those parts; a picture drawn from only its show's parts is the picture drawn
// from every part. A table that left out a part some code reads would fail here, not on a live key.
import { describe, expect, it } from 'vitest';
import { ACTIONS, expectedEffect, planCommand, pressReadOf, type RecorderCommand } from '../../src/engine/actions/index.js';
import { resolveSelected } from '../../src/engine/actions/parameters.js';
import type { PlanInputs } from '../../src/engine/command-plan.js';
import { NextChange } from '../../src/engine/next-change.js';
import { ACTION_PARTS, alarmParts, pageParts, showParts, standingParts } from '../../src/engine/parts-needed.js';
import { FAST_PARTS, SLOW_PARTS, initialRecorderState, type RecorderState, type StatePart } from '../../src/engine/recorder-state.js';
import { pictureFor, showOf, type ResolvedShow, type ShowInputs } from '../../src/engine/show.js';
import { Profile, RecorderAction, type Binding } from '../../src/profiles/schema.js';
import { channelOf } from '../support/channels.js';

const NOW = 10_000;
const ALL: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];

/** Every part read just now: channels in every state a key tells apart, a dialog up, sync recording paused. */
function everyPart(): RecorderState {
  const initial = initialRecorderState('main', 250);
  return {
    ...initial,
    lastGoodAt: NOW,
    readAt: Object.fromEntries(ALL.map((part) => [part, NOW])) as RecorderState['readAt'],
    readNumber: Object.fromEntries(ALL.map((part) => [part, 7])) as RecorderState['readNumber'],
    channels: [
      channelOf(0),
      channelOf(1, { IsRecording: true, RecordingFPS: 25, RecordingDuration: 12 }),
      channelOf(2, { IsRecording: true, IsRecordingPause: true, IsInSync: true, IsInSyncRec: true }),
      channelOf(3, { IsInSync: true, SourceName: null }),
    ],
    sync: { IsSyncRecording: true, IsSyncRecordingPause: true },
    dialog: { IsDialog: true, DialogContent: 'Overwrite the file?', Buttons: 'Yes_No' },
    sources: [0, 1, 2, 3].map((i) => ({ Index: i, Name: `Cam ${i + 1}`, Device: 'x' })),
    resources: { CurrentCPU: 10, TotalCPU: 20, CurrentRAM: 4, TotalRAM: 16, DiskInfo: [{ Key: 'C:', Value: 45 }] },
    schedule: { IsEnabled: false, StartTime: '08:00:00', StopTime: '09:00:00', ScheduleType: 'All channels' },
    conversion: { IsEnabled: true, VideoFormat: 'Original', FrameRate: 'Original', Interlace: 'Default', AudioSampleRate: 'Original', AudioChannel: 'Original', AudioBit: 'Original' },
  };
}

/** The same state as a poller reading only `parts` has it: every other part never read. */
function onlyParts(parts: readonly StatePart[]): RecorderState {
  const full = everyPart();
  const unread = ALL.filter((part) => !parts.includes(part));
  const state: RecorderState = { ...full, readAt: { ...full.readAt }, readNumber: { ...full.readNumber } };
  for (const part of unread) {
    Object.assign(state, { [part]: null });
    (state.readAt as Record<StatePart, number | null>)[part] = null;
    (state.readNumber as Record<StatePart, number>)[part] = 0;
  }
  // lastGoodAt is over the state polls read (recorder-poller.ts); null with none.
  return { ...state, lastGoodAt: FAST_PARTS.some((part) => parts.includes(part)) ? NOW : null };
}

const recorderEntries = Object.entries(ACTIONS).filter(([, entry]) => entry.kind === 'recorder');

describe('ACTION_PARTS', () => {
  const planInputs = (state: RecorderState): PlanInputs => ({ state, now: NOW, amount: 1, position: null, liveGain: () => -6 });
  it.each(recorderEntries.map(([name, entry]) => [name, entry.example] as const))('%s plans from its parts alone as from every part, and its effect is checked in them', (name, example) => {
    const command: RecorderCommand = resolveSelected(RecorderAction.parse(example), 2);
    const needed = ACTION_PARTS[name as keyof typeof ACTION_PARTS];
    // What the runner reads at the press is read then (command-runner.ts), whatever the poller reads.
    const pressRead = pressReadOf(command);
    const full = planCommand(command, planInputs(everyPart()));
    expect(planCommand(command, planInputs(onlyParts([...needed, ...(pressRead ? [pressRead] : [])]))), name).toEqual(full);
    if (full.kind === 'send') {
      for (const part of expectedEffect(command, full.call)?.parts ?? []) expect(needed, `${name}'s effect is checked in ${part}`).toContain(part);
    }
  });

  it('a toggle from fewer parts than its own is refused, never decided: the table is what keeps it live', () => {
    const command: RecorderCommand = resolveSelected(RecorderAction.parse({ action: 'rec-toggle', channel: 1 }), 2);
    expect(planCommand(command, planInputs(onlyParts(['sync', 'dialog'])))).toMatchObject({ kind: 'refuse' });
    const group: RecorderCommand = resolveSelected(RecorderAction.parse({ action: 'sync-rec-toggle' }), 2);
    expect(planCommand(group, planInputs(onlyParts(['channels'])))).toMatchObject({ kind: 'refuse' });
  });
});

describe('showParts', () => {
  function inputs(state: RecorderState): ShowInputs {
    return {
      recorder: state,
      recorderName: 'main',
      now: NOW + 100,
      durationOf: () => 12,
      diskTimesLeft: () => [],
      thumbnailOf: () => null,
      meterOf: () => null,
      selectedChannel: 2,
      marksSelection: true,
      page: { name: 'Main', number: 1, count: 1 },
      questionShown: false,
      changes: new NextChange(NOW + 100),
    };
  }
  const shows: ResolvedShow[] = [
    'dialog',
    'dialog-ok',
    'dialog-cancel',
    'resources',
    'schedule',
    'status',
    'page',
    'blank',
    { question: { slot: 0, slots: 2 } },
    { sync: 'toggle' },
    { sync: null },
    { grid: 8 },
    { channel: 2, thumbnail: false },
    { channel: 'selected', thumbnail: true },
    { meter: 2 },
    { label: 'HELLO' },
  ];
  it.each(shows.map((show) => [JSON.stringify(show), show] as const))('%s draws from its parts alone the picture it draws from every part', (_, show) => {
    expect(pictureFor(show, inputs(onlyParts(showParts(show))))).toEqual(pictureFor(show, inputs(everyPart())));
  });

  it('a channel key drawn without its channel read says so (not live), so leaving channels out could not pass', () => {
    const show: ResolvedShow = { channel: 2, thumbnail: false };
    expect(pictureFor(show, inputs(onlyParts(['sync', 'dialog'])))).not.toEqual(pictureFor(show, inputs(everyPart())));
  });
});

describe('pageParts', () => {
  const page = (controls: Record<string, unknown>, recorders?: Record<string, unknown>) =>
    Profile.parse({ name: 'p', match: { kind: 'memory' }, ...(recorders ? { recorders } : {}), pages: [{ name: 'main', controls }] }).pages[0] as Profile['pages'][number];
  const sorted = (map: Map<string, Set<StatePart>>) => Object.fromEntries([...map].map(([name, parts]) => [name, [...parts].sort()]));

  it('a deck of channel keys needs the channels alone: no sync, no dialog, nothing of the slow group', () => {
    const controls = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`key${i}`, { press: { action: 'rec-toggle', channel: i + 1 } }]));
    expect(sorted(pageParts(page(controls), { defaultRecorder: 'main', groups: new Map(), dialogOverlay: false }))).toEqual({ main: ['channels'] });
  });

  it('a dialog key needs the dialog; an overlay needs the default recorder\'s dialog on every page', () => {
    expect(sorted(pageParts(page({ key0: { press: { action: 'dialog-ok' } } }), { defaultRecorder: 'main', groups: new Map(), dialogOverlay: false }))).toEqual({ main: ['dialog'] });
    expect(sorted(pageParts(page({ key0: { press: { action: 'page-next' } } }), { defaultRecorder: 'main', groups: new Map(), dialogOverlay: true }))).toEqual({ main: ['dialog'] });
    expect(sorted(pageParts(page({ key0: { press: { action: 'page-next' } } }), { defaultRecorder: 'main', groups: new Map(), dialogOverlay: false }))).toEqual({});
  });

  it('each recorder gets its own: a binding\'s, an action\'s own, every member of a group', () => {
    const controls = {
      key0: { recorder: 'backup', show: { channel: 1, thumbnail: false } },
      key1: { press: { action: 'sync-rec-start', recorder: 'studio' }, show: 'blank' },
      key2: { press: { action: 'macro', steps: [{ action: 'page-next' }, { wait: 100 }, { action: 'gain-step', channel: 2, db: 1, recorder: 'main' }] }, show: 'blank' },
      key3: { show: 'schedule' },
    };
    const groups = new Map([['studio', ['main', 'backup']]]);
    expect(sorted(pageParts(page(controls), { defaultRecorder: 'main', groups, dialogOverlay: false }))).toEqual({
      backup: ['channels', 'sync'],
      main: ['channels', 'schedule', 'sources', 'sync'],
    });
  });

  it('what a binding does on any trigger counts, not only its press', () => {
    const shown = page({ key0: { hold: { do: { action: 'rec-stop', channel: 1 } }, release: { action: 'dialog-cancel' }, show: 'blank' } });
    expect(showOf(shown.controls.key0 as Binding)).toBe('blank');
    expect(sorted(pageParts(shown, { defaultRecorder: 'main', groups: new Map(), dialogOverlay: false }))).toEqual({ main: ['channels', 'dialog'] });
  });
});

describe('alarmParts', () => {
  it('every kind on: every state poll, the channels and the resources; the stale and offline kinds off: only what the others judge', () => {
    expect([...alarmParts({ off: [] })].sort()).toEqual(['channels', 'dialog', 'resources', 'sync']);
    expect([...alarmParts({ off: ['recorder-offline', 'recorder-stale', 'dialog-waiting', 'disk-time'] })].sort()).toEqual(['channels', 'sync']);
  });
});

describe('standingParts', () => {
  it("recdeck run reads what its web server and its alarms read at any moment, and nothing when it has neither", () => {
    const text = (map: Map<string, readonly StatePart[]>) => Object.fromEntries([...map].map(([owner, parts]) => [owner, [...parts].sort()]));
    expect(text(standingParts({ web: false, alarms: null }))).toEqual({});
    expect(text(standingParts({ web: true, alarms: null }))).toEqual({ 'the web server': ['channels', 'dialog', 'resources', 'sources', 'sync'] });
    expect(text(standingParts({ web: false, alarms: { off: ['recorder-offline', 'recorder-stale', 'dialog-waiting', 'disk-time', 'sync-channel-idle'] } }))).toEqual({ 'the alarm engine': ['channels'] });
  });
});
