// opentype.js, required at its first use (the first face parsed, font.ts), not imported with the
// renderer: a bridge that draws nothing (a bus poller, a --no-web bridge with no deck plugged in) never
// loads it, and one that draws loads it with its first picture or warm-up, after its ready line.
// Required, not imported: Node scans a CommonJS file imported from an ES module for its export names,
// and opentype.js is one 530 kB file: imported 180-250 ms of CPU, required 25-35 ms (docs/performance.md,
// "CommonJS packages required"). The Stream Deck plugin's bundle takes it in whole instead
// (scripts/build-plugin.mjs: the plugin folder has no node_modules).
import { createRequire } from 'node:module';
import type * as OpenType from 'opentype.js';
import { loadedOnce } from '../api/loaded-once.js';

/** opentype.js, loaded on the first call. */
export const opentypeLibrary = loadedOnce(() => (createRequire(import.meta.url)('opentype.js') as typeof OpenType).default);
