// The yaml package, required at its first use: a bridge that reads only the shipped profiles and MIDI
// maps takes them from the build's parses (shipped-parses.ts) and never parses YAML, so it never loads
// yaml's 72 files (docs/performance.md, "A smaller live heap"). Required, not imported, because the
// callers are synchronous; Node resolves `import 'yaml'` to the same CommonJS build (its "node" export),
// so a Document made by either is the one class. The Stream Deck plugin's bundle takes yaml in whole
// instead (scripts/build-plugin.mjs swaps the require below: the plugin folder has no node_modules).
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { loadedOnce } from '../api/loaded-once.js';

/** The yaml package, loaded on the first call. */
export const yamlLibrary = loadedOnce(() => createRequire(import.meta.url)('yaml') as typeof Yaml);
