// Transient marks over any tile, all painted in JS: a flash or a hold ring must not wait on (or pay for) a
// sharp call, and a ring frame comes every 40 ms while a key is held. The gesture mark in the corner is
// painted here too: it is the same on every picture a key shows.
import type { PictureOverlay } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { truncateText } from '../font.js';
import { ARMED_PROMPT, FLASH, GESTURE_MARK, HOLD_HINT, HOLD_RING, HOLD_TRACK_DIM, SELECTED_FRAME } from '../palette.js';
import type { PaintOp, Rect } from './plan.js';
import { centredBaseline, dynamicLine, wrapText } from './svg.js';

/** Alpha of the flash tint over the whole key: the key's own look still shows through, dimly. */
const FLASH_TINT_ALPHA = 170;
/** Lines of a failure's reason under the flash word. */
const REASON_LINES = 2;

export function overlayOps(overlay: PictureOverlay | undefined, size: PixelSize): PaintOp[] {
  if (overlay === undefined) return [];
  const { width, height } = size;
  const short = Math.min(width, height);
  const ops: PaintOp[] = [];
  if (overlay.selected === true) ops.push({ kind: 'frame', thickness: Math.max(2, Math.round(short * 0.045)), colour: SELECTED_FRAME });
  if (overlay.gesture !== undefined) ops.push(...gestureMark(overlay.gesture, size));
  const reason = overlay.flash === 'failed' || overlay.flash === 'refused' ? (overlay.reason ?? '') : '';
  // With a reason the word moves up to leave room for it below.
  const box: Rect = reason === '' ? { x: 0, y: Math.round(height * 0.34), width, height: Math.round(height * 0.32) } : { x: 0, y: Math.round(height * 0.1), width, height: Math.round(height * 0.28) };
  const word = (text: string, colour: string): PaintOp =>
    dynamicLine({ text, face: 'bold', rect: { x: short * 0.06, y: box.y, width: width - short * 0.12, height: box.height }, fill: colour, anchor: 'middle', maxSize: box.height * 0.62 });
  if (overlay.flash !== undefined) {
    const flash = FLASH[overlay.flash];
    ops.push({ kind: 'fill', rect: { x: 0, y: 0, width, height }, colour: flash.tint, alpha: FLASH_TINT_ALPHA });
    ops.push({ kind: 'fill', rect: box, colour: flash.tint, alpha: 255 });
    ops.push(word(flash.word, flash.ink));
    if (reason !== '') ops.push(...reasonOps(reason, { x: 0, y: box.y + box.height + Math.round(height * 0.04), width, height: Math.round(height * 0.5) }, flash, short));
  } else if (overlay.hint === 'hold') {
    ops.push({ kind: 'fill', rect: box, colour: HOLD_HINT.box, alpha: 255 });
    ops.push(word(HOLD_HINT.word, HOLD_HINT.ink));
  } else if (overlay.armed === true) {
    ops.push({ kind: 'fill', rect: box, colour: ARMED_PROMPT.box, alpha: 255 });
    ops.push(word(ARMED_PROMPT.word, ARMED_PROMPT.ink));
  }
  if (overlay.hold !== undefined) ops.push({ kind: 'ring', progress: overlay.hold, colour: HOLD_RING, trackFactor: HOLD_TRACK_DIM });
  return ops;
}

/** The reason in up to two lines on the flash colour, the second cut with an ellipsis when more is left. */
function reasonOps(reason: string, rect: Rect, flash: { tint: string; ink: string }, short: number): PaintOp[] {
  const size = Math.max(9, Math.round(short * 0.13));
  const lineHeight = Math.round(size * 1.2);
  const inner = { x: rect.x + short * 0.05, width: rect.width - short * 0.1 };
  const { lines } = wrapText(reason, 'regular', size, inner.width);
  const shown = lines.slice(0, REASON_LINES);
  if (lines.length > REASON_LINES) shown[REASON_LINES - 1] = truncateText(`${shown[REASON_LINES - 1] ?? ''}\u2026`, 'regular', size, inner.width).replace(/\u2026\u2026$/, '\u2026');
  const ops: PaintOp[] = [{ kind: 'fill', rect: { ...rect, height: Math.min(rect.height, shown.length * lineHeight + Math.round(size * 0.4)) }, colour: flash.tint, alpha: 255 }];
  shown.forEach((line, i) => {
    const row = { x: inner.x, y: rect.y + Math.round(size * 0.2) + i * lineHeight, width: inner.width, height: lineHeight };
    ops.push({ kind: 'text', text: line, face: 'regular', size, x: Math.round(row.x + row.width / 2), baseline: Math.round(centredBaseline(row, 'regular', size)), anchor: 'middle', colour: flash.ink });
  });
  return ops;
}

/**
 * The bottom-right corner: a sky-blue triangle for a key that wants a hold (the colour of its ring), two
 * white dots for one that wants a double press. Small enough to leave the key's text alone.
 */
function gestureMark(gesture: NonNullable<PictureOverlay['gesture']>, { width, height }: PixelSize): PaintOp[] {
  const short = Math.min(width, height);
  if (gesture === 'hold') {
    const side = Math.max(6, Math.round(short * 0.16));
    // A right triangle drawn as one-pixel rows, widening towards the bottom edge.
    return Array.from({ length: side }, (_, row): PaintOp => ({ kind: 'fill', rect: { x: width - row - 1, y: height - side + row, width: row + 1, height: 1 }, colour: GESTURE_MARK.hold, alpha: 255 }));
  }
  const dot = Math.max(3, Math.round(short * 0.06));
  const gap = Math.max(2, Math.round(dot * 0.7));
  const y = height - dot - Math.max(2, Math.round(short * 0.03));
  const right = width - Math.max(2, Math.round(short * 0.03));
  return [
    { kind: 'fill', rect: { x: right - dot, y, width: dot, height: dot }, colour: GESTURE_MARK.double, alpha: 255 },
    { kind: 'fill', rect: { x: right - 2 * dot - gap, y, width: dot, height: dot }, colour: GESTURE_MARK.double, alpha: 255 },
  ];
}
