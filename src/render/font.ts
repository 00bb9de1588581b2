// Text drawn as SVG outlines from the DejaVu fonts bundled as a dependency, so renders look the same on
// every host whatever fonts (if any) are installed, and librsvg never has to pick a system font.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Font, Glyph, KerningLookups, PathCommand } from 'opentype.js';
import { opentypeLibrary } from './opentype-library.js';

const FACE_FILES = {
  bold: 'DejaVuSansCondensed-Bold.ttf',
  regular: 'DejaVuSansCondensed.ttf',
  mono: 'DejaVuSansMono-Bold.ttf',
} as const;

export type FaceName = keyof typeof FACE_FILES;
export type TextAnchor = 'start' | 'middle' | 'end';

const ELLIPSIS = '\u2026';

interface LoadedFace {
  readonly font: Font;
  /** Latin pair kerning from GPOS; the fonts' default script has none. */
  readonly kerning: KerningLookups | undefined;
  /** Font units. */
  readonly capHeight: number;
  /**
   * Each text's layout, kept: a key's render measures the same labels again and again (a font size
   * fitted, a source name cut to fit) and the charmap and kerning look-ups were a tenth of it.
   */
  readonly runs: Map<string, GlyphRun>;
}

/** Layouts kept per face (see LoadedFace.runs). */
const MAX_RUNS = 4096;

interface GlyphRun {
  readonly glyphs: readonly { readonly glyph: Glyph; readonly x: number }[];
  /** Font units. */
  readonly advance: number;
}

const requireHere = createRequire(import.meta.url);
const loadedFaces = new Map<FaceName, LoadedFace>();

/** The parsed face, read and parsed on first use only (50–100 ms per face), then kept for the process. */
export function fontFace(face: FaceName): Font {
  return loadedFace(face).font;
}

function loadedFace(face: FaceName): LoadedFace {
  let loaded = loadedFaces.get(face);
  if (loaded === undefined) {
    const bytes = readFileSync(requireHere.resolve(`dejavu-fonts-ttf/ttf/${FACE_FILES[face]}`));
    // A Buffer may be a view into a larger pooled ArrayBuffer; opentype.js wants exactly the file.
    // lowMemory: parsing all ~6000 glyphs of a face up front costs about 15 MB of heap per face.
    const font = opentypeLibrary().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), { lowMemory: true });
    loaded = {
      font,
      kerning: font.position.getKerningTables('latn'),
      capHeight: font.charToGlyph('H').yMax ?? font.unitsPerEm,
      runs: new Map(),
    };
    loadedFaces.set(face, loaded);
  }
  return loaded;
}

/**
 * Lays the text out one glyph per code point with pair kerning. We do not use opentype.js's own layout
 * (Font.getPath, getAdvanceWidth): its shaping always applies the fonts' "ccmp" lookups and throws on the
 * contextual substitution format DejaVu uses there, for any text longer than one character. What is
 * lost is composition of combining marks, which labels here do not need.
 */
function layOut(text: string, face: FaceName): GlyphRun {
  const { runs } = loadedFace(face);
  let run = runs.get(text);
  if (run === undefined) {
    // Bounded: the texts laid out are labels, sources, clocks and ages; a clock makes a new one each
    // second, so the map is emptied now and then instead of growing for good.
    if (runs.size >= MAX_RUNS) runs.clear();
    run = layOutNow(text, face);
    runs.set(text, run);
  }
  return run;
}

function layOutNow(text: string, face: FaceName): GlyphRun {
  const { font, kerning } = loadedFace(face);
  const glyphs: { glyph: Glyph; x: number }[] = [];
  let advance = 0;
  let previous: Glyph | undefined;
  for (const character of text) {
    const glyph = font.charToGlyph(character);
    if (previous !== undefined && kerning !== undefined) {
      advance += font.position.getKerningValue(kerning, previous.index, glyph.index);
    }
    glyphs.push({ glyph, x: advance });
    advance += glyph.advanceWidth ?? 0;
    previous = glyph;
  }
  return { glyphs, advance };
}

/** Advance width of the text in px (kerning included). */
export function measureText(text: string, face: FaceName, sizePx: number): number {
  return (layOut(text, face).advance * sizePx) / fontFace(face).unitsPerEm;
}

/** Height of capitals in px: centring a label on its capitals looks centred whatever its descenders. */
export function capHeight(face: FaceName, sizePx: number): number {
  const { font, capHeight } = loadedFace(face);
  return (capHeight * sizePx) / font.unitsPerEm;
}

