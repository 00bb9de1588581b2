// How the page turns pointers into key presses and dial turns. Mouse and pen press at once (down on
// press, up on release), as a desk operator expects. A finger is different: the page must still scroll under it, so
// a touch presses only when it proves to be a press: it lifts without moving (a tap: down and up
// together), or it stays still long enough to be a hold (then down, and the hold ring fills). A touch
// that moves beyond a few px, or that the browser takes over to scroll (pointercancel), sends nothing;
// if its hold had already begun, the key is let go without firing.
// @ts-check

/** How far a finger may drift and still be pressing, in CSS px. */
export const TOUCH_SLOP_PX = 8;
/** How long a finger must rest on a key before it counts as held (a swipe has moved by then). */
export const TOUCH_HOLD_AFTER_MS = 150;
/** On a dial a finger often rests before it drags: it counts as held only after this long still. */
export const DIAL_HOLD_AFTER_MS = 600;

/**
 * @typedef {{ type: 'down' | 'up' | 'cancel', control: string }} PressInput
 * @typedef {(input: PressInput) => void} SendPress
 */

/**
 * Down on press, up on release: holding holds (the hold-to-confirm ring is drawn by the bridge). A finger
 * counts as held once it has rested `holdAfterMs` without moving.
 */
export function holdable(/** @type {HTMLElement} */ element, /** @type {string} */ control, /** @type {SendPress} */ send, holdAfterMs = TOUCH_HOLD_AFTER_MS) {
  let down = false;
  /** The finger on this control while it may still turn out to be a scroll. */
  let touch = /** @type {{ pointerId: number, x: number, y: number, timer: number } | null} */ (null);
  const press = () => {
    if (down) return;
    down = true;
    send({ type: 'down', control });
  };
  const release = () => {
    if (!down) return;
    down = false;
    send({ type: 'up', control });
  };
  /** Let go without firing: the press was a scroll after all. */
  const abandon = () => {
    if (touch) clearTimeout(touch.timer);
    touch = null;
    if (!down) return;
    down = false;
    send({ type: 'cancel', control });
  };

  element.addEventListener('pointerdown', (event) => {
    if (event.pointerType !== 'touch') {
      element.setPointerCapture(event.pointerId);
      press();
      return;
    }
    if (touch || down) return; // a second finger on the same key changes nothing
    touch = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, timer: window.setTimeout(press, holdAfterMs) };
  });
  element.addEventListener('pointermove', (event) => {
    if (!touch || event.pointerId !== touch.pointerId) return;
    if (Math.hypot(event.clientX - touch.x, event.clientY - touch.y) > TOUCH_SLOP_PX) abandon();
  });
  element.addEventListener('pointerup', (event) => {
    if (event.pointerType !== 'touch') return release();
    if (!touch || event.pointerId !== touch.pointerId) return;
    clearTimeout(touch.timer);
    touch = null;
    press(); // a tap: the down was held back until the finger proved still
    release();
  });
  element.addEventListener('pointercancel', (event) => {
    if (event.pointerType === 'touch' && touch && event.pointerId !== touch.pointerId) return;
    abandon();
  });
  // A long touch must not open the browser's menu over a key being held.
  element.addEventListener('contextmenu', (event) => event.preventDefault());
  element.addEventListener('keydown', (event) => {
    if ((event.key === ' ' || event.key === 'Enter') && !event.repeat) press();
  });
  element.addEventListener('keyup', (event) => {
    if (event.key === ' ' || event.key === 'Enter') release();
  });
}

/** Strip gestures: a swipe of more than 30 px sideways, a long touch over 500 ms, else a tap. */
const SWIPE_PX = 30;
const LONG_MS = 500;

/** A strip cell: tap, long touch or sideways swipe; a vertical swipe scrolls the page and sends nothing. */
export function touchable(/** @type {HTMLElement} */ element, /** @type {(gesture: 'tap' | 'long' | 'swipe-left' | 'swipe-right') => void} */ send) {
  let start = /** @type {{x: number, t: number} | null} */ (null);
  element.addEventListener('pointerdown', (event) => {
    element.setPointerCapture(event.pointerId);
    start = { x: event.clientX, t: performance.now() };
  });
  element.addEventListener('pointercancel', () => (start = null));
  element.addEventListener('contextmenu', (event) => event.preventDefault());
  element.addEventListener('pointerup', (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const gesture = Math.abs(dx) > SWIPE_PX ? (dx < 0 ? 'swipe-left' : 'swipe-right') : performance.now() - start.t > LONG_MS ? 'long' : 'tap';
    start = null;
    send(gesture);
  });
}

/** A finger dragged this far along a dial turns it one detent (a 64 px dial: five detents across it). */
export const DRAG_DETENT_PX = 12;

/**
 * A dial: the wheel turns it (each notch one detent, fast scrolling more), arrow keys step it, and on a
 * touch screen a finger dragged along it turns it, one detent per DRAG_DETENT_PX, up or right clockwise
 * (as ArrowUp and ArrowRight): the axis is the one the finger first moves along, and dragging back turns
 * back. The page does not scroll under a dial (touch-action: none in deck.css); a tap still presses it
 * (holdable, with DIAL_HOLD_AFTER_MS), and a drag, having moved, never does.
 */
export function turnable(/** @type {HTMLElement} */ element, /** @type {(amount: number) => void} */ turn) {
  element.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const notches = Math.max(1, Math.round(Math.abs(event.deltaY) / 100));
      turn(event.deltaY < 0 ? notches : -notches);
    },
    { passive: false },
  );
  element.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowUp' || event.key === 'ArrowRight') turn(1);
    if (event.key === 'ArrowDown' || event.key === 'ArrowLeft') turn(-1);
  });
  /** The finger turning the dial: where it started, the axis it drags along once it has moved, detents sent. */
  let drag = /** @type {{ pointerId: number, x: number, y: number, axis: 'x' | 'y' | null, sent: number } | null} */ (null);
  element.addEventListener('pointerdown', (event) => {
    if (event.pointerType !== 'touch' || drag) return;
    drag = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, axis: null, sent: 0 };
  });
  element.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (drag.axis === null) {
      if (Math.hypot(dx, dy) <= TOUCH_SLOP_PX) return;
      drag.axis = Math.abs(dx) >= Math.abs(dy) ? 'x' : 'y';
    }
    const travel = drag.axis === 'x' ? dx : -dy;
    const detents = Math.trunc(travel / DRAG_DETENT_PX);
    if (detents === drag.sent) return;
    turn(detents - drag.sent);
    drag.sent = detents;
  });
  const end = (/** @type {PointerEvent} */ event) => {
    if (drag && event.pointerId === drag.pointerId) drag = null;
  };
  element.addEventListener('pointerup', end);
  element.addEventListener('pointercancel', end);
}
