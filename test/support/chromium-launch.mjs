// The run's chromium, in a process of its own (chromium-server.mjs, the e2e project's globalSetup,
// forks it): launches Debian's chromium under playwright's browser server and writes to the state file
// what became of it, { endpoint } or { error }, whole (written beside it and renamed, so a reader never
// sees half of it). It closes the browser and exits when its IPC channel closes: at the run's teardown,
// or when vitest's process dies any other way. Plain JavaScript: it is run by node itself.
import { renameSync, writeFileSync } from 'node:fs';

const [executablePath, stateFile] = process.argv.slice(2);

function write(state) {
  writeFileSync(`${stateFile}.part`, JSON.stringify(state));
  renameSync(`${stateFile}.part`, stateFile);
}

try {
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('disconnect', stop);
  if (!process.connected) stop();
  write({ endpoint: server.wsEndpoint() });
} catch (error) {
  write({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}
