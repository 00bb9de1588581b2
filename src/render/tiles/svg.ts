// SVG building blocks for tile bases. Text is always outlines from font.ts (never <text>), so a key looks
// the same on every host.
import type { PixelSize } from '../../engine/surface.js';
import { capHeight, fitFontSize, textSvg, truncateText, type FaceName, type TextAnchor } from '../font.js';
import { OKABE_ITO } from '../palette.js';
import { wrapWords } from './flow.js';
import type { Rect, TextOp } from './plan.js';

export function svgDocument(size: PixelSize, content: string, defs = ''): string {
  const { width, height } = size;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${defs === '' ? '' : `<defs>${defs}</defs>`}${content}</svg>`;
}

export function rectSvg(rect: Rect, fill: string, attributes = ''): string {
  return `<rect x="${n(rect.x)}" y="${n(rect.y)}" width="${n(Math.max(0, rect.width))}" height="${n(Math.max(0, rect.height))}" fill="${fill}"${attributes === '' ? '' : ` ${attributes}`}/>`;
}

/** Numbers short enough for SVG and exact enough for pixels. */
export function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export interface LineOptions {
  text: string;
  face: FaceName;
  rect: Rect;
  fill: string;
  anchor: TextAnchor;
  /** px; by default what fits the rect's height. */
  maxSize?: number;
  minSize?: number;
}

/** The size a line of text gets in the rect: as large as the height allows, shrunk to fit the width. */
export function lineSize({ text, face, rect, maxSize, minSize }: Omit<LineOptions, 'fill' | 'anchor'>): number {
  const tallest = Math.max(6, Math.floor(maxSize ?? rect.height * 0.78));
  return fitFontSize(text, face, rect.width, tallest, Math.min(tallest, minSize ?? 7));
}

/** Baseline that centres capitals vertically in the rect (centred labels look centred whatever their descenders). */
export function centredBaseline(rect: Rect, face: FaceName, size: number): number {
  return rect.y + (rect.height + capHeight(face, size)) / 2;
}

function anchorX(rect: Rect, anchor: TextAnchor): number {
  return anchor === 'start' ? rect.x : anchor === 'middle' ? rect.x + rect.width / 2 : rect.x + rect.width;
}

/** One line fitted into the rect (shrunk, then truncated with an ellipsis), capitals centred vertically. */
export function textLine(options: LineOptions): string {
  const { text, face, rect, fill, anchor } = options;
  if (text === '') return '';
  const size = lineSize(options);
  const shown = truncateText(text, face, size, rect.width);
  return textSvg({ text: shown, face, size, x: anchorX(rect, anchor), y: centredBaseline(rect, face, size), anchor, fill });
}

/** Lines at one size, centred as a block in the rect. */
export function linesSvg(lines: readonly string[], options: { face: FaceName; size: number; rect: Rect; fill: string; anchor: TextAnchor; lineHeight?: number }): string {
  const { face, size, rect, fill, anchor } = options;
  const lineHeight = options.lineHeight ?? 1.15;
  const top = rect.y + (rect.height - lines.length * size * lineHeight) / 2;
  const x = anchorX(rect, anchor);
  return lines.map((line, i) => textSvg({ text: line, face, size, x, y: top + i * size * lineHeight + (size * lineHeight + capHeight(face, size)) / 2, anchor, fill })).join('');
}

/**
 * A paragraph fitted into the rect: the largest size from maxSize down at which the wrapped lines fit its
 * height with no word split; at the smallest size, lines beyond the last that fits are dropped and that
 * one ends in an ellipsis.
 */
export function paragraph(options: LineOptions & { lineHeight?: number }): string {
  const { text, face, rect, fill, anchor } = options;
  if (text.trim() === '') return '';
  const lineHeight = options.lineHeight ?? 1.15;
  const maxSize = Math.max(6, Math.floor(options.maxSize ?? rect.height * 0.5));
  const minSize = Math.min(maxSize, options.minSize ?? 8);
  let size = maxSize;
  let wrapped = wrapWords(text, face, size, rect.width);
  while (size > minSize && (wrapped.split || wrapped.lines.length * size * lineHeight > rect.height)) {
    size -= 1;
    wrapped = wrapWords(text, face, size, rect.width);
  }
  let lines = wrapped.lines;
  const room = Math.max(1, Math.floor(rect.height / (size * lineHeight)));
  if (lines.length > room) {
    const kept = lines.slice(0, room);
    const last = kept[room - 1] as string;
    kept[room - 1] = truncateText(`${last}\u2026`, face, size, rect.width).replace(/\u2026\u2026$/, '\u2026');
    lines = kept;
  }
  const blockHeight = lines.length * size * lineHeight;
  const top = rect.y + (rect.height - blockHeight) / 2;
  const x = anchorX(rect, anchor);
  return lines
    .map((line, i) => textSvg({ text: line, face, size, x, y: top + i * size * lineHeight + (size * lineHeight + capHeight(face, size)) / 2, anchor, fill }))
    .join('');
}

/**
 * A line drawn in JS from the glyph atlas: sized like textLine, in whole px so atlases are shared, and
 * never truncated (values are short; clipping at the tile edge is the worst case).
 */
export function dynamicLine(options: LineOptions): TextOp {
  const { text, face, rect, fill, anchor } = options;
  const size = Math.max(6, Math.floor(lineSize(options)));
  return { kind: 'text', text, face, size, x: anchorX(rect, anchor), baseline: Math.round(centredBaseline(rect, face, size)), anchor, colour: fill };
}

/** Diagonal hazard stripes as a pattern; fill a shape with url(#id). */
export function hazardPattern(id: string, stripe: number, colour: string = OKABE_ITO.orange, gap = '#000000'): string {
  const s = n(stripe * 2);
  return `<pattern id="${id}" width="${s}" height="${s}" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="${s}" height="${s}" fill="${gap}"/><rect width="${n(stripe)}" height="${s}" fill="${colour}"/></pattern>`;
}

/** A frame drawn as a stroke just inside the rect. */
export function borderSvg(rect: Rect, thickness: number, stroke: string, dash: number | null): string {
  const half = thickness / 2;
  const dashes = dash === null ? '' : ` stroke-dasharray="${n(dash)} ${n(dash * 0.7)}"`;
  return `<rect x="${n(rect.x + half)}" y="${n(rect.y + half)}" width="${n(rect.width - thickness)}" height="${n(rect.height - thickness)}" fill="none" stroke="${stroke}" stroke-width="${n(thickness)}"${dashes}/>`;
}

/** Two diagonals across the rect. */
export function crossSvg(rect: Rect, thickness: number, stroke: string): string {
  const { x, y, width, height } = rect;
  return `<path d="M${n(x)} ${n(y)}L${n(x + width)} ${n(y + height)}M${n(x + width)} ${n(y)}L${n(x)} ${n(y + height)}" stroke="${stroke}" stroke-width="${n(thickness)}" stroke-linecap="round" fill="none"/>`;
}
