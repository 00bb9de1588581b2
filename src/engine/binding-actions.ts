// Every action a binding can carry out, from any of its triggers and inside macros. One walk, used by
// whatever must know what a binding may do (which meters and gains to fetch, whether a profile selects
// channels, what a key shows), so that no trigger is forgotten by one of them and seen by another.
import type { Action, Binding, SimpleAction } from '../profiles/schema.js';

export type Trigger = 'press' | 'hold' | 'release' | 'turn' | 'fader' | 'touch';

/** The binding's actions in the order that decides what a key shows: press, hold, turn, fader, release, touch. */
export function bindingActions(binding: Binding): Array<{ trigger: Trigger; action: Action }> {
  const listed: Array<{ trigger: Trigger; action: Action | undefined }> = [
    { trigger: 'press', action: binding.press },
    { trigger: 'hold', action: binding.hold?.do },
    { trigger: 'turn', action: binding.turn },
    { trigger: 'fader', action: binding.fader },
    { trigger: 'release', action: binding.release },
    ...Object.values(binding.touch ?? {}).map((action) => ({ trigger: 'touch' as const, action })),
  ];
  return listed.filter((entry): entry is { trigger: Trigger; action: Action } => entry.action !== undefined);
}

/** A binding's simple actions, with each macro's steps in its place (waits left out). */
export function bindingSteps(binding: Binding): SimpleAction[] {
  return bindingActions(binding).flatMap(({ action }) => stepsOf(action));
}

export function stepsOf(action: Action): SimpleAction[] {
  return action.action === 'macro' ? action.steps.filter((step): step is SimpleAction => !('wait' in step)) : [action];
}
