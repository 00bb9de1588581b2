// The run's chromium, in a process of its own (chromium-server.mjs, the e2e project's globalSetup,
// forks it): launches Debian's chromium under playwright's browser server and writes to the state file
// what became of it, { endpoint } or { error }, whole (written beside it and renamed, so a reader never
// sees half of it). It closes the browser and exits when its IPC channel closes: at the run's teardown,
// or when vitest's process dies any other way. Plain JavaScript: it is run by node itself.
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const [executablePath, stateFile] = process.argv.slice(2);

// playwright-core is loaded with require(), not import(): a CommonJS module that an ES module imports is
// first scanned for its export names (node's cjs-module-lexer), 3.6 MB of bundle here, ~0.35 s of CPU
// of the ~1 s its loading costs (measured: import() 0.82-1.10 s, require() 0.63-0.67 s, three each).

/**
 * The browser window's own interface that a headless browser builds all the same, for no one to see:
 * Chromium 156 loads the omnibox's popup as two web pages (chrome://omnibox-popup.top-chrome, its AI
 * mode one too), each in a renderer of its own, for every window, and every browser context the tests
 * open is a window. Measured 2026-11-29 (raw CDP, a context with a one-line page, load 14): the
 * renderers' CPU 1.2-1.5 s -> 0.10 s a context and the browser process's 0.45-0.55 -> 0.25 s (either
 * feature disabled alone left 0.7-0.8 s). The pages the tests open are untouched by it.
 */
const UNSEEN_UI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

function write(state) {
  writeFileSync(`${stateFile}.part`, JSON.stringify(state));
  renameSync(`${stateFile}.part`, stateFile);
}

try {
  const { chromium } = createRequire(import.meta.url)('playwright-core');
  const server = await chromium.launchServer({
    // Through chromium-features.sh, which joins this file's --disable-features with playwright's own, and
    // chromium-pipe.mjs, which keeps the pages' binary WebSocket payloads off playwright's connections.
    executablePath: fileURLToPath(new URL('./chromium-features.sh', import.meta.url)),
    env: { ...process.env, RECDECK_CHROMIUM_BINARY: executablePath, RECDECK_NODE: process.execPath },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', `--disable-features=${UNSEEN_UI.join(',')}`],
  });
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('disconnect', stop);
  if (!process.connected) stop();
  write({ endpoint: server.wsEndpoint() });
} catch (error) {
  write({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}
