// The e2e project's globalSetup: one Debian chromium for the whole run, which every browser test file
// connects to (test/support/chromium.ts) and opens its own contexts in. Starting a browser costs about
// a second of both cores' time; a file once cost that per size it tested. The browser runs under the
// vitest process over a pipe: it is closed at teardown, on SIGINT/SIGTERM/SIGHUP by playwright's
// handlers, and it exits by itself when that process dies any other way (its pipe closes). A test file
// that crashes takes its contexts with it: the server closes what a lost connection opened.
import type { TestProject } from 'vitest/node';
import { launchChromiumServer } from './chromium.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await launchChromiumServer();
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
