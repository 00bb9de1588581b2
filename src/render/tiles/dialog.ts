// Dialog keys: the recorder's message and its answer buttons. While a dialog is up they flash (bright in one
// phase, dim with a coloured outline in the other); otherwise they sit dim and inert.
import type { DialogPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { DIALOG } from '../palette.js';
import { iconSvg } from './icons.js';
import type { TilePlan } from './plan.js';
import { borderSvg, paragraph, rectSvg, svgDocument, textLine } from './svg.js';

function dialogWord(picture: DialogPicture): string {
  if (picture.role === 'ok') return picture.offersCancel ? 'YES' : 'OK';
  if (picture.role === 'cancel') return picture.offersCancel ? 'NO' : 'CANCEL';
  return 'DIALOG';
}

export function dialogPlan(picture: DialogPicture, size: PixelSize): TilePlan {
  // A cancel key without a cancel to offer stays inert even while the dialog is up.
  const live = picture.active && (picture.role !== 'cancel' || picture.offersCancel);
  // The age is not shown (a dialog is only up while the data is live), so it is not part of the key.
  const shown = { role: picture.role, live, bright: live && picture.flashPhase, text: live ? picture.text : '', word: dialogWord(picture) };
  return { baseKey: JSON.stringify(['dialog', shown]), baseSvg: () => dialogSvg(shown, size), thumbnail: null, ops: [] };
}

function dialogSvg(shown: { role: DialogPicture['role']; live: boolean; bright: boolean; text: string; word: string }, size: PixelSize): string {
  const { width, height } = size;
  const short = Math.min(width, height);
  const pad = Math.max(3, Math.round(short * 0.07));
  const colours = DIALOG[shown.role];
  const background = shown.bright ? colours.bright : DIALOG.dim;
  const ink = shown.bright ? colours.ink : shown.live ? '#FFFFFF' : DIALOG.dimInk;
  let svg = rectSvg({ x: 0, y: 0, width, height }, background);
  if (shown.live && !shown.bright) svg += borderSvg({ x: 0, y: 0, width, height }, Math.max(2, pad * 0.6), colours.bright, null);
  const inner = { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad };
  if (shown.role === 'message') {
    svg += shown.text.trim() === ''
      ? textLine({ text: shown.live ? '(no text)' : 'NO DIALOG', face: 'bold', rect: { ...inner, y: height * 0.35, height: height * 0.3 }, fill: ink, anchor: 'middle' })
      : paragraph({ text: shown.text, face: 'regular', rect: inner, fill: ink, anchor: 'middle', maxSize: Math.max(9, short * 0.2), minSize: 8 });
    return svgDocument(size, svg);
  }
  const icon = shown.role === 'ok' ? 'ok' : 'cancel';
  const hasText = shown.text.trim() !== '';
  const iconRect = { x: pad, y: height * 0.1, width: width - 2 * pad, height: height * (hasText ? 0.34 : 0.4) };
  svg += iconSvg(icon, iconRect, ink, background);
  const wordRect = { x: pad, y: iconRect.y + iconRect.height + height * 0.03, width: width - 2 * pad, height: height * (hasText ? 0.26 : 0.34) };
  svg += textLine({ text: shown.word, face: 'bold', rect: wordRect, fill: ink, anchor: 'middle' });
  if (hasText) {
    const textRect = { x: pad, y: wordRect.y + wordRect.height, width: width - 2 * pad, height: height - pad * 0.5 - (wordRect.y + wordRect.height) };
    svg += textLine({ text: shown.text.replace(/\s+/g, ' '), face: 'regular', rect: textRect, fill: ink, anchor: 'middle', maxSize: textRect.height * 0.7 });
  }
  return svgDocument(size, svg);
}
