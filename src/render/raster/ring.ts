// The hold-to-confirm ring: a band along the key's edge that fills clockwise from the top centre. The band's
// pixels are listed once per size in the order the ring reaches them, so each frame (every 40 ms while a
// key is held) is one pass over a few thousand pixels.
import type { RgbImage } from '../../engine/surface.js';
import type { Rgb } from '../palette.js';
import { darkenPixels, paintPixels } from './pixels.js';

interface RingPixels {
  /** Byte offsets of the band's pixels, in the order the ring fills them. */
  offsets: Int32Array;
  /** Fill fraction 0..1 at which each pixel is reached (ascending). */
  reachedAt: Float32Array;
}

const rings = new Map<string, RingPixels>();

export function ringThickness(width: number, height: number): number {
  return Math.max(3, Math.round(Math.min(width, height) * 0.07));
}

/** Fills the ring up to progress 0..1 and darkens the rest of the band, so the target is visible too. */
export function drawRing(image: RgbImage, progress: number, colour: Rgb, trackFactor: number): void {
  const { offsets, reachedAt } = ringPixels(image.width, image.height);
  const p = Math.min(1, Math.max(0, progress));
  // First pixel not yet reached (binary search: the fractions ascend).
  let low = 0;
  let high = reachedAt.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((reachedAt[middle] as number) <= p) low = middle + 1;
    else high = middle;
  }
  paintPixels(image.data, offsets, 0, low, colour);
  darkenPixels(image.data, offsets, low, offsets.length, trackFactor);
}

function ringPixels(width: number, height: number): RingPixels {
  const key = `${width}x${height}`;
  let ring = rings.get(key);
  if (ring === undefined) {
    ring = layOutRing(width, height, ringThickness(width, height));
    rings.set(key, ring);
  }
  return ring;
}

/**
 * Each band pixel belongs to its nearest edge and is placed by the distance travelled along the perimeter
 * from the top centre, clockwise, so the ring moves at an even speed along every edge.
 */
function layOutRing(width: number, height: number, thickness: number): RingPixels {
  const perimeter = 2 * (width + height);
  const entries: { offset: number; at: number }[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y;
      const bottom = height - 1 - y;
      const left = x;
      const right = width - 1 - x;
      const nearest = Math.min(top, bottom, left, right);
      if (nearest >= thickness) continue;
      const cx = x + 0.5;
      const cy = y + 0.5;
      let travelled: number;
      if (nearest === top && cx >= width / 2) travelled = cx - width / 2;
      else if (nearest === right && nearest !== top) travelled = width / 2 + cy;
      else if (nearest === bottom && nearest !== right) travelled = width / 2 + height + (width - cx);
      else if (nearest === left && nearest !== bottom) travelled = width / 2 + height + width + (height - cy);
      else travelled = width / 2 + 2 * height + width + cx;
      entries.push({ offset: (y * width + x) * 3, at: travelled / perimeter });
    }
  }
  entries.sort((a, b) => a.at - b.at);
  return { offsets: Int32Array.from(entries, (e) => e.offset), reachedAt: Float32Array.from(entries, (e) => e.at) };
}
