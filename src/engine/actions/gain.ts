// A source's audio gain: set, stepped (dials multiply the step by the turn) or following a fader. A
// step starts from a live gain (gain-truth.ts) or has it read at the press first; the page keeps the
// gains of its bindings read. The gain written is owned by the extras for a while, not checked in the
// state polls (they do not carry gains).
import * as z from 'zod';
import { GAIN_DB } from '../../api/scalars.js';
import { refuse, type CommandPlan, type PlanInputs } from '../command-plan.js';
import { recorderAction, uncheckable, type GainTarget } from './entry.js';
import { ChannelRef, recorder } from './parameters.js';

/** Whose gain: the source on a channel, or a source by name (exactly one). */
const target = {
  channel: ChannelRef.optional().describe('Channel 1–16 (or "selected") whose source this is (instead of source)'),
  source: z.string().min(1).optional().describe('Source name (instead of channel)'),
};
const oneTarget = [(value: { channel?: unknown; source?: unknown }) => (value.channel === undefined) !== (value.source === undefined), { error: 'expected exactly one of channel or source' }] as const;
const gainDb = () => z.number().min(GAIN_DB.min).max(GAIN_DB.max);

type Targeted = { channel?: number; source?: string };

/** The gain a command writes, clamped to what the recorder takes and to its tenth of a dB; or why none. */
function planGain(action: Targeted, inputs: PlanInputs, gainFrom: (sourceName: string) => number | CommandPlan): CommandPlan {
  const { state } = inputs;
  const channel = action.channel ?? null;
  const sourceName = action.source ?? (channel === null ? null : (state.channels?.[channel - 1]?.SourceName ?? null));
  if (sourceName === null) return refuse(channel === null ? 'no source named' : `channel ${channel} has no known source`);
  const sourceIndex = state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
  if (sourceIndex < 0) return refuse(`source "${sourceName}" is not known`);
  const db = gainFrom(sourceName);
  if (typeof db !== 'number') return db;
  const clamped = Math.round(Math.min(GAIN_DB.max, Math.max(GAIN_DB.min, db)) * 10) / 10;
  return { kind: 'send', call: { method: 'updateSource', args: [sourceIndex, { AudioGain: clamped }] }, touchesSlowState: false, gain: { sourceName, db: clamped } };
}

const gainOf = (action: GainTarget): GainTarget => ({ channel: action.channel, source: action.source, recorder: action.recorder });
const meterShow = (action: { channel?: ChannelRef }) => (action.channel === undefined ? null : { meter: action.channel });

export const GAIN = [
  recorderAction({
    schema: z
      .strictObject({ action: z.literal('gain-set'), ...target, db: gainDb().describe('The gain in dB'), recorder })
      .refine(...oneTarget)
      .describe('Set a source\'s audio gain in dB'),
    example: { action: 'gain-set', channel: 1, db: -6 },
    plan: (action, inputs) => planGain(action, inputs, () => action.db),
    expectedEffect: uncheckable,
    gainOf,
    show: meterShow,
  }),
  recorderAction({
    schema: z
      .strictObject({ action: z.literal('gain-step'), ...target, db: z.number().min(-20).max(20).describe('dB per press or per dial detent'), recorder })
      .refine(...oneTarget)
      .describe('Change a source\'s gain by a step (dials multiply it by the turn)'),
    example: { action: 'gain-step', channel: 1, db: 0.5 },
    plan: (action, inputs) =>
      planGain(action, inputs, (sourceName) => {
        const live = inputs.liveGain(sourceName);
        return live === null ? { kind: 'read-gain-first', sourceName } : live + action.db * inputs.amount;
      }),
    expectedEffect: uncheckable,
    gainOf,
    show: meterShow,
  }),
  recorderAction({
    schema: z
      .strictObject({
        action: z.literal('gain-fader'),
        ...target,
        min: gainDb().default(-60).describe('The gain in dB at the bottom of the fader'),
        max: gainDb().default(12).describe('The gain in dB at the top of the fader'),
        recorder,
      })
      .refine(...oneTarget)
      .describe('Map a fader\'s position to a source\'s gain (with soft takeover)'),
    example: { action: 'gain-fader', source: 'Cam 1', min: -40, max: 10 },
    plan: (action, inputs) =>
      planGain(action, inputs, () => (inputs.position === null ? refuse('gain-fader needs a fader') : action.min + inputs.position * (action.max - action.min))),
    expectedEffect: uncheckable,
    gainOf,
    show: meterShow,
  }),
];
