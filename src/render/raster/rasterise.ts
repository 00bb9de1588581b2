// The only place SVG becomes pixels. Each call is one sharp pipeline (about a millisecond of fixed cost
// plus the drawing), which is why the renderer counts them and caches what they produce.
import type { PixelSize } from '../../engine/surface.js';
import { sharpLibrary } from '../sharp-library.js';

export type Layers = 'rgb' | 'rgba' | 'alpha';

const CHANNELS: Readonly<Record<Layers, number>> = { rgb: 3, rgba: 4, alpha: 1 };

/**
 * Rasterises the SVG at its own pixel size. 'rgb' is flattened onto black (an opaque key), 'rgba' keeps
 * straight alpha (a layer to lay over a thumbnail), 'alpha' keeps only coverage (glyph masks).
 */
export async function rasteriseSvg(svg: string, size: PixelSize, layers: Layers): Promise<Buffer> {
  const input = sharpLibrary()(Buffer.from(svg));
  const pipeline =
    layers === 'rgb'
      ? input.flatten({ background: '#000000' }).removeAlpha()
      : layers === 'rgba'
        ? input.ensureAlpha()
        : input.ensureAlpha().extractChannel(3);
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  const channels = CHANNELS[layers];
  if (info.width !== size.width || info.height !== size.height || info.channels !== channels) {
    throw new Error(`SVG rasterised to ${info.width}x${info.height}x${info.channels}, expected ${size.width}x${size.height}x${channels}`);
  }
  return data;
}
