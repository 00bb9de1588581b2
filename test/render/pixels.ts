// Reading pixels back from rendered images, for the render tests.
import type { RgbImage } from '../../src/engine/surface.js';
import { hexToRgb } from '../../src/render/palette.js';

export function pixel(image: RgbImage, x: number, y: number): [number, number, number] {
  const i = (y * image.width + x) * 3;
  return [image.data[i] as number, image.data[i + 1] as number, image.data[i + 2] as number];
}

export function hexAt(image: RgbImage, x: number, y: number): string {
  return `#${pixel(image, x, y).map((c) => c.toString(16).padStart(2, '0')).join('').toUpperCase()}`;
}

/** Largest per-channel difference between two images of one size. */
export function maxDifference(a: RgbImage, b: RgbImage): number {
  let max = 0;
  for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs((a.data[i] as number) - (b.data[i] as number)));
  return max;
}

/** How many pixels differ at all within the rect. */
export function differingPixels(a: RgbImage, b: RgbImage, rect = { x: 0, y: 0, width: a.width, height: a.height }): number {
  let count = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const [p, q] = [pixel(a, x, y), pixel(b, x, y)];
      if (p[0] !== q[0] || p[1] !== q[1] || p[2] !== q[2]) count++;
    }
  }
  return count;
}

export function isColour(image: RgbImage, x: number, y: number, hex: string, tolerance = 0): boolean {
  const want = hexToRgb(hex);
  return pixel(image, x, y).every((c, k) => Math.abs(c - (want[k] as number)) <= tolerance);
}

/**
 * The heights of the runs of rows that hold ink inside the rect: pixels far (by more than `distance` in
 * some channel) from the background colour, read at the rect's top-left corner. One run per line of text;
 * runs of a pixel or two (a descender cut by a faint row) are left out.
 */
export function inkRuns(image: RgbImage, rect: { x: number; y: number; width: number; height: number }, distance = 110): number[] {
  const background = pixel(image, rect.x, rect.y);
  const runs: number[] = [];
  let run = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    let ink = false;
    for (let x = rect.x; x < rect.x + rect.width && !ink; x++) ink = pixel(image, x, y).some((c, k) => Math.abs(c - (background[k] as number)) > distance);
    if (ink) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  return runs.filter((height) => height > 2);
}
