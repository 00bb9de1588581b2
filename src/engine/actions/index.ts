// The action table: every action a profile can bind, one entry each (one file per family), in the order
// operators find them listed. The profile's action schemas are built from it, so an action exists
// exactly when it has an entry, and everything the engine does with an action is a lookup here: its
// plan, what it reads at the press, its expected effect, its default show, whether it is the bridge's own.
import * as z from 'zod';
import type { CommandPlan, ClientCall, PlanInputs } from '../command-plan.js';
import type { ExpectedEffect } from '../command-effect.js';
import { BRIDGE_OWN } from './bridge-own.js';
import { CONVERSION } from './conversion.js';
import { DIALOG } from './dialog.js';
import { labelShow, type ActionEntry, type ActionSchema, type BridgeEntry, type BridgeInputs, type BridgeOutcome, type DefaultShow, type GainTarget, type PressRead, type RecorderEntry } from './entry.js';
import { GAIN } from './gain.js';
import type { Resolved } from './parameters.js';
import { PROJECT } from './project.js';
import { RECORDING } from './recording.js';
import { ROUTING } from './routing.js';
import { SCHEDULE } from './schedule.js';
import { SETTINGS } from './settings.js';
import { SYNC_REC } from './sync-rec.js';
import { SYNC } from './sync.js';

const RECORDER_ENTRIES = [...RECORDING, ...SYNC, ...ROUTING, ...SYNC_REC, ...DIALOG, ...PROJECT, ...SCHEDULE, ...CONVERSION, ...SETTINGS, ...GAIN];
const BRIDGE_ENTRIES = [...BRIDGE_OWN];

type Tagged = { schema: ActionSchema };
/** The schemas of some entries, as zod's unions take them (at least one). */
function schemasOf<E extends Tagged>(entries: readonly E[]): [E['schema'], ...E['schema'][]] {
  return entries.map((entry) => entry.schema) as [E['schema'], ...E['schema'][]];
}

export const RecorderAction = z.discriminatedUnion('action', schemasOf(RECORDER_ENTRIES));
export type RecorderAction = z.output<typeof RecorderAction>;

export type BridgeAction = z.output<(typeof BRIDGE_ENTRIES)[number]['schema']>;

// One union of every action (not a union of the recorder's and the bridge's): a profile's mistake inside
// an action is then explained for that action, not as a miss of the other union's tags.
export const SimpleAction = z.discriminatedUnion('action', schemasOf([...RECORDER_ENTRIES, ...BRIDGE_ENTRIES]));
export type SimpleAction = z.output<typeof SimpleAction>;

const Wait = z.strictObject({ wait: z.number().int().min(0).max(60_000).describe('Pause in ms between macro steps') });

export const MacroAction = z
  .strictObject({ action: z.literal('macro'), steps: z.array(z.union([SimpleAction, Wait])).min(1).describe('The actions in order, with waits between them where wanted') })
  .describe('Several actions in order; a failed step stops the rest');
export type MacroAction = z.output<typeof MacroAction>;

export const Action = z.union([SimpleAction, MacroAction]);
export type Action = z.output<typeof Action>;

/** A recorder action as it runs: its channel is a number ("selected" resolved when it was pressed). */
export type RecorderCommand = Resolved<RecorderAction>;

type NameOf<E> = E extends Tagged ? z.output<E['schema']>['action'] & string : never;

/** Every entry under the name its schema gives it. */
function tableOf<E extends ActionEntry>(entries: readonly E[]): { [Entry in E as NameOf<Entry>]: Entry } {
  return Object.fromEntries(entries.map((entry) => [entry.schema.shape.action.value, entry])) as { [Entry in E as NameOf<Entry>]: Entry };
}

/** A table of every action of the schema's union. */
export type ActionTable = { [Name in SimpleAction['action']]: ActionEntry };

/** The table, by action name: one entry for every action of the schema's union, and no other. */
export const ACTIONS = tableOf([...RECORDER_ENTRIES, ...BRIDGE_ENTRIES]) satisfies ActionTable;

// The lookups take any action of the union; the compiler cannot tie a union's tag to its own entry, so
// each gives the entry its general type (tableOf files every entry under its own schema's tag).
function recorderEntry(action: RecorderAction | RecorderCommand): RecorderEntry {
  return ACTIONS[action.action] as RecorderEntry;
}

function bridgeEntry(action: BridgeAction): BridgeEntry {
  return ACTIONS[action.action] as BridgeEntry;
}

export function isBridgeAction(action: SimpleAction): action is BridgeAction {
  return ACTIONS[action.action].kind === 'bridge';
}

/** What one recorder command sends: exactly one request, or a refusal with the reason. */
export function planCommand(command: RecorderCommand, inputs: PlanInputs): CommandPlan {
  return recorderEntry(command).plan(command, inputs);
}

/** What the call a command sent must change, as the reads after its answer show it; null when they cannot. */
export function expectedEffect(command: RecorderCommand, call: ClientCall): ExpectedEffect | null {
  return recorderEntry(command).expectedEffect(command, call);
}

/** The slow-group part a command decides from as read at the press, if any. */
export function pressReadOf(command: RecorderCommand): PressRead | undefined {
  return recorderEntry(command).readsAtPress;
}

/** The source whose gain an action writes (the page keeps it read), or null for an action that writes none. */
export function gainTargetOf(action: SimpleAction): GainTarget | null {
  return isBridgeAction(action) ? null : (recorderEntry(action).gainOf?.(action) ?? null);
}

/** What a bridge action changes on the surface. */
export function performBridgeAction(action: BridgeAction, inputs: BridgeInputs): BridgeOutcome {
  return bridgeEntry(action).perform(action, inputs);
}

/** What a control bound to an action shows when its profile does not say: the entry's show, else a label naming it. */
export function defaultShowOf(action: Action): DefaultShow {
  if (action.action === 'macro') return labelShow('MACRO', 'macro');
  const entry: ActionEntry = ACTIONS[action.action];
  return entry.show?.(action) ?? labelShow(action.action.replace(/-/g, ' ').toUpperCase(), entry.icon ?? null);
}
