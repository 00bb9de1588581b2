// A key's current image as PNG, for GET /surfaces/{id}/keys/{i}.png (made on request: nothing else
// needs PNG, and the page draws raw pixels).
import sharp from 'sharp';
import type { RgbImage } from '../engine/surface.js';

export function pngOf(image: RgbImage): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();
}
