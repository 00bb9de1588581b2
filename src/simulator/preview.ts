// The channel preview the simulated recorder serves: a moving test pattern per channel, or a slate when the
// channel has no source. Clients poll every channel about once a second, so everything that does not move
// is rasterised once per (channel, source) and each frame only paints the moving parts and encodes.
//
// sharp and the font code (opentype.js) are imported at the first preview, not at start: they were half
// of `recdeck simulate`'s start-up CPU (0.62-0.67 against 0.31-0.42 s to its listening line, docs/performance.md),
// paid by every simulator a test or script starts and never asks for a preview.
import type sharpFactory from 'sharp';
import type * as FontModule from '../render/font.js';

const PREVIEW_WIDTH = 640;
const PREVIEW_HEIGHT = 360;
/** RGB: the preview has no transparency, and a quarter fewer bytes makes every frame cheaper to encode. */
const CHANNELS = 3;

/** Frames change at most this often: requests within one frame get the same, already encoded PNG. */
const FRAME_MS = 100;
const SWEEP_MS = 4000;
const CACHE_LIMIT = 64;

const BARS_BOTTOM = 240;
const WEDGE_BOTTOM = 272;
const SECONDS_BOTTOM = 280;
const BAND_TOP = 284;
const LABEL_LEFT = 20;
const LABEL_RIGHT = PREVIEW_WIDTH - 20;
const BOX_SIZE = 64;
const BOX_TOP = 88;

/** SMPTE order: grey, yellow, cyan, green, magenta, red, blue (null is the grey bar). */
const BAR_HUES: readonly (number | null)[] = [null, 60, 180, 120, 300, 0, 240];
const BAR_GREY = '#bfbfbf';

/** What drawing a preview needs, imported once, at the first preview (see the top of the file). */
interface DrawingTools {
  sharp: typeof sharpFactory;
  font: typeof FontModule;
}

let drawingTools: Promise<DrawingTools> | undefined;

function loadDrawingTools(): Promise<DrawingTools> {
  drawingTools ??= Promise.all([import('sharp'), import('../render/font.js')]).then(([{ default: sharp }, font]) => ({ sharp, font }));
  return drawingTools;
}

type Rgb = readonly [number, number, number];
const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];
const SECONDS_FILL: Rgb = [240, 240, 240];

/** PNG bytes. Sharp allocates its output in ordinary (never shared) memory; the type says so for callers that need it. */
export type Png = Buffer<ArrayBuffer>;

export interface PreviewInput {
  /** 0-based; the picture shows it 1-based. */
  channelIndex: number;
  sourceName: string | null;
  timeMs: number;
}

export class PreviewRenderer {
  /** @param still every preview is a still picture (a camera on a still scene): for measuring what an unchanged preview costs. */
  constructor(private readonly still = false) {}

  /** Raw pixels of everything that does not move, per (channel, source). */
  readonly #stills = new Map<string, Promise<Buffer>>();
  /** The last encoded frame per channel. */
  readonly #lastFrames = new Map<number, { key: string; png: Promise<Png> }>();

