// Which of the action table's actions the Stream Deck app offers, and the binding an instance of one
// becomes. Every recorder action a key, pedal or dial can do is offered under `<plugin UUID>.<name>`;
// left out are the bridge's own (pages, the selected channel, brightness: the app owns pages and
// brightness, and has no selection), the grid (a layout choice, not a desk key) and gain-fader (the app
// has no fader). An instance becomes a binding, so the engine's session runs it exactly as it runs a
// profile's key: the same plan, hold-to-confirm, refusals from stale state and pictures.
import { ACTIONS, defaultShowOf, type SimpleAction } from '../engine/actions/index.js';
import type { Binding } from '../profiles/schema.js';
import { DEFAULT_HOLD_MS, type CheckedAction } from './settings.js';

export const PLUGIN_UUID = 'com.recdeck.recorder';

const LEFT_OUT = new Set(['grid', 'gain-fader']);

/**
 * Actions that undo or end an operator's work: they fire only after a hold, measured between the key's
 * down and up (the session's hold-to-confirm), so a brush of the key does nothing.
 */
export const GUARDED = new Set(['rec-stop', 'sync-rec-stop', 'new-session', 'load-project']);

/** Actions a Stream Deck + dial carries (turn, press) as well as a key. */
const DIAL_ACTIONS = new Set(['gain-step']);

export interface PluginAction {
  /** The action table's name, and the last part of its UUID. */
  name: string;
  uuid: string;
  /** The table's description of it, for the app's tooltip. */
  tooltip: string;
  controllers: ReadonlyArray<'Keypad' | 'Encoder'>;
  /** Its own parameters (the action table's schema, less the recorder): the inspector asks for each. */
  parameters: readonly string[];
}

/** The actions the plugin offers, in the table's order. */
export const PLUGIN_ACTIONS: readonly PluginAction[] = Object.entries(ACTIONS)
  .filter(([name, entry]) => entry.kind === 'recorder' && !LEFT_OUT.has(name))
  .map(([name, entry]) => ({
    name,
    uuid: `${PLUGIN_UUID}.${name}`,
    tooltip: entry.schema.description ?? name,
    controllers: DIAL_ACTIONS.has(name) ? (['Keypad', 'Encoder'] as const) : (['Keypad'] as const),
    parameters: Object.keys(entry.schema.shape).filter((key) => key !== 'action' && key !== 'recorder'),
  }));

const BY_UUID = new Map(PLUGIN_ACTIONS.map((action) => [action.uuid, action]));

/** The plugin action an app action UUID names, if it is one of ours. */
export function pluginActionOf(uuid: string): PluginAction | undefined {
  return BY_UUID.get(uuid);
}

/**
 * The binding a checked instance becomes on a key or on a dial. A guarded action asks for a hold; a
 * gain step on a dial turns in its steps (0.5 dB by default, from a live read of the gain, as the
 * bridge's dials do) and a press of the dial sets the gain back to 0 dB. A key that asks for its
 * channel's preview shows it behind the state (the recorder's previews of that channel are then fetched).
 */
export function bindingOf(checked: CheckedAction, on: 'key' | 'dial'): Binding {
  const { action } = checked;
  const confirm = GUARDED.has(action.action) ? { confirm: { hold: checked.holdMs ?? DEFAULT_HOLD_MS } } : {};
  if (on === 'dial' && action.action === 'gain-step') {
    const reset: SimpleAction = { ...targetOf(action), action: 'gain-set', db: 0 };
    return { turn: action, press: reset, ...(action.channel === undefined ? {} : { show: { meter: action.channel } }) };
  }
  const shows = defaultShowOf(action);
  const preview = checked.thumbnail && typeof shows === 'object' && 'channel' in shows ? { show: { channel: shows.channel, thumbnail: true } } : {};
  return { press: action, ...confirm, ...preview };
}

function targetOf(action: Extract<SimpleAction, { action: 'gain-step' }>): { channel: number | 'selected' } | { source: string } {
  if (action.channel !== undefined) return { channel: action.channel };
  return { source: action.source as string };
}
