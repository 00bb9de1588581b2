// The browser tests' side of Debian's chromium: one browser serves the whole run (chromium-server.mjs, the
// e2e project's globalSetup, starts it without waiting for it); each test file connects to it and works in
// contexts of its own, which are closed with its connection.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { inject } from 'vitest';
import { WAIT_MS, type RemoteFixture } from './remote.js';
import { until } from './until.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the run's chromium launcher writes, whole, what became of the launch to (chromium-launch.mjs). */
    chromiumState: string;
  }
}

/**
 * How often a wait on the page asks it again (until() asks every 20 ms). Each ask is a round trip from the
 * worker through the run's playwright server (a node process of its own) and chromium's browser process
 * to the renderer and back, and a canvas snapshot adds a PNG encode in the renderer: a few ms of CPU in
 * four processes per ask (measured 2026-11-28: ~110 toDataURL asks in 10 s cost the launcher 0.3 s,
 * chromium's browser process 0.15 s and its renderer 0.3 s, beside the worker's own), so a wait that
 * asked every 20 ms kept a core about a third busy for as long as it waited. What a page shows is waited
 * for, never timed, so an answer seen up to 100 ms later changes nothing a test shows. Waits on what
 * this process holds (the bridge's pictures, the simulator's log) stay at until()'s pace: they cost no
 * round trip, and some watch for a moment (a hold ring within a second's hold).
 */
export const PAGE_POLL_MS = 100;

/** until() for a check that asks the page: at PAGE_POLL_MS, not every 20 ms. */
export function untilPage(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS): Promise<void> {
  return until(check, what, ms, PAGE_POLL_MS);
}

/** expect.poll's options for a check that asks the page: the bound of until()'s long waits, at PAGE_POLL_MS (its own default is 50 ms). */
export const PAGE_POLL = { timeout: WAIT_MS, interval: PAGE_POLL_MS } as const;

/**
 * playwright-core by require(), not import: an ES module's import of a CommonJS module first scans it for
 * its export names (node's cjs-module-lexer over the 3.6 MB bundle), ~0.35 s of CPU in each worker that
 * loads it (see chromium-launch.mjs). The types are the module's own.
 */
const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');

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
  await untilPage(() => page.locator('canvas[data-surface="web:web-15"][data-control="key0"]').isVisible(), 'the decks');
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
