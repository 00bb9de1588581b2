// Whether a profile works with a selected channel: then the selected channel's key is framed.
import type { Action } from '../profiles/schema.js';
import type { BoundProfile } from './session-services.js';

/** Any binding selects a channel, or acts on or shows the selected one. */
export function usesSelection(profile: BoundProfile): boolean {
  const selects = (action: Action | undefined): boolean => {
    if (action === undefined) return false;
    if (action.action === 'macro') return action.steps.some((step) => !('wait' in step) && selects(step));
    return action.action === 'select-channel' || ('channel' in action && action.channel === 'selected');
  };
  return profile.pages.some((page) =>
    Object.values(page.controls).some((b) => {
      const show = b.show;
      const showsSelected = typeof show === 'object' && (('channel' in show && show.channel === 'selected') || ('meter' in show && show.meter === 'selected'));
      return showsSelected || [b.press, b.release, b.hold?.do, b.turn, b.fader, ...Object.values(b.touch ?? {})].some(selects);
    }),
  );
}
