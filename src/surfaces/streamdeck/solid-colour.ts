// A key image that is one colour everywhere can be sent as three bytes (fillKeyColor) instead of an
// encoded picture: blank keys, flashes and plain state tiles are common, and USB bandwidth is not free.
import type { RgbImage } from '../../engine/surface.js';

/** The image's only colour, or null when it has more than one. */
export function solidColourOf(image: RgbImage): [number, number, number] | null {
  const { data } = image;
  if (data.length < 3) return null;
  // Every byte equals the one three before it exactly when every pixel equals the first: one native
  // memcmp of the buffer against itself shifted by a pixel, with no per-pixel JavaScript.
  if (data.compare(data, 3, data.length, 0, data.length - 3) !== 0) return null;
  return [data[0] as number, data[1] as number, data[2] as number];
}
