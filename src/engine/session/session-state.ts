// Everything a surface session remembers, in one value: the page, the selected channel, the brightness,
// the controls held down (each with the binding it was pressed on), double presses waiting for their
// second press, flashes on keys and running macros. Only the transition function makes a new one; what
// controls show, which previews to fetch and what is selected are derived from it.
import type { Action, Binding } from '../../profiles/schema.js';
import type { RecorderCommand } from '../actions/index.js';

/** A control held down: what it was pressed on is kept until it is let go. */
export interface Held {
  /** Who pressed it: a web client, or null for the device itself. Lost with its source. */
  origin: string | null;
  /** The page the binding was resolved on. */
  page: string;
  /** The binding at the moment of the press (null: nothing was bound there), kept until the release. */
  binding: Binding | null;
  downAt: number;
  /** A hold-to-confirm or long-press this control is waiting for, in ms; null when it waits for none. */
  holdMs: number | null;
  /** The hold completed and fired. */
  holdFired: boolean;
  /** The page under it changed, or its profile did: it does nothing more, not even on release. */
  cancelled: boolean;
  /** Names its timers, so a timer of an earlier press is never taken for this one's. */
  id: number;
}

/** The first press of a double-press binding, waiting for the second. */
export interface Armed {
  page: string;
  id: number;
}

/** A short-lived mark on a key: a command failed or was refused, or a tap that wanted a hold ("hint"). */
export interface Flash {
  kind: 'failed' | 'refused' | 'hint';
  /** Why it failed or was refused, as the key shows it; null when not known (and for hints). */
  reason: string | null;
  /** The page it was pressed on: another page's key at the same place is not marked. */
  page: string;
  /** When it began (the engine's clock): a long reason's pages follow from it. */
  at: number;
  id: number;
}

/** A macro between steps: waiting for a command's answer or for a wait to end. */
export interface RunningMacro {
  control: string;
  binding: Binding;
  steps: Extract<Action, { action: 'macro' }>['steps'];
  /** The step being carried out. */
  next: number;
  /** The page it was started from (its failures mark the key there). */
  page: string;
}

export interface SessionState {
  /** The page chosen by the operator, by name; never an overlay page. */
  page: string;
  /** 1-based channel that "selected" stands for. */
  selectedChannel: number;
  brightness: number;
  held: ReadonlyMap<string, Held>;
  armed: ReadonlyMap<string, Armed>;
  flashes: ReadonlyMap<string, Flash>;
  macros: ReadonlyMap<number, RunningMacro>;
  /** The next id for a hold, an arming, a flash or a macro. */
  nextId: number;
}

export function initialSessionState(page: string, brightness: number): SessionState {
  return { page, selectedChannel: 1, brightness, held: new Map(), armed: new Map(), flashes: new Map(), macros: new Map(), nextId: 1 };
}

/** What the transition asks the session to do; the session reports back with events. */
export type SessionEffect =
  | {
      type: 'command';
      /** The action with "selected" resolved to the channel selected when it was made: it runs as the key showed it. */
      action: RecorderCommand;
      binding: Binding;
      control: string;
      /** The page the binding was resolved on. */
      page: string;
      input: { amount: number; position: number | null };
      /** The macro this is a step of; its answer moves the macro on. */
      macro: number | null;
    }
  | { type: 'start-timer'; timer: string; ms: number }
  | { type: 'cancel-timer'; timer: string }
  | { type: 'brightness'; percent: number }
  /** Acknowledge every active alarm, by this control (the alarm engine owns them and audits the acks). */
  | { type: 'ack-alarms'; control: string }
  | { type: 'warn'; message: string };