/** SVG path data for the text in y-down px, starting at x with its baseline at baselineY. */
export function textPathData(text: string, face: FaceName, sizePx: number, x: number, baselineY: number): string {
  const scale = sizePx / fontFace(face).unitsPerEm;
  let data = '';
  for (const placed of layOut(text, face).glyphs) {
    const left = x + placed.x * scale;
    for (const command of placed.glyph.path.commands) data += pathCommand(command, left, baselineY, scale);
  }
  return data;
}

/** One command moved from font units (y up) to px (y down) with its origin at (left, baseline). */
function pathCommand(command: PathCommand, left: number, baseline: number, scale: number): string {
  const point = (x: number, y: number) => `${px(left + x * scale)} ${px(baseline - y * scale)}`;
  switch (command.type) {
    case 'M':
    case 'L':
      return `${command.type}${point(command.x, command.y)}`;
    case 'Q':
      return `Q${point(command.x1, command.y1)} ${point(command.x, command.y)}`;
    case 'C':
      return `C${point(command.x1, command.y1)} ${point(command.x2, command.y2)} ${point(command.x, command.y)}`;
    case 'Z':
      return 'Z';
  }
}

/** Hundredths of a px are finer than any antialiasing can show, and keep the SVG short. */
function px(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export interface TextSvgOptions {
  text: string;
  face: FaceName;
  size: number;
  x: number;
  /** The baseline. */
  y: number;
  anchor: TextAnchor;
  fill: string;
}

/**
 * A filled SVG `<path>` element drawing the text, aligned on x as `text-anchor` would. The outline has
 * no words a reader can find, so the path is labelled with its text (aria-label): a screen reader, and a
 * test reading an SVG tile the Stream Deck app was sent, can tell what it says.
 */
export function textSvg({ text, face, size, x, y, anchor, fill }: TextSvgOptions): string {
  const width = anchor === 'start' ? 0 : measureText(text, face, size);
  const left = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
  return `<path aria-label="${escapeAttribute(text)}" d="${textPathData(text, face, size, left, y)}" fill="${escapeAttribute(fill)}"/>`;
}

/**
 * The largest size from minSize to maxSize at which the text fits in maxWidth, in whole px. Width scales
 * linearly with size (outlines are not hinted), so one measurement suffices. Returns minSize when even
 * that overflows: callers that must not overflow then shorten the text with truncateText.
 */
export function fitFontSize(text: string, face: FaceName, maxWidth: number, maxSize: number, minSize: number): number {
  const widthPerPx = measureText(text, face, 1);
  if (widthPerPx <= 0) return maxSize;
  return Math.max(minSize, Math.min(maxSize, Math.floor(maxWidth / widthPerPx)));
}

/** The text unchanged when it fits in maxWidth, else its longest prefix that fits with an ellipsis appended. */
export function truncateText(text: string, face: FaceName, sizePx: number, maxWidth: number): string {
  if (measureText(text, face, sizePx) <= maxWidth) return text;
  const characters = Array.from(text);
  let fits = 0;
  let overflows = characters.length;
  while (overflows - fits > 1) {
    const middle = (fits + overflows) >> 1;
    if (measureText(characters.slice(0, middle).join('') + ELLIPSIS, face, sizePx) <= maxWidth) fits = middle;
    else overflows = middle;
  }
  return characters.slice(0, fits).join('').trimEnd() + ELLIPSIS;
}

/**
 * The text unchanged when it fits, else cut in the middle: its head and its tail with an ellipsis between.
 * Names that differ only at their end ("Camera 12 — studio A", "… studio B") stay told apart; the tail
 * keeps a little more than the head, since that is where such names differ.
 */
export function truncateMiddle(text: string, face: FaceName, sizePx: number, maxWidth: number): string {
  if (measureText(text, face, sizePx) <= maxWidth) return text;
  const characters = Array.from(text);
  const cut = (kept: number) => {
    const head = Math.floor(kept * 0.45);
    return characters.slice(0, head).join('').trimEnd() + ELLIPSIS + characters.slice(characters.length - (kept - head)).join('').trimStart();
  };
  let fits = 0;
  let overflows = characters.length;
  while (overflows - fits > 1) {
    const middle = (fits + overflows) >> 1;
    if (measureText(cut(middle), face, sizePx) <= maxWidth) fits = middle;
    else overflows = middle;
  }
  return cut(fits);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
