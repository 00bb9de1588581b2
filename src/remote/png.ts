// A key's current image as PNG, for GET /surfaces/{id}/keys/{i}.png (made on request: nothing else
// needs PNG, and the page draws raw pixels).
import type { RgbImage } from '../engine/surface.js';
import { sharpLibrary } from '../render/sharp-library.js';

export function pngOf(image: RgbImage): Promise<Buffer> {
  return sharpLibrary()(image.data, { raw: { width: image.width, height: image.height, channels: 3 } }).png().toBuffer();
}
