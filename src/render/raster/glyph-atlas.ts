// Glyph masks rasterised once per face and size (one sharp call for the whole character set), so text
// that changes every second (clocks, ages, fps, meter values) and overlay words are drawn in plain JS.
// Glyph origins are rounded to whole pixels; at key sizes that is invisible, and every render of the same
// text lands on the same pixels whether it came through the fast path or not.
import { fontFace, measureText, textPathData, type FaceName, type TextAnchor } from '../font.js';
import type { Rgb } from '../palette.js';
import type { RgbImage } from '../../engine/surface.js';
import { drawMask } from './pixels.js';
import type { Layers } from './rasterise.js';
import type { PixelSize } from '../../engine/surface.js';

/** Printable ASCII and the ellipsis: all that dynamic text and overlay words use. */
const CHARACTERS = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).concat('\u2026');

interface GlyphMask {
  mask: Uint8Array;
  width: number;
  height: number;
  /** Mask's top-left relative to the glyph origin on the baseline. */
  left: number;
  top: number;
  /** px */
  advance: number;
}

export class GlyphAtlas {
  private readonly kerning = new Map<string, number>();

  constructor(
    readonly face: FaceName,
    readonly size: number,
    private readonly glyphs: ReadonlyMap<string, GlyphMask>,
  ) {}

  /** Characters the atlas lacks are drawn as '?'. */
  private glyph(character: string): GlyphMask {
    return this.glyphs.get(character) ?? (this.glyphs.get('?') as GlyphMask);
  }

  /** Pair kerning in px, measured once per pair through the same layout font.ts uses for SVG text. */
  private kern(previous: string, next: string): number {
    const pair = previous + next;
    let value = this.kerning.get(pair);
    if (value === undefined) {
      value = measureText(pair, this.face, this.size) - measureText(previous, this.face, this.size) - measureText(next, this.face, this.size);
      this.kerning.set(pair, value);
    }
    return value;
  }

  /** Glyph origins in px from the text's start, and its advance width. */
  layOut(text: string): { characters: string[]; offsets: number[]; width: number } {
    const characters = Array.from(text);
    const offsets: number[] = [];
    let x = 0;
    let previous: string | undefined;
    for (const character of characters) {
      if (previous !== undefined) x += this.kern(previous, character);
      offsets.push(x);
      x += this.glyph(character).advance;
      previous = character;
    }
    return { characters, offsets, width: x };
  }

  width(text: string): number {
    return this.layOut(text).width;
  }

  /** Draws the text with its baseline at y, aligned on x as an SVG text-anchor would. */
  draw(image: RgbImage, text: string, x: number, baseline: number, anchor: TextAnchor, colour: Rgb): void {
    const { characters, offsets, width } = this.layOut(text);
    const start = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
    const y = Math.round(baseline);
    characters.forEach((character, i) => {
      const glyph = this.glyph(character);
      if (glyph.width === 0) return;
      const originX = Math.round(start + (offsets[i] as number));
      drawMask(image, glyph.mask, glyph.width, glyph.height, originX + glyph.left, y + glyph.top, colour);
    });
  }
}

export type RasteriseSvg = (svg: string, size: PixelSize, layers: Layers) => Promise<Buffer>;

/** Rasterises every character of the face at the size (whole px) into one strip, then cuts it into tight masks. */
export async function buildAtlas(face: FaceName, size: number, rasterise: RasteriseSvg): Promise<GlyphAtlas> {
  const unitsPerEm = fontFace(face).unitsPerEm;
  // Room for ascenders, descenders and overhangs (italic-like shapes, the ellipsis) around each glyph.
  const pad = Math.ceil(size * 0.25) + 2;
  const cellHeight = Math.ceil(size * 1.4) + 2 * pad;
  const baseline = pad + Math.ceil(size * 1.05);
  const cells = CHARACTERS.map((character) => {
    const advance = ((fontFace(face).charToGlyph(character).advanceWidth ?? 0) * size) / unitsPerEm;
    return { character, advance, width: Math.ceil(advance) + 2 * pad };
  });
  let left = 0;
  let paths = '';
  const placed = cells.map((cell) => {
    const at = left;
    paths += textPathData(cell.character, face, size, at + pad, baseline);
    left += cell.width;
    return { ...cell, at };
  });
  const stripWidth = left;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${stripWidth}" height="${cellHeight}"><path d="${paths}" fill="#fff"/></svg>`;
  const coverage = await rasterise(svg, { width: stripWidth, height: cellHeight }, 'alpha');

  const glyphs = new Map<string, GlyphMask>();
  for (const cell of placed) {
    let x0 = cell.width;
    let x1 = -1;
    let y0 = cellHeight;
    let y1 = -1;
    for (let y = 0; y < cellHeight; y++) {
      for (let x = 0; x < cell.width; x++) {
        if ((coverage[y * stripWidth + cell.at + x] as number) === 0) continue;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
    if (x1 < 0) {
      glyphs.set(cell.character, { mask: new Uint8Array(0), width: 0, height: 0, left: 0, top: 0, advance: cell.advance });
      continue;
    }
    const width = x1 - x0 + 1;
    const height = y1 - y0 + 1;
    const mask = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      const from = (y0 + y) * stripWidth + cell.at + x0;
      mask.set(coverage.subarray(from, from + width), y * width);
    }
    glyphs.set(cell.character, { mask, width, height, left: x0 - pad, top: y0 - baseline, advance: cell.advance });
  }
  return new GlyphAtlas(face, size, glyphs);
}