  render({ channelIndex, sourceName, timeMs }: PreviewInput): Promise<Png> {
    const stillKey = JSON.stringify([channelIndex, sourceName]);
    const frameTimeMs = Math.floor(timeMs / FRAME_MS) * FRAME_MS;
    // The slate does not move, so any time gives the same frame.
    const moving = sourceName !== null && !this.still;
    const frameKey = moving ? `${stillKey}@${frameTimeMs}` : stillKey;
    const last = this.#lastFrames.get(channelIndex);
    if (last?.key === frameKey) return last.png;

    const png = Promise.all([this.#still(stillKey, channelIndex, sourceName), loadDrawingTools()]).then(([still, { sharp }]) =>
      encodePng(sharp, moving ? withMotion(still, frameTimeMs) : still),
    );
    remember(this.#lastFrames, channelIndex, { key: frameKey, png }, CACHE_LIMIT);
    png.catch(() => {
      if (this.#lastFrames.get(channelIndex)?.png === png) this.#lastFrames.delete(channelIndex);
    });
    return png;
  }

  #still(key: string, channelIndex: number, sourceName: string | null): Promise<Buffer> {
    let still = this.#stills.get(key);
    if (still === undefined) {
      const created = loadDrawingTools().then(({ sharp, font }) => rasterise(sharp, sourceName === null ? slateSvg(font, channelIndex) : testPatternSvg(font, channelIndex, sourceName)));
      // A failed rasterisation is not kept: the next request tries again.
      created.catch(() => {
        if (this.#stills.get(key) === created) this.#stills.delete(key);
      });
      still = created;
    }
    remember(this.#stills, key, still, CACHE_LIMIT);
    return still;
  }
}

/** Sets key as the most recent entry, dropping the least recent ones beyond limit. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= limit) break;
    map.delete(oldest);
  }
}

async function rasterise(sharp: typeof sharpFactory, svg: string): Promise<Buffer> {
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== PREVIEW_WIDTH || info.height !== PREVIEW_HEIGHT || info.channels !== CHANNELS) {
    throw new Error(`preview still rasterised to ${info.width}x${info.height}x${info.channels}`);
  }
  return data;
}

async function encodePng(sharp: typeof sharpFactory, pixels: Buffer): Promise<Png> {
  const png = await sharp(pixels, { raw: { width: PREVIEW_WIDTH, height: PREVIEW_HEIGHT, channels: CHANNELS } })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
  return png as Png;
}

/** A copy of the still with a box sweeping left to right across the bars, and a bar filling up each second. */
function withMotion(still: Buffer, timeMs: number): Buffer {
  const pixels = Buffer.from(still);
  const sweep = (timeMs % SWEEP_MS) / SWEEP_MS;
  const boxLeft = Math.round(-BOX_SIZE + sweep * (PREVIEW_WIDTH + BOX_SIZE));
  fillRect(pixels, boxLeft, BOX_TOP, BOX_SIZE, BOX_SIZE, BLACK);
  fillRect(pixels, boxLeft + 4, BOX_TOP + 4, BOX_SIZE - 8, BOX_SIZE - 8, WHITE);

  const secondFraction = ((timeMs % 1000) + FRAME_MS) / 1000;
  const secondsWidth = Math.round(secondFraction * PREVIEW_WIDTH);
  fillRect(pixels, 0, WEDGE_BOTTOM + 2, secondsWidth, SECONDS_BOTTOM - WEDGE_BOTTOM - 4, SECONDS_FILL);
  return pixels;
}

/** Fills the part of the rectangle inside the picture. */
function fillRect(pixels: Buffer, left: number, top: number, width: number, height: number, [r, g, b]: Rgb): void {
  const x0 = Math.max(0, left);
  const x1 = Math.min(PREVIEW_WIDTH, left + width);
  const y0 = Math.max(0, top);
  const y1 = Math.min(PREVIEW_HEIGHT, top + height);
  for (let y = y0; y < y1; y++) {
    const rowEnd = (y * PREVIEW_WIDTH + x1) * CHANNELS;
    for (let offset = (y * PREVIEW_WIDTH + x0) * CHANNELS; offset < rowEnd; offset += CHANNELS) {
      pixels[offset] = r;
      pixels[offset + 1] = g;
      pixels[offset + 2] = b;
    }
  }
}

/**
 * 75% colour bars over a grey wedge, with a label band. Each channel rotates the bars' order and shifts
 * their hue by 0–59° (a 60° shift would only reorder the same colours): no two of the first 420 channels
 * get the same bars, and neighbours look clearly different.
 */
function testPatternSvg(font: typeof FontModule, channelIndex: number, sourceName: string): string {
  const hueShift = (channelIndex * 23) % 60;
  const rotation = channelIndex % BAR_HUES.length;
  const hues = [...BAR_HUES.slice(rotation), ...BAR_HUES.slice(0, rotation)];
  const barColours = hues.map((hue) => (hue === null ? BAR_GREY : hex(barColour(hue + hueShift))));
  const accentHue = hues.find((hue) => hue !== null) ?? 0;
  const accent = hex(barColour(accentHue + hueShift));
  const barWidth = PREVIEW_WIDTH / barColours.length;
  const bars = barColours.map(
    (colour, i) => `<rect x="${i * barWidth}" y="0" width="${barWidth + 0.5}" height="${BARS_BOTTOM}" fill="${colour}"/>`,
  );
  const wedgeSteps = 8;
  const stepWidth = PREVIEW_WIDTH / wedgeSteps;
  const wedge = Array.from({ length: wedgeSteps }, (_, i) => {
    const level = Math.round((i * 255) / (wedgeSteps - 1));
    const height = WEDGE_BOTTOM - BARS_BOTTOM;
    return `<rect x="${i * stepWidth}" y="${BARS_BOTTOM}" width="${stepWidth + 0.5}" height="${height}" fill="${hex([level, level, level])}"/>`;
  });
  return svgDocument([
    ...bars,
    `<circle cx="${PREVIEW_WIDTH / 2}" cy="${BARS_BOTTOM / 2}" r="96" fill="none" stroke="#ffffff" stroke-width="3"/>`,
    `<path d="M0 ${BARS_BOTTOM / 2}H${PREVIEW_WIDTH}M${PREVIEW_WIDTH / 2} 0V${BARS_BOTTOM}" stroke="#ffffff" stroke-opacity="0.6"/>`,
    ...wedge,
    `<rect x="0" y="${WEDGE_BOTTOM}" width="${PREVIEW_WIDTH}" height="${PREVIEW_HEIGHT - WEDGE_BOTTOM}" fill="#0c0f14"/>`,
    `<rect x="0" y="${SECONDS_BOTTOM}" width="${PREVIEW_WIDTH}" height="${BAND_TOP - SECONDS_BOTTOM}" fill="${accent}"/>`,
    ...labelBand(font, channelIndex, sourceName),
  ]);
}

/** "CH n" on the left, the source name as large as fits on the right, both centred on their capitals. */
function labelBand({ capHeight, fitFontSize, measureText, textSvg, truncateText }: typeof FontModule, channelIndex: number, sourceName: string): string[] {
  const middle = (BAND_TOP + PREVIEW_HEIGHT) / 2;
  const label = channelLabel(channelIndex);
  const labelSize = 48;
  const nameLeft = LABEL_LEFT + measureText(label, 'bold', labelSize) + 28;
  const nameWidth = LABEL_RIGHT - nameLeft;
  const nameSize = fitFontSize(sourceName, 'regular', nameWidth, 34, 16);
  return [
    textSvg({
      text: label,
      face: 'bold',
      size: labelSize,
      x: LABEL_LEFT,
      y: middle + capHeight('bold', labelSize) / 2,
      anchor: 'start',
      fill: '#ffffff',
    }),
    textSvg({
      text: truncateText(sourceName, 'regular', nameSize, nameWidth),
      face: 'regular',
      size: nameSize,
      x: LABEL_RIGHT,
      y: middle + capHeight('regular', nameSize) / 2,
      anchor: 'end',
      fill: '#c8d0dc',
    }),
  ];
}

function slateSvg({ textSvg }: typeof FontModule, channelIndex: number): string {
  const centre = PREVIEW_WIDTH / 2;
  return svgDocument([
    `<rect width="${PREVIEW_WIDTH}" height="${PREVIEW_HEIGHT}" fill="#111316"/>`,
    `<rect x="12" y="12" width="${PREVIEW_WIDTH - 24}" height="${PREVIEW_HEIGHT - 24}" fill="none" stroke="#2a2f37" stroke-width="2"/>`,
    textSvg({ text: channelLabel(channelIndex), face: 'bold', size: 72, x: centre, y: 165, anchor: 'middle', fill: '#e6e6e6' }),
    `<rect x="${centre - 110}" y="196" width="220" height="2" fill="#3a3f47"/>`,
    textSvg({ text: 'NO SOURCE', face: 'bold', size: 40, x: centre, y: 252, anchor: 'middle', fill: '#8a919b' }),
  ]);
}

function channelLabel(channelIndex: number): string {
  return `CH ${channelIndex + 1}`;
}

function svgDocument(elements: readonly string[]): string {
  const size = `width="${PREVIEW_WIDTH}" height="${PREVIEW_HEIGHT}" viewBox="0 0 ${PREVIEW_WIDTH} ${PREVIEW_HEIGHT}"`;
  return `<svg xmlns="http://www.w3.org/2000/svg" ${size}>${elements.join('')}</svg>`;
}

/** A fully saturated colour at 75% brightness, as colour bars use. */
function barColour(hue: number): Rgb {
  const channel = (n: number) => {
    const k = (n + hue / 60) % 6;
    return Math.round(191 * (1 - Math.max(0, Math.min(k, 4 - k, 1))));
  };
  return [channel(5), channel(3), channel(1)];
}

function hex(rgb: Rgb): string {
  return `#${rgb.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}
