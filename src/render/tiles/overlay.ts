// Transient marks over any tile, all painted in JS: a flash or a hold ring must not wait on (or pay for) a
// sharp call, and a ring frame comes every 40 ms while a key is held. The gesture mark in the corner is
// painted here too: it is the same on every picture a key shows.
import type { PictureOverlay } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { measureText } from '../font.js';
import { ARMED_PROMPT, FLASH, GESTURE_MARK, HOLD_HINT, HOLD_RING, HOLD_TRACK_DIM, SELECTED_FRAME } from '../palette.js';
import type { PaintOp, Rect } from './plan.js';
import { flowText, legibleTextSize, LINE_HEIGHT, type FlowedText } from './flow.js';
import { centredBaseline, dynamicLine } from './svg.js';

/** Alpha of the flash tint over the whole key: the key's own look still shows through, dimly. */
const FLASH_TINT_ALPHA = 170;

export function overlayOps(overlay: PictureOverlay | undefined, size: PixelSize): PaintOp[] {
  if (overlay === undefined) return [];
  const { width, height } = size;
  const short = Math.min(width, height);
  const ops: PaintOp[] = [];
  if (overlay.selected === true) ops.push({ kind: 'frame', thickness: Math.max(2, Math.round(short * 0.045)), colour: SELECTED_FRAME });
  if (overlay.gesture !== undefined) ops.push(...gestureMark(overlay.gesture, size));
  const reason = overlay.flash === 'failed' || overlay.flash === 'refused' ? (overlay.reason ?? '') : '';
  // With a reason the word moves up to leave the rest of the key to it.
  const box: Rect = reason === '' ? { x: 0, y: Math.round(height * 0.34), width, height: Math.round(height * 0.32) } : reasonFrame(size).word;
  const word = (text: string, colour: string, room = width - short * 0.12): PaintOp =>
    dynamicLine({ text, face: 'bold', rect: { x: short * 0.06, y: box.y, width: room, height: box.height }, fill: colour, anchor: 'middle', maxSize: box.height * 0.62 });
  if (overlay.flash !== undefined) {
    const flash = FLASH[overlay.flash];
    ops.push({ kind: 'fill', rect: { x: 0, y: 0, width, height }, colour: flash.tint, alpha: FLASH_TINT_ALPHA });
    ops.push({ kind: 'fill', rect: box, colour: flash.tint, alpha: 255 });
    if (reason === '') ops.push(word(flash.word, flash.ink));
    else {
      const page = reasonPageOps(reason, overlay.reasonPage ?? 0, size, flash);
      ops.push(word(flash.word, flash.ink, width - short * 0.12 - page.counterWidth), ...page.ops);
    }
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

/** Where a flash with a reason puts its word (a band at the top) and the reason (the rest of the key). */
function reasonFrame({ width, height }: PixelSize): { word: Rect; reason: Rect } {
  const short = Math.min(width, height);
  const word = { x: 0, y: Math.round(height * 0.05), width, height: Math.round(height * 0.24) };
  const top = word.y + word.height + Math.round(height * 0.03);
  const side = Math.max(2, Math.round(short * 0.03));
  return { word, reason: { x: side, y: top, width: width - 2 * side, height: height - top - Math.round(height * 0.03) } };
}

/**
 * A failure's reason as the key shows it: whole, at a legible size, in pages when it is longer than the
 * key holds. The number of pages is what the session keeps the flash up for (a page per reading period).
 */
export function reasonLayout(reason: string, size: PixelSize): FlowedText {
  const { reason: rect } = reasonFrame(size);
  const legible = legibleTextSize(size);
  return flowText(reason, { face: 'regular', box: rect, boxes: 1, maxSize: Math.max(legible, Math.min(size.width, size.height) * 0.2), minSize: legible, counterRow: false });
}

/** The reason's page `counter` modulo its pages, on the flash colour; "2/3" beside the word while it pages. */
function reasonPageOps(reason: string, counter: number, size: PixelSize, flash: { tint: string; ink: string }): { ops: PaintOp[]; counterWidth: number } {
  const frame = reasonFrame(size);
  const layout = reasonLayout(reason, size);
  const page = counter % layout.pages.length;
  const lines = layout.pages[page]?.[0] ?? [];
  const row = Math.round(layout.size * LINE_HEIGHT);
  const ops: PaintOp[] = [{ kind: 'fill', rect: { x: 0, y: frame.reason.y, width: size.width, height: Math.min(frame.reason.height, lines.length * row + Math.round(layout.size * 0.4)) }, colour: flash.tint, alpha: 255 }];
  lines.forEach((line, i) => {
    const rect = { ...frame.reason, y: frame.reason.y + Math.round(layout.size * 0.2) + i * row, height: row };
    ops.push({ kind: 'text', text: line, face: 'regular', size: layout.size, x: Math.round(rect.x + rect.width / 2), baseline: Math.round(centredBaseline(rect, 'regular', layout.size)), anchor: 'middle', colour: flash.ink });
  });
  if (layout.pages.length === 1) return { ops, counterWidth: 0 };
  const counterSize = Math.max(6, Math.floor(Math.min(legibleTextSize(size), frame.word.height * 0.62)));
  const text = `${page + 1}/${layout.pages.length}`;
  const right = size.width - Math.round(Math.min(size.width, size.height) * 0.06);
  ops.push({ kind: 'text', text, face: 'bold', size: counterSize, x: right, baseline: Math.round(centredBaseline(frame.word, 'bold', counterSize)), anchor: 'end', colour: flash.ink });
  return { ops, counterWidth: measureText(text, 'bold', counterSize) + Math.round(counterSize * 0.4) };
}

/**
 * The bottom-right corner: a sky-blue triangle for a key that wants a hold (the colour of its ring), two
 * white dots for one that wants a double press. Small enough to leave the key's text alone.
 */
function gestureMark(gesture: NonNullable<PictureOverlay['gesture']>, size: PixelSize): readonly PaintOp[] {
  // A pure function of the gesture and the key's size, asked at every image made of a key that has one
  // (a hold's triangle is a dozen ops, each with its rect): made once per gesture and size, the ops
  // shared by every image, read only by their painters. A handful of entries: one per size of key.
  const key = `${gesture} ${size.width}x${size.height}`;
  let ops = GESTURE_MARKS.get(key);
  if (ops === undefined) {
    ops = Object.freeze(gestureMarkOps(gesture, size));
    GESTURE_MARKS.set(key, ops);
  }
  return ops;
}

const GESTURE_MARKS = new Map<string, readonly PaintOp[]>();

function gestureMarkOps(gesture: NonNullable<PictureOverlay['gesture']>, { width, height }: PixelSize): PaintOp[] {
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
