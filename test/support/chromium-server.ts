// The e2e project's globalSetup: one Debian chromium for the whole run, which every browser test file
// connects to (test/support/chromium.ts) and opens its own contexts in. Starting a browser costs about
// a second of both cores' time; a file once cost that per size it tested. It is started the one way the
// project allows: the system binary (never a downloaded browser), headless, with nothing reaching out to
// the network. It runs under the vitest process over a pipe: it is closed at teardown, on
// SIGINT/SIGTERM/SIGHUP by playwright's handlers, and it exits by itself when that process dies any other
// way (its pipe closes). A test file that crashes takes its contexts with it: the server closes what a
// lost connection opened. This module imports playwright alone: it runs in the vitest process.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

const CHROMIUM = process.env.RECDECK_CHROMIUM ?? '/usr/bin/chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's chromium listens. */
    chromiumEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
