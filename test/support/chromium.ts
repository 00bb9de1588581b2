// The browser tests' side of Debian's chromium: one browser serves the whole run (chromium-server.mjs, the
// e2e project's globalSetup, starts it without waiting for it); each test file connects to it and works in
// contexts of its own, which are closed with its connection.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { WAIT_MS, type RemoteFixture } from './remote.js';
import { until } from './until.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the run's chromium launcher writes, whole, what became of the launch to (chromium-launch.mjs). */
    chromiumState: string;
  }
}

/** What the launcher wrote: where the browser listens, or why there is none. */
type LaunchState = { endpoint: string } | { error: string };

/** The run's browser, for one test file; closing it closes the file's contexts, not the browser. */
export async function connectChromium(): Promise<Browser> {
  const stateFile = inject('chromiumState');
  if (!stateFile) throw new Error('no chromium to connect to: browser tests run in the e2e project, whose globalSetup (test/support/chromium-server.mjs) starts it');
  // The launch began as the run did, beside the workers' loading: usually done before a file gets here.
  await until(() => existsSync(stateFile), "the run's chromium to start (test/support/chromium-launch.mjs)", WAIT_MS);
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as LaunchState;
  if ('error' in state) throw new Error(`the run's chromium did not start: ${state.error}`);
  return chromium.connect(state.endpoint);
}

/**
 * Opens the web deck in the page (at the bridge's address, or another way to it such as a cuttable link)
 * and waits until it is linked to the bridge and its first deck shows.
 */
export async function openDeckPage(page: Page, f: RemoteFixture, url = f.base): Promise<void> {
  const clients = f.running.remote?.webClients() ?? 0;
  await page.goto(url);
  await until(() => f.running.remote?.webClients() === clients + 1, 'the page to connect', WAIT_MS);
  await until(() => page.locator('canvas[data-surface="web:web-15"][data-control="key0"]').isVisible(), 'the decks', WAIT_MS);
}

/**
 * Takes a screenshot into the folder an environment variable names (RECDECK_SCREENSHOTS for the README's
 * pictures), and none while it is unset: pictures are for a person to look at, and each costs the
 * browser an encode and a copy.
 */
export async function screenshot(variable: string, file: string, take: (path: string) => Promise<unknown>): Promise<void> {
  const folder = process.env[variable];
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await take(join(folder, file));
}
