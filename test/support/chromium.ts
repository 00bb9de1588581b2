// Debian's chromium for the browser tests, started the one way the project allows: the system binary
// (never a downloaded browser), headless, with nothing reaching out to the network.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { RemoteFixture } from './remote.js';
import { until } from './until.js';

const CHROMIUM = process.env.RECDECK_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
}

/** Opens the web deck in the page and waits until it is linked to the bridge and its first deck shows. */
export async function openDeckPage(page: Page, f: RemoteFixture): Promise<void> {
  await page.goto(f.base);
  await until(() => f.running.remote?.webClients() === 1, 'the page to connect', 8000);
  await until(() => page.locator('canvas[data-surface="web:web-15"][data-control="key0"]').isVisible(), 'the decks', 8000);
}
