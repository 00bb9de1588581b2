// The transient marks a control shows, derived from the session's state and the time: the ring of a
// hold filling, a double press armed, a command that failed or was refused.
import type { PictureOverlay } from '../picture.js';
import type { SessionState } from './session-state.js';

export function overlayOf(state: SessionState, control: string, page: string, now: number): PictureOverlay | null {
  const overlay: PictureOverlay = {};
  const holding = state.held.get(control);
  if (holding && holding.holdMs !== null && !holding.holdFired && !holding.cancelled) overlay.hold = Math.min(1, Math.max(0, (now - holding.downAt) / holding.holdMs));
  if (state.armed.get(control)?.page === page) overlay.armed = true;
  const flash = state.flashes.get(control);
  if (flash && flash.page === page) overlay.flash = flash.kind;
  return Object.keys(overlay).length > 0 ? overlay : null;
}
