// Debian's chromium for the browser tests, started the one way the project allows: the system binary
// (never a downloaded browser), headless, with nothing reaching out to the network.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env.RECDECK_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
}
