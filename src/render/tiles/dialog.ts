// Dialog keys: the recorder's message and its answer buttons. While a dialog is up they flash (bright in one
// phase, dim with a coloured outline in the other); otherwise they sit dim and inert. Text never shrinks
// below a legible size: a message longer than the key holds is shown a page at a time ("1/3" in its
// corner), and the answer keys show its first line cut with an ellipsis.
import type { DialogPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { DIALOG } from '../palette.js';
import { iconSvg } from './icons.js';
import type { Rect, TilePlan } from './plan.js';
import { borderSvg, linesSvg, paragraphPages, rectSvg, svgDocument, textLine } from './svg.js';

/** The smallest text a dialog key shows: readable at arm's length on a 72 px key. */
export function legibleDialogSize(size: PixelSize): number {
  return Math.max(10, Math.round(Math.min(size.width, size.height) * 0.13));
}

function dialogWord(picture: DialogPicture): string {
  if (picture.role === 'ok') return picture.offersCancel ? 'YES' : 'OK';
  if (picture.role === 'cancel') return picture.offersCancel ? 'NO' : 'CANCEL';
  return 'DIALOG';
}

interface Shown {
  role: DialogPicture['role'];
  live: boolean;
  bright: boolean;
  text: string;
  word: string;
  /** The page of a long message shown now (0-based), and how many it has at this size. */
  page: number;
  pages: number;
}

export function dialogPlan(picture: DialogPicture, size: PixelSize): TilePlan {
  // A cancel key without a cancel to offer stays inert even while the dialog is up.
  const live = picture.active && (picture.role !== 'cancel' || picture.offersCancel);
  const text = live ? picture.text : '';
  const pages = picture.role === 'message' && text.trim() !== '' ? messageLayout(text, size).pages.length : 1;
  // The age is not shown (a dialog is only up while the data is live), so it is not part of the key.
  const shown: Shown = { role: picture.role, live, bright: live && picture.flashPhase, text, word: dialogWord(picture), page: picture.textPage % pages, pages };
  return { baseKey: JSON.stringify(['dialog', shown]), baseSvg: () => dialogSvg(shown, size), thumbnail: null, ops: [] };
}

function padOf(size: PixelSize): number {
  return Math.max(3, Math.round(Math.min(size.width, size.height) * 0.07));
}

/** The message wrapped at the largest legible size that fits, in pages; the last row is kept for "1/3" when it pages. */
function messageLayout(text: string, size: PixelSize): { size: number; pages: string[][]; rect: Rect; counter: Rect | null } {
  const pad = padOf(size);
  const legible = legibleDialogSize(size);
  const inner = { x: pad, y: pad, width: size.width - 2 * pad, height: size.height - 2 * pad };
  const maxSize = Math.max(legible, Math.min(size.width, size.height) * 0.2);
  const whole = paragraphPages(text, 'regular', inner, maxSize, legible);
  if (whole.pages.length <= 1) return { ...whole, rect: inner, counter: null };
  const counterHeight = Math.round(legible * 1.15);
  const rect = { ...inner, height: inner.height - counterHeight };
  return { ...paragraphPages(text, 'regular', rect, legible, legible), rect, counter: { x: pad, y: rect.y + rect.height, width: inner.width, height: counterHeight } };
}

function dialogSvg(shown: Shown, size: PixelSize): string {
  const { width, height } = size;
  const pad = padOf(size);
  const colours = DIALOG[shown.role];
  const background = shown.bright ? colours.bright : DIALOG.dim;
  const ink = shown.bright ? colours.ink : shown.live ? '#FFFFFF' : DIALOG.dimInk;
  let svg = rectSvg({ x: 0, y: 0, width, height }, background);
  if (shown.live && !shown.bright) svg += borderSvg({ x: 0, y: 0, width, height }, Math.max(2, pad * 0.6), colours.bright, null);
  const inner = { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad };
  if (shown.role === 'message') {
    if (shown.text.trim() === '') {
      svg += textLine({ text: shown.live ? '(no text)' : 'NO DIALOG', face: 'bold', rect: { ...inner, y: height * 0.35, height: height * 0.3 }, fill: ink, anchor: 'middle' });
      return svgDocument(size, svg);
    }
    const layout = messageLayout(shown.text, size);
    svg += linesSvg(layout.pages[shown.page] ?? [], { face: 'regular', size: layout.size, rect: layout.rect, fill: ink, anchor: 'middle' });
    if (layout.counter !== null) svg += textLine({ text: `${shown.page + 1}/${shown.pages}`, face: 'bold', rect: layout.counter, fill: ink, anchor: 'end', maxSize: layout.size, minSize: layout.size });
    return svgDocument(size, svg);
  }
  const icon = shown.role === 'ok' ? 'ok' : 'cancel';
  const hasText = shown.text.trim() !== '';
  const iconRect = { x: pad, y: height * 0.1, width: width - 2 * pad, height: height * (hasText ? 0.34 : 0.4) };
  svg += iconSvg(icon, iconRect, ink, background);
  const wordRect = { x: pad, y: iconRect.y + iconRect.height + height * 0.03, width: width - 2 * pad, height: height * (hasText ? 0.26 : 0.34) };
  svg += textLine({ text: shown.word, face: 'bold', rect: wordRect, fill: ink, anchor: 'middle' });
  if (hasText) {
    const legible = legibleDialogSize(size);
    const textRect = { x: pad, y: wordRect.y + wordRect.height, width: width - 2 * pad, height: height - pad * 0.5 - (wordRect.y + wordRect.height) };
    svg += textLine({ text: shown.text.replace(/\s+/g, ' '), face: 'regular', rect: textRect, fill: ink, anchor: 'middle', maxSize: legible, minSize: legible });
  }
  return svgDocument(size, svg);
}
