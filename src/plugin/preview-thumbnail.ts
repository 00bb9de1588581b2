// A channel's preview made into what a plugin key shows behind its state: the recorder's PNG (640x360)
// decoded in plain JS (png-decode.ts) and shrunk, cropped to cover, to the tile's body at the key's size,
// once per new preview (the engine's RecorderExtras decodes only when the preview's bytes change, and
// fetches previews only for the visible keys that ask for one). The SVG tile embeds it as an image
// (svg-tiles.ts), so the app draws it at exactly the size it was made for.
import type { PixelSize, RgbImage } from '../engine/surface.js';
import { stateTileLayout } from '../render/tiles/state-tile.js';
import { KEY_SIZE } from './app-surface.js';
import { decodePng } from './png-decode.js';

/** The part of a key's tile a preview fills (everything below the state band). */
export const PREVIEW_SIZE: PixelSize = (() => {
  const { body } = stateTileLayout(KEY_SIZE);
  return { width: Math.round(body.width), height: Math.round(body.height) };
})();

/** The preview PNG as a key's thumbnail (PREVIEW_SIZE, raw RGB); rejects with what is wrong with the PNG. */
export async function previewThumbnail(png: Uint8Array): Promise<RgbImage> {
  return shrinkToCover(decodePng(png), PREVIEW_SIZE);
}

/**
 * `source` scaled to cover `size` and cropped to its centre: each pixel the average of the source pixels
 * it covers (a box filter: a 4.4x shrink that samples would shimmer as the picture moves).
 */
export function shrinkToCover(source: RgbImage, size: PixelSize): RgbImage {
  const { width, height } = size;
  const scale = Math.max(width / source.width, height / source.height);
  /** The source pixels [start, end) each target pixel along one axis covers: at least one (the nearest, when enlarging). */
  const spans = (count: number, sourceCount: number): { start: Int32Array; end: Int32Array } => {
    const offset = (sourceCount - count / scale) / 2;
    const start = new Int32Array(count);
    const end = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      start[i] = Math.min(sourceCount - 1, Math.max(0, Math.floor(offset + i / scale)));
      end[i] = Math.min(sourceCount, Math.max((start[i] as number) + 1, Math.floor(offset + (i + 1) / scale)));
    }
    return { start, end };
  };
  const columns = spans(width, source.width);
  const rows = spans(height, source.height);
  const out = Buffer.alloc(width * height * 3);
  const src = source.data;
  for (let y = 0; y < height; y++) {
    const y0 = rows.start[y] as number;
    const y1 = rows.end[y] as number;
    for (let x = 0; x < width; x++) {
      const x0 = columns.start[x] as number;
      const x1 = columns.end[x] as number;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sy = y0; sy < y1; sy++) {
        let at = (sy * source.width + x0) * 3;
        for (let sx = x0; sx < x1; sx++, at += 3) {
          r += src[at] as number;
          g += src[at + 1] as number;
          b += src[at + 2] as number;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const o = (y * width + x) * 3;
      out[o] = Math.round(r / count);
      out[o + 1] = Math.round(g / count);
      out[o + 2] = Math.round(b / count);
    }
  }
  return { width, height, data: out };
}
