// The renderer the bridge uses: keys, strip cells and the info bar as images, LEDs as states.
import { KeyRenderer, type KeyRendererOptions } from './key-renderer.js';

export type { KeyRendererOptions, RenderStats } from './key-renderer.js';
export { KeyRenderer } from './key-renderer.js';

export function pictureRenderer(options: Pick<KeyRendererOptions, 'thumbnails'> = {}): KeyRenderer {
  return new KeyRenderer(options);
}
