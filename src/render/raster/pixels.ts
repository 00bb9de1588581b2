// Plain-JS drawing on raw RGB buffers: the parts of a key that change often (clock digits, meter bars,
// rings, flashes) are painted here over a cached base instead of going through sharp, whose fixed cost
// per call is larger than all of this together.
import type { RgbImage } from '../../engine/surface.js';
import type { Rgb } from '../palette.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rect clipped to the image, in whole pixels. */
function clip(image: RgbImage, rect: Rect): { x0: number; y0: number; x1: number; y1: number } {
  return {
    x0: Math.max(0, Math.round(rect.x)),
    y0: Math.max(0, Math.round(rect.y)),
    x1: Math.min(image.width, Math.round(rect.x + rect.width)),
    y1: Math.min(image.height, Math.round(rect.y + rect.height)),
  };
}

/** Fills the rect with the colour at alpha 0..255 (255 paints it solid). */
export function fillRect(image: RgbImage, rect: Rect, colour: Rgb, alpha = 255): void {
  const { x0, y0, x1, y1 } = clip(image, rect);
  const { data, width } = image;
  const [r, g, b] = colour;
  for (let y = y0; y < y1; y++) {
    let i = (y * width + x0) * 3;
    for (let x = x0; x < x1; x++, i += 3) {
      if (alpha >= 255) {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
      } else {
        data[i] = blend(data[i] as number, r, alpha);
        data[i + 1] = blend(data[i + 1] as number, g, alpha);
        data[i + 2] = blend(data[i + 2] as number, b, alpha);
      }
    }
  }
}

/** A frame of the given thickness just inside the image's edge. */
export function frame(image: RgbImage, thickness: number, colour: Rgb): void {
  const { width, height } = image;
  fillRect(image, { x: 0, y: 0, width, height: thickness }, colour);
  fillRect(image, { x: 0, y: height - thickness, width, height: thickness }, colour);
  fillRect(image, { x: 0, y: thickness, width: thickness, height: height - 2 * thickness }, colour);
  fillRect(image, { x: width - thickness, y: thickness, width: thickness, height: height - 2 * thickness }, colour);
}

/**
 * Paints the colour through an 8-bit coverage mask whose top-left lands at (x, y). Masks come from the
 * glyph atlas, so this is how text is drawn without sharp.
 */
export function drawMask(image: RgbImage, mask: Uint8Array, maskWidth: number, maskHeight: number, x: number, y: number, colour: Rgb): void {
  const { data, width, height } = image;
  const [r, g, b] = colour;
  const mx0 = Math.max(0, -x);
  const my0 = Math.max(0, -y);
  const mx1 = Math.min(maskWidth, width - x);
  const my1 = Math.min(maskHeight, height - y);
  for (let my = my0; my < my1; my++) {
    let m = my * maskWidth + mx0;
    let i = ((y + my) * width + x + mx0) * 3;
    for (let mx = mx0; mx < mx1; mx++, m++, i += 3) {
      const a = mask[m] as number;
      if (a === 0) continue;
      if (a === 255) {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
      } else {
        data[i] = blend(data[i] as number, r, a);
        data[i + 1] = blend(data[i + 1] as number, g, a);
        data[i + 2] = blend(data[i + 2] as number, b, a);
      }
    }
  }
}

/** Lays straight (not premultiplied) RGBA pixels of the image's size over it, as sharp's raw output gives them. */
export function drawRgba(image: RgbImage, rgba: Buffer): void {
  const { data } = image;
  const count = image.width * image.height;
  for (let p = 0, i = 0, j = 0; p < count; p++, i += 3, j += 4) {
    const a = rgba[j + 3] as number;
    if (a === 0) continue;
    if (a === 255) {
      data[i] = rgba[j] as number;
      data[i + 1] = rgba[j + 1] as number;
      data[i + 2] = rgba[j + 2] as number;
    } else {
      data[i] = blend(data[i] as number, rgba[j] as number, a);
      data[i + 1] = blend(data[i + 1] as number, rgba[j + 1] as number, a);
      data[i + 2] = blend(data[i + 2] as number, rgba[j + 2] as number, a);
    }
  }
}

