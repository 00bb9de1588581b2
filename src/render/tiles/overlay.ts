// Transient marks over any tile, all painted in JS: a flash or a hold ring must not wait on (or pay for) a
// sharp call, and a ring frame comes every 40 ms while a key is held.
import type { PictureOverlay } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { ARMED_PROMPT, FLASH, HOLD_RING, HOLD_TRACK_DIM, SELECTED_FRAME } from '../palette.js';
import type { PaintOp, Rect } from './plan.js';
import { dynamicLine } from './svg.js';

/** Alpha of the flash tint over the whole key: the key's own look still shows through, dimly. */
const FLASH_TINT_ALPHA = 170;

export function overlayOps(overlay: PictureOverlay | undefined, size: PixelSize): PaintOp[] {
  if (overlay === undefined) return [];
  const { width, height } = size;
  const short = Math.min(width, height);
  const ops: PaintOp[] = [];
  if (overlay.selected === true) ops.push({ kind: 'frame', thickness: Math.max(2, Math.round(short * 0.045)), colour: SELECTED_FRAME });
  const box: Rect = { x: 0, y: Math.round(height * 0.34), width, height: Math.round(height * 0.32) };
  const word = (text: string, colour: string): PaintOp =>
    dynamicLine({ text, face: 'bold', rect: { x: short * 0.06, y: box.y, width: width - short * 0.12, height: box.height }, fill: colour, anchor: 'middle', maxSize: box.height * 0.62 });
  if (overlay.flash !== undefined) {
    const flash = FLASH[overlay.flash];
    ops.push({ kind: 'fill', rect: { x: 0, y: 0, width, height }, colour: flash.tint, alpha: FLASH_TINT_ALPHA });
    ops.push({ kind: 'fill', rect: box, colour: flash.tint, alpha: 255 });
    ops.push(word(flash.word, flash.ink));
  } else if (overlay.armed === true) {
    ops.push({ kind: 'fill', rect: box, colour: ARMED_PROMPT.box, alpha: 255 });
    ops.push(word(ARMED_PROMPT.word, ARMED_PROMPT.ink));
  }
  if (overlay.hold !== undefined) ops.push({ kind: 'ring', progress: overlay.hold, colour: HOLD_RING, trackFactor: HOLD_TRACK_DIM });
  return ops;
}
