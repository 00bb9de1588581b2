// Dialog keys: the recorder's question and its answer buttons. While a dialog is up they flash (bright in
// one phase, dim with a coloured outline in the other); otherwise they sit dim and inert. The question is
// never shrunk below a legible size: the keys that show it (the dialog overlay's free keys, or one dialog
// key) take it in reading order, each a run of whole lines; what does not fit on them at that size is
// shown a page at a time ("1/3" in the last key's corner). An answer key shows its button word, and the
// question's start only where no key shows the question.
import type { DialogPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { DIALOG } from '../palette.js';
import { flowText, legibleTextSize, LINE_HEIGHT, type FlowedText } from './flow.js';
import { iconSvg } from './icons.js';
import type { Rect, TilePlan } from './plan.js';
import { borderSvg, linesSvg, rectSvg, svgDocument, textLine } from './svg.js';

function dialogWord(picture: DialogPicture): string {
  if (picture.role === 'ok') return picture.offersCancel ? 'YES' : 'OK';
  if (picture.role === 'cancel') return picture.offersCancel ? 'NO' : 'CANCEL';
  return 'DIALOG';
}

interface Shown {
  role: DialogPicture['role'];
  live: boolean;
  bright: boolean;
  /** Answer keys: the question's start, cut to a line; messages: '' (their lines are below). */
  text: string;
  word: string;
  /** A message key's share of the question on the page shown now, at one size. */
  lines: string[];
  size: number;
  /** "2/3" on the last message key while the question pages. */
  counter: string | null;
  /** A message key past the question's end: plain, so the eye goes to the keys with text. */
  spare: boolean;
}

export function dialogPlan(picture: DialogPicture, size: PixelSize): TilePlan {
  // A cancel key without a cancel to offer stays inert even while the dialog is up.
  const live = picture.active && (picture.role !== 'cancel' || picture.offersCancel);
  const text = live ? picture.text : '';
  const shown: Shown = { role: picture.role, live, bright: live && picture.flashPhase, text: picture.role === 'message' ? '' : text, word: dialogWord(picture), lines: [], size: 0, counter: null, spare: false };
  if (picture.role === 'message') Object.assign(shown, messageShare(text, picture, size));
  // A spare key looks the same in both phases: one base, and nothing to redraw as the others flash.
  if (shown.spare) Object.assign(shown, { live: false, bright: false });
  // The age is not shown (a dialog is only up while the data is live), so it is not part of the key.
  return { baseKey: JSON.stringify(['dialog', shown]), baseSvg: () => dialogSvg(shown, size), thumbnail: null, ops: [] };
}

function padOf(size: PixelSize): number {
  return Math.max(3, Math.round(Math.min(size.width, size.height) * 0.07));
}

/** The room for the question's lines: inside the outline, as wide as it leaves. */
function innerOf(size: PixelSize): Rect {
  const pad = Math.max(3, Math.round(Math.min(size.width, size.height) * 0.055));
  return { x: pad, y: pad, width: size.width - 2 * pad, height: size.height - 2 * pad };
}

/**
 * The question laid over `slots` keys of this size in reading order: as large as fits (up to a fifth of
 * the key), never below the legible size; beyond that in pages. Every key of a deck is one size, so each
 * key works out the same layout and takes its own share.
 */
export function questionLayout(text: string, size: PixelSize, slots: number): FlowedText {
  const legible = legibleTextSize(size);
  return flowText(text, { face: 'regular', box: innerOf(size), boxes: slots, maxSize: Math.max(legible, Math.min(size.width, size.height) * 0.2), minSize: legible, counterRow: true });
}

function messageShare(text: string, picture: DialogPicture, size: PixelSize): Pick<Shown, 'lines' | 'size' | 'counter' | 'spare'> {
  const slot = Math.min(picture.slot, picture.slots - 1);
  if (text.trim() === '') return { lines: [], size: 0, counter: null, spare: slot > 0 };
  const layout = questionLayout(text, size, picture.slots);
  const pages = layout.pages.length;
  const page = picture.textPage % pages;
  const lines = layout.pages[page]?.[slot] ?? [];
  const last = slot === picture.slots - 1;
  return { lines, size: layout.size, counter: pages > 1 && last ? `${page + 1}/${pages}` : null, spare: lines.length === 0 && !(pages > 1 && last) };
}

function dialogSvg(shown: Shown, size: PixelSize): string {
  const { width, height } = size;
  const pad = padOf(size);
  const colours = DIALOG[shown.role];
  if (shown.spare) return svgDocument(size, rectSvg({ x: 0, y: 0, width, height }, DIALOG.dim));
  const background = shown.bright ? colours.bright : DIALOG.dim;
  const ink = shown.bright ? colours.ink : shown.live ? '#FFFFFF' : DIALOG.dimInk;
  let svg = rectSvg({ x: 0, y: 0, width, height }, background);
  if (shown.live && !shown.bright) svg += borderSvg({ x: 0, y: 0, width, height }, Math.max(2, pad * 0.6), colours.bright, null);
  const inner = innerOf(size);
  if (shown.role === 'message') {
    if (shown.lines.length === 0 && shown.counter === null) {
      svg += textLine({ text: shown.live ? '(no text)' : 'NO DIALOG', face: 'bold', rect: { ...inner, y: height * 0.35, height: height * 0.3 }, fill: ink, anchor: 'middle' });
      return svgDocument(size, svg);
    }
    const row = shown.size * LINE_HEIGHT;
    const rect = shown.counter === null ? inner : { ...inner, height: inner.height - row };
    svg += linesSvg(shown.lines, { face: 'regular', size: shown.size, rect, fill: ink, anchor: 'middle', lineHeight: LINE_HEIGHT });
    if (shown.counter !== null) svg += textLine({ text: shown.counter, face: 'bold', rect: { ...inner, y: inner.y + inner.height - row, height: row }, fill: ink, anchor: 'end', maxSize: shown.size, minSize: shown.size });
    return svgDocument(size, svg);
  }
  const icon = shown.role === 'ok' ? 'ok' : 'cancel';
  const hasText = shown.text.trim() !== '';
  const iconRect = { x: pad, y: height * 0.1, width: width - 2 * pad, height: height * (hasText ? 0.34 : 0.4) };
  svg += iconSvg(icon, iconRect, ink, background);
  const wordRect = { x: pad, y: iconRect.y + iconRect.height + height * 0.03, width: width - 2 * pad, height: height * (hasText ? 0.26 : 0.34) };
  svg += textLine({ text: shown.word, face: 'bold', rect: wordRect, fill: ink, anchor: 'middle' });
  if (hasText) {
    const legible = legibleTextSize(size);
    const textRect = { x: pad, y: wordRect.y + wordRect.height, width: width - 2 * pad, height: height - pad * 0.5 - (wordRect.y + wordRect.height) };
    svg += textLine({ text: shown.text.replace(/\s+/g, ' '), face: 'regular', rect: textRect, fill: ink, anchor: 'middle', maxSize: legible, minSize: legible });
  }
  return svgDocument(size, svg);
}
