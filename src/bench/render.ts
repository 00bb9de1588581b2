// (c) What drawing costs per key: a duration tick (the every-second change) and a full redraw (a picture
// never drawn before), at each native size, with and without a preview thumbnail; and the cost of
// decoding one 640x360 preview, which is kept off the key-press path.
import type { ChannelPicture } from '../engine/picture.js';
import type { PixelSize, RgbImage } from '../engine/surface.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { PreviewRenderer } from '../simulator/preview.js';

export const SIZES: ReadonlyArray<{ label: string; size: PixelSize }> = [
  { label: '72', size: { width: 72, height: 72 } },
  { label: '80', size: { width: 80, height: 80 } },
  { label: '96', size: { width: 96, height: 96 } },
  { label: '112', size: { width: 112, height: 112 } },
  { label: '120', size: { width: 120, height: 120 } },
  { label: '144x112', size: { width: 144, height: 112 } },
  { label: 'strip 200x100', size: { width: 200, height: 100 } },
];

export interface RenderCost {
  size: string;
  thumbnail: boolean;
  tickMs: number;
  /** A picture never drawn before whose background is too (it goes through sharp). */
  fullMs: number;
  /** A picture never drawn before over a background already made (a new page of channels). */
  newPictureMs: number;
}

const recording = (channel: number, source: string, durationS: number, thumbnail: string | null): ChannelPicture => ({
  kind: 'channel',
  channel,
  state: 'recording',
  lastSeen: null,
  source,
  durationS,
  fps: 25,
  drops: 0,
  warning: null, buffered: 0, audioPreview: false,
  thumbnail,
  ageS: null,
});

async function timePerCall(count: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) await call(i);
  return (performance.now() - start) / count;
}

export async function measureRenderCosts(): Promise<{ costs: RenderCost[]; previewDecodeMs: number }> {
  const preview = await new PreviewRenderer().render({ channelIndex: 0, sourceName: 'Cam 1', timeMs: 0 });
  const frames: RgbImage[] = [];
  for (let i = 0; i < 4; i++) frames.push(await decodeThumbnail(preview));
  const previewDecodeMs = await timePerCall(20, () => decodeThumbnail(preview));

  const costs: RenderCost[] = [];
  for (const thumbnail of [false, true]) {
    for (const { label, size } of SIZES) {
      const renderer = pictureRenderer({ thumbnails: (key) => frames[Number(key) % frames.length] });
      const key = thumbnail ? '0' : null;
      await renderer.render(recording(1, 'Cam 1', 0, key), size); // the base, drawn once
      const tickMs = await timePerCall(500, (i) => renderer.render(recording(1, 'Cam 1', i + 1, key), size));
      // Full redraws: a name beyond ASCII goes into the background, so each one is new to sharp; with a
      // thumbnail, a new frame too.
      const fullMs = await timePerCall(40, (i) => renderer.render(recording(1 + (i % 16), `Kamera Bühne ${i}`, 5, thumbnail ? String(i) : null), size));
      // New pictures of a kind already drawn: the background is shared, the identity painted.
      const newPictureMs = await timePerCall(200, (i) => renderer.render(recording(1 + (i % 16), `Camera ${i}`, 5, thumbnail ? String(i + 100) : null), size));
      costs.push({ size: label, thumbnail, tickMs, fullMs, newPictureMs });
    }
  }
  return { costs, previewDecodeMs };
}