/**
 * Draws the image scaled to cover the rect (cropping the overflow, centred), bilinear. Thumbnails are
 * 160x90 and a key's preview area is smaller, so bilinear is sharp enough and costs well under a tenth of
 * a millisecond.
 */
export function drawCover(image: RgbImage, rect: Rect, source: RgbImage): void {
  const { x0, y0, x1, y1 } = clip(image, rect);
  const targetWidth = Math.round(rect.width);
  const targetHeight = Math.round(rect.height);
  if (targetWidth <= 0 || targetHeight <= 0 || source.width <= 0 || source.height <= 0 || x1 <= x0) return;
  const scale = Math.max(targetWidth / source.width, targetHeight / source.height);
  const offsetX = (source.width - targetWidth / scale) / 2;
  const offsetY = (source.height - targetHeight / scale) / 2;
  const { data, width } = image;
  const src = source.data;
  const maxX = source.width - 1;
  const maxY = source.height - 1;
  // Where each column samples is the same on every row: worked out once per call.
  const columns = x1 - x0;
  const left = new Int32Array(columns);
  const right = new Int32Array(columns);
  const weight = new Float64Array(columns);
  for (let c = 0; c < columns; c++) {
    const sx = Math.min(maxX, Math.max(0, offsetX + (x0 + c - Math.round(rect.x) + 0.5) / scale - 0.5));
    const sx0 = Math.floor(sx);
    left[c] = sx0 * 3;
    right[c] = Math.min(maxX, sx0 + 1) * 3;
    weight[c] = sx - sx0;
  }
  for (let y = y0; y < y1; y++) {
    const sy = Math.min(maxY, Math.max(0, offsetY + (y - Math.round(rect.y) + 0.5) / scale - 0.5));
    const sy0 = Math.floor(sy);
    const fy = sy - sy0;
    const upper = sy0 * source.width * 3;
    const lower = Math.min(maxY, sy0 + 1) * source.width * 3;
    let i = (y * width + x0) * 3;
    for (let c = 0; c < columns; c++, i += 3) {
      const fx = weight[c] as number;
      const a = upper + (left[c] as number);
      const b = upper + (right[c] as number);
      const d = lower + (left[c] as number);
      const e = lower + (right[c] as number);
      for (let k = 0; k < 3; k++) {
        const top = (src[a + k] as number) + ((src[b + k] as number) - (src[a + k] as number)) * fx;
        const bottom = (src[d + k] as number) + ((src[e + k] as number) - (src[d + k] as number)) * fx;
        data[i + k] = Math.round(top + (bottom - top) * fy);
      }
    }
  }
}

/** Scales every pixel in the index list towards black, keeping factor of its brightness. */
export function darkenPixels(data: Buffer, offsets: Int32Array, from: number, to: number, factor: number): void {
  for (let n = from; n < to; n++) {
    const i = offsets[n] as number;
    data[i] = (data[i] as number) * factor;
    data[i + 1] = (data[i + 1] as number) * factor;
    data[i + 2] = (data[i + 2] as number) * factor;
  }
}

/** Paints every pixel in the index list with the colour. */
export function paintPixels(data: Buffer, offsets: Int32Array, from: number, to: number, colour: Rgb): void {
  const [r, g, b] = colour;
  for (let n = from; n < to; n++) {
    const i = offsets[n] as number;
    data[i] = r;
    data[i + 1] = g;
    data[i + 2] = b;
  }
}

/** under + (over − under)·alpha/255, rounded; the same formula everywhere keeps fast and full renders equal. */
function blend(under: number, over: number, alpha: number): number {
  return (under * (255 - alpha) + over * alpha + 127) / 255;
}
