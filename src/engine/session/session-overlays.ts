// The transient marks a control shows, derived from the session's state and the time: the ring of a
// hold filling, a double press armed, a command that failed or was refused (with its reason), a tap that
// wanted a hold; and the one lasting mark, how the key's binding must be used beyond a tap.
import type { Binding } from '../../profiles/schema.js';
import { stepAfter, type NextChange } from '../next-change.js';
import type { PictureOverlay } from '../picture.js';
import type { SessionState } from './session-state.js';

/** How long each page of a failure's reason stays on its key: a few words, read at a glance. */
export const REASON_PAGE_MS = 2000;
/** A hold ring fills in steps of this long: 25 a second look smooth and cost little to draw. */
export const RING_STEP_MS = 40;

/**
 * The marks on a control at `now`. A hold ring's next step and a reason's next page are noted in
 * `changes`; a flash or an arming ends by a timer of the session, which changes its state.
 */
export function overlayOf(state: SessionState, control: string, page: string, now: number, binding: Binding | undefined, changes: NextChange): PictureOverlay | null {
  // Made at the first mark: most controls have none, and are derived at every refresh.
  let overlay: PictureOverlay | null = null;
  const gesture = binding ? gestureOf(binding) : null;
  if (gesture !== null) overlay = { gesture };
  const holding = state.held.get(control);
  if (holding && holding.holdMs !== null && !holding.holdFired && !holding.cancelled) {
    const steps = Math.floor(Math.max(0, now - holding.downAt) / RING_STEP_MS);
    const hold = Math.min(1, (steps * RING_STEP_MS) / holding.holdMs);
    (overlay ??= {}).hold = hold;
    if (hold < 1) changes.at(stepAfter(holding.downAt, RING_STEP_MS, steps));
  }
  if (state.armed.get(control)?.page === page) (overlay ??= {}).armed = true;
  const flash = state.flashes.get(control);
  if (flash && flash.page === page) {
    if (flash.kind === 'hint') (overlay ??= {}).hint = 'hold';
    else {
      overlay ??= {};
      overlay.flash = flash.kind;
      if (flash.reason !== null) {
        overlay.reason = flash.reason;
        // The page shown follows from when the flash began: a key redrawn at any moment shows the same page.
        overlay.reasonPage = Math.floor(Math.max(0, now - flash.at) / REASON_PAGE_MS);
        changes.at(stepAfter(flash.at, REASON_PAGE_MS, overlay.reasonPage));
      }
    }
  }
  return overlay;
}

/** A key that wants a hold (to confirm, or a long-press action) or a double press. */
export function gestureOf(binding: Binding): PictureOverlay['gesture'] | null {
  const { confirm, hold } = binding;
  if (confirm && 'double' in confirm) return 'double';
  if ((confirm && 'hold' in confirm) || hold !== undefined) return 'hold';
  return null;
}
