// The e2e project's globalSetup: one Debian chromium for the whole run, which every browser test file
// connects to (test/support/chromium.ts) and opens its own contexts in. Starting a browser costs about
// a second of both cores' time; a file once cost that per size it tested. It is started the one way the
// project allows: the system binary (never a downloaded browser), headless, with nothing reaching out to
// the network.
//
// It is started in a process of its own (chromium-launch.mjs) and NOT waited for here: vitest starts no
// test worker before its globalSetup returns, and loading playwright-core (a large CommonJS bundle) and
// launching chromium held every worker back by 1.5-4 s at the start of each run. Meanwhile the workers
// load their modules; a browser test file waits for the browser only when it connects. The playwright
// server (what every page's traffic goes through) also no longer runs in vitest's own process, which
// answers every worker's calls. That process writes what became of the launch to a state file (the
// endpoint, or the error), which the test files read; it is closed at teardown, exits when vitest's
// process dies any other way (its IPC channel closes), and chromium exits with it (its pipe closes).
//
// Plain JavaScript: it runs in vitest's own process, which loads no TypeScript (vitest.config.ts: the
// test files' TypeScript is compiled in the workers).
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM = process.env.RECDECK_CHROMIUM ?? '/usr/bin/chromium';
/** How long teardown waits for the launcher to close chromium before it is killed. */
const CLOSE_MS = 10_000;

/** @param {import('vitest/node').TestProject} project */
export default function setup(project) {
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)`);
  const folder = mkdtempSync(join(tmpdir(), 'recdeck-chromium-'));
  const stateFile = join(folder, 'state.json');
  const launcher = fork(new URL('./chromium-launch.mjs', import.meta.url), [CHROMIUM, stateFile], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const exited = new Promise((resolve) => launcher.once('exit', resolve));
  project.provide('chromiumState', stateFile);
  return async () => {
    if (launcher.exitCode === null && launcher.signalCode === null) {
      launcher.disconnect();
      const killer = setTimeout(() => launcher.kill('SIGKILL'), CLOSE_MS);
      await exited;
      clearTimeout(killer);
    }
    rmSync(folder, { recursive: true, force: true });
  };
}
