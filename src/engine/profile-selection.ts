// Whether a profile works with a selected channel: then the selected channel's key is framed.
import { bindingSteps } from './binding-actions.js';
import type { BoundProfile } from './session-services.js';

/** Any binding selects a channel, or acts on or shows the selected one. */
export function usesSelection(profile: BoundProfile): boolean {
  return profile.pages.some((page) =>
    Object.values(page.controls).some((b) => {
      const show = b.show;
      const showsSelected = typeof show === 'object' && (('channel' in show && show.channel === 'selected') || ('meter' in show && show.meter === 'selected'));
      return showsSelected || bindingSteps(b).some((action) => action.action === 'select-channel' || ('channel' in action && action.channel === 'selected'));
    }),
  );
}
