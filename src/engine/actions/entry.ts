// What the action table says of each action: for the operator, its schema (an operator-facing
// description and each parameter described); for the engine, what a press does (a recorder action's
// plan from live state, what it reads at the press, the effect the reads after its answer must show;
// a bridge action's change to the surface's own state) and what its control shows by default.
import type * as z from 'zod';
import type { ExpectedEffect } from '../command-effect.js';
import type { ClientCall, CommandPlan, PlanInputs } from '../command-plan.js';
import type { IconName, Picture, SyncKeyAction } from '../picture.js';
import type { ChannelRef, Resolved } from './parameters.js';

/** An action as a profile writes it: a strict object tagged by its `action` literal (refinements allowed). */
export type ActionSchema = z.ZodObject<{ action: z.ZodLiteral<string> } & z.core.$ZodLooseShape, z.core.$strict>;

/** What a control shows by default for an action (show.ts draws it from the recorder's state). */
export type DefaultShow =
  | { channel: ChannelRef; thumbnail: false }
  | { meter: ChannelRef }
  | { sync: SyncKeyAction }
  | { grid: number }
  | 'dialog-ok'
  | 'dialog-cancel'
  | 'schedule'
  | 'alarms'
  | { inferred: Picture };

/** A slow-group part a toggle decides from: read at the press, never taken from the last slow poll. */
export type PressRead = 'schedule' | 'conversion';

/** A source whose gain an action writes: by name, or the source on a channel (the schema asks for exactly one), of its recorder. */
export interface GainTarget {
  source?: string | undefined;
  channel?: ChannelRef | undefined;
  /** The recorder the action names, if it names one (else the binding's). */
  recorder?: string | undefined;
}

interface EntryBase<S extends ActionSchema> {
  /** The action as a profile writes it; `.describe()` on it and on each parameter tells an operator what it does. */
  schema: S;
  /** A binding of it as an operator would write it (the table's test parses it; an editor may start from it). */
  example: z.input<S>;
  /** What a control bound to it shows when the profile does not say; absent or null: a label naming it. */
  show?(action: z.output<S>): DefaultShow | null;
  /** The icon on that label. */
  icon?: IconName;
}

/** An action the recorder carries out: one request, planned at the press. */
export interface RecorderEntry<S extends ActionSchema = ActionSchema> extends EntryBase<S> {
  kind: 'recorder';
  /** The one call it sends from this state, or a refusal with the reason. */
  plan(action: Resolved<z.output<S>>, inputs: PlanInputs): CommandPlan;
  /** The part its plan decides from, read at the press before planning. */
  readsAtPress?: PressRead;
  /** What the call it sent must change, as the reads after the answer show it; null when they cannot. */
  expectedEffect(action: Resolved<z.output<S>>, call: ClientCall): ExpectedEffect | null;
  /** The source whose gain it writes: kept read while a page shows the binding, so a step starts from a live gain. */
  gainOf?(action: z.output<S>): GainTarget;
}

/** The surface's own state an action of the bridge's own decides from. */
export interface BridgeInputs {
  /** The page chosen now, and the pages a page key steps through (overlays are not among them). */
  page: string;
  pages: readonly string[];
  /** The page shown while the recorder asks a question, when the profile has one. */
  dialogPage: string | undefined;
  brightness: number;
  /** Signed detents of a turn (1 for a press). */
  amount: number;
  /** recdeck runs an alarm engine this surface can acknowledge alarms of. */
  alarmEngine: boolean;
}

/** What an action of the bridge's own changes, or why it did nothing (the key flashes the reason, the log has the warning). */
export type BridgeOutcome =
  | { page: string }
  | { selectedChannel: number }
  | { brightness: number }
  /** Every active alarm is acknowledged by this control (the session asks the alarm engine, which owns them). */
  | { acknowledgeAlarms: true }
  | { refused: string; warning: string };

/** An action of the bridge's own: it changes the surface's state and sends nothing. */
export interface BridgeEntry<S extends ActionSchema = ActionSchema> extends EntryBase<S> {
  kind: 'bridge';
  perform(action: z.output<S>, inputs: BridgeInputs): BridgeOutcome;
}

export type ActionEntry = RecorderEntry | BridgeEntry;

export function recorderAction<S extends ActionSchema>(entry: Omit<RecorderEntry<S>, 'kind'>): RecorderEntry<S> {
  return { kind: 'recorder', ...entry };
}

export function bridgeAction<S extends ActionSchema>(entry: Omit<BridgeEntry<S>, 'kind'>): BridgeEntry<S> {
  return { kind: 'bridge', ...entry };
}

/** The expected effect of an action whose effect the state the bridge reads cannot show (its family says why). */
export const uncheckable = (): null => null;

/** A label naming what a key does (its text in capitals), with an icon when it has one. */
export function labelShow(text: string, icon: IconName | null = null): DefaultShow {
  return { inferred: { kind: 'label', text, icon, color: null, active: null } };
}

/** The channel an action acts on, without its preview. */
export const channelShow = (action: { channel: ChannelRef }): DefaultShow => ({ channel: action.channel, thumbnail: false });
