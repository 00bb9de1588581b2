// The action table walked whole: every action is described for an operator, its example loads as a
// binding, its plan gives one call of the interface (or a refusal with the reason) for a representative
// state, its expected effect can be checked, and what its key shows by default is drawn.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/api/operations.js';
import { ACTIONS, expectedEffect, planCommand, type ActionTable, type RecorderCommand } from '../../src/engine/actions/index.js';
import { resolveSelected } from '../../src/engine/actions/parameters.js';
import { describeCall, type PlanInputs } from '../../src/engine/command-plan.js';
import { NextChange } from '../../src/engine/next-change.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { pictureFor, showOf, type ShowInputs } from '../../src/engine/show.js';
import { parseProfile } from '../../src/profiles/load.js';
import { RecorderAction } from '../../src/profiles/schema.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';
import { channelOf } from '../support/channels.js';

const entries = Object.entries(ACTIONS);
const recorderEntries = entries.filter(([, entry]) => entry.kind === 'recorder');
const bridgeEntries = entries.filter(([, entry]) => entry.kind === 'bridge');

/** Channel 2 records, channel 4 has no source; every part read a moment ago. */
const state: RecorderState = {
  ...initialRecorderState('main', 250),
  lastGoodAt: 1000,
  readAt: { channels: 1000, sync: 1000, dialog: 1000, sources: 1000, resources: 1000, schedule: 1000, conversion: 1000 },
  channels: [channelOf(0), channelOf(1, { IsRecording: true }), channelOf(2), channelOf(3, { SourceName: null })],
  sync: { IsSyncRecording: false, IsSyncRecordingPause: false },
  dialog: { IsDialog: false, DialogContent: '', Buttons: 'OK' },
  sources: [0, 1, 2].map((i) => ({ Index: i, Name: `Cam ${i + 1}`, Device: 'x' })),
  schedule: { IsEnabled: false, StartTime: '08:00:00', StopTime: '09:00:00', ScheduleType: 'All channels' },
  conversion: { IsEnabled: true, VideoFormat: 'Original', FrameRate: 'Original', Interlace: 'Default', AudioSampleRate: 'Original', AudioChannel: 'Original', AudioBit: 'Original' },
};
const inputs: PlanInputs = { state, now: 1000, amount: 1, position: 0.5, liveGain: () => -6 };

/** An entry's example as the profile loader gives it, with "selected" standing for channel 2. */
const commandOf = (example: unknown): RecorderCommand => resolveSelected(RecorderAction.parse(example), 2);

describe('the action table', () => {
  it('describes every action and each of its parameters for an operator', () => {
    for (const [name, { schema }] of entries) {
      expect(schema.description, name).toMatch(/^[A-Z].{8,}/);
      for (const [parameter, field] of Object.entries(schema.shape)) {
        if (parameter !== 'action') expect(field.description, `${name}.${parameter}`).toMatch(/^\S.{4,}/);
      }
    }
  });

  it('files every entry under its own action, and its example is that action', () => {
    for (const [name, entry] of entries) {
      expect(entry.schema.shape.action.value, name).toBe(name);
      expect(entry.example.action, name).toBe(name);
    }
  });

  it('loads every example as a binding of a profile', () => {
    const controls = entries.map(([, entry], i) => `      key${i}: { press: ${JSON.stringify(entry.example)} }`).join('\n');
    const result = parseProfile(`name: every action\nmatch: { kind: memory }\npages:\n  - name: Main\n    controls:\n${controls}\n`, 'every-action.yaml');
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each(recorderEntries.map(([name, entry]) => [name, entry.example] as const))('%s plans one call of the interface, or refuses saying why', (_name, example) => {
    const command = commandOf(example);
    const plan = planCommand(command, inputs);
    if (plan.kind === 'refuse') {
      expect(plan.reason).toMatch(/\w{3,}/);
      return;
    }
    expect(plan.kind).toBe('send');
    if (plan.kind !== 'send') return;
    expect(Object.keys(operations)).toContain(plan.call.method);
    expect(describeCall(plan.call)).toMatch(/^(PUT|POST|DELETE) \/api\//);
    const effect = expectedEffect(command, plan.call);
    if (effect !== null) {
      expect(effect.parts.length).toBeGreaterThan(0);
      expect(effect.missing).toMatch(/\w{3,}/);
      expect(typeof effect.holds(state)).toBe('boolean');
    }
  });

  it('a step with no live gain has it read at the press; with the gain known it is sent', () => {
    const step = commandOf(ACTIONS['gain-step'].example);
    expect(planCommand(step, { ...inputs, liveGain: () => null })).toEqual({ kind: 'read-gain-first', sourceName: 'Cam 1' });
    expect(planCommand(step, inputs)).toMatchObject({ kind: 'send', call: { method: 'updateSource', args: [0, { AudioGain: -5.5 }] } });
  });

  it('the bridge\'s own actions change the surface and send nothing', () => {
    const surface = { page: 'Main', pages: ['Main', 'Tools'], dialogPage: 'Dialog', brightness: 50, amount: 1, alarmEngine: true };
    const outcomes = Object.fromEntries(bridgeEntries.map(([name, entry]) => [name, entry.kind === 'bridge' ? entry.perform(entry.example as never, surface) : null]));
    expect(outcomes).toEqual({ 'page-next': { page: 'Tools' }, 'page-previous': { page: 'Tools' }, page: { page: 'Tools' }, 'select-channel': { selectedChannel: 5 }, brightness: { brightness: 60 }, 'alarm-ack': { acknowledgeAlarms: true } });
  });

  it('draws what each action\'s key shows by default', async () => {
    const showInputs: ShowInputs = {
      recorder: state,
      recorderName: 'main',
      now: 1000,
      durationOf: () => null,
      diskTimesLeft: () => [],
      thumbnailOf: () => null,
      meterOf: () => ({ db: -6, freshness: 'live', ageS: null, levels: [-20, -18], changesAt: null }),
      selectedChannel: 2,
      marksSelection: false,
      page: { name: 'Main', number: 1, count: 1 },
      questionShown: false,
      changes: new NextChange(1000),
    };
    const renderer = new KeyRenderer();
    for (const [name, entry] of entries) {
      const picture = pictureFor(showOf({ press: entry.example as never }), showInputs);
      expect(picture.kind, name).not.toBe('blank');
      const image = await renderer.render(picture, { width: 72, height: 72 });
      expect(image.data.some((byte) => byte > 0), `${name} draws something`).toBe(true);
    }
  });

  it('is named whole in the README\'s list of actions', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const paragraph = /^Actions: ([\s\S]*?) Shows:/m.exec(readme)?.[1] ?? '';
    // `sync-rec-start|pause|stop` names sync-rec-start, sync-rec-pause and sync-rec-stop.
    const named = [...paragraph.matchAll(/`([a-z-]+(?:\|[a-z-]+)*)`/g)].flatMap((match) => {
      const [first, ...others] = (match[1] as string).split('|') as [string, ...string[]];
      const prefix = first.slice(0, first.lastIndexOf('-') + 1);
      return [first, ...others.map((other) => `${prefix}${other}`)];
    });
    for (const [name] of entries) expect(named, name).toContain(name);
  });

  it('is the type of a table of every action: one that misses an action does not compile', () => {
    const { 'rec-start': _left, ...others } = ACTIONS;
    // @ts-expect-error a table without rec-start misses an action of the schema's union
    const incomplete: ActionTable = others;
    expect(Object.keys(incomplete)).not.toContain('rec-start');
  });
});
