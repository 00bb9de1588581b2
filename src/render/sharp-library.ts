// sharp, required at its first use (the first picture rasterised, preview decoded or key PNG asked
// for), not imported with the renderer: a bridge that draws nothing (a bus poller, a --no-web bridge
// with no deck plugged in) never loads it or libvips, and one that draws loads it with its first picture
// or warm-up, after its ready line. Required, not imported: Node scans a CommonJS module imported from an
// ES module for its export names, which cost sharp's load 100-170 ms of CPU more than a require
// (docs/performance.md, "CommonJS packages required").
import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import { loadedOnce } from '../api/loaded-once.js';

/** sharp, loaded on the first call. */
export const sharpLibrary = loadedOnce(() => {
  const sharp = createRequire(import.meta.url)('sharp') as typeof Sharp;
  // Every picture the bridge draws is cached by content where it is used again (the renderer, the
  // finished images); libvips' own operation cache (up to 50 MB by default) would only hold second
  // copies, and costs resident memory on a small bridge machine.
  sharp.cache(false);
  return sharp;
});
