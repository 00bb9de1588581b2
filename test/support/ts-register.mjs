// A setup file of every vitest project (vitest.config.ts): registers ts-hooks.mjs in the worker before
// its first test file is imported, once per worker (with `isolate: false` a worker runs many files).
// Registered here rather than with `--import` in the workers' execArgv, which the worker threads and
// processes a test starts (the render thread, a forked helper) would inherit.
import { register } from 'node:module';

const REGISTERED = Symbol.for('recdeck.ts-hooks');
const marks = /** @type {Record<symbol, boolean>} */ (globalThis);
if (!marks[REGISTERED]) {
  marks[REGISTERED] = true;
  register(new URL('./ts-hooks.mjs', import.meta.url));
}
