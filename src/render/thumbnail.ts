// Channel previews arrive as PNG (640x360 from the recorder) and are shown on keys of 72–144 px, so they are
// decoded straight to a small raw image once, off the key-press path; tiles then scale that in JS.
import type { RgbImage } from '../engine/surface.js';
import { sharpLibrary } from './sharp-library.js';

export const THUMBNAIL_WIDTH = 160;
export const THUMBNAIL_HEIGHT = 90;

/** PNG (or any format sharp reads) to 160x90 raw RGB, cropped to cover; one sharp pipeline. */
export async function decodeThumbnail(png: Uint8Array): Promise<RgbImage> {
  const { data, info } = await sharpLibrary()(png)
    // Shrink-on-load where the format allows: decoding is most of the cost.
    .resize(THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT, { fit: 'cover', fastShrinkOnLoad: true })
    .flatten({ background: '#000000' })
    // Greyscale or palette images would otherwise come out with one channel.
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== THUMBNAIL_WIDTH || info.height !== THUMBNAIL_HEIGHT || info.channels !== 3) {
    throw new Error(`thumbnail decoded to ${info.width}x${info.height}x${info.channels}`);
  }
  return { width: info.width, height: info.height, data };
}
