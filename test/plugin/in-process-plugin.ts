// The plugin's own wiring (src/plugin/start-plugin.ts: Elgato's SDK, the deck, the engine) started in the
// test's process on virtual time, registered with a fake app over a real WebSocket as a launched plugin
// would be: the same code as the packed plugin's bundle, without a build, a pack or a process, and with
// polls, holds and ages that run when the test moves the clock instead of in real time.
//
// Elgato's SDK is one connection per process: it reads the app's arguments from process.argv when it
// connects, and places its log file (logs/<UUID>.0.log) under the working directory when it is first
// imported. So the start sets both for that moment (a plugin folder of its own, with the manifest the
// build writes) and puts them back; a second start in the same process is refused.
import diagnostics from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pluginFolderFiles } from '../../src/plugin/manifest.js';
import { advanceWithIo, settle, type VirtualTime } from '../support/virtual-time.js';
import type { FakeDevice, FakeStreamDeckApp } from './fake-streamdeck-app.js';
import { PLUGIN_UUID } from './packed-plugin.js';

let startedOnce = false;

/**
 * The HTTP requests under way in this process (every undici client publishes its requests on these
 * channels: the plugin's recorder clients are its own), so that virtual time moves only once the real
 * I/O it started is over. A recorder told to answer late on virtual time (a latency fault) is left out:
 * its answer waits for the clock, not for I/O.
 */
class RequestsUnderWay {
  private readonly open = new Map<object, string>();
  /** Origins whose answers wait for virtual time. */
  readonly late = new Set<string>();
  private readonly created = (message: unknown) => {
    const request = (message as { request: { origin: string } }).request;
    this.open.set(request, String(request.origin));
  };
  private readonly ended = (message: unknown) => {
    this.open.delete((message as { request: object }).request);
  };

  constructor() {
    diagnostics.subscribe('undici:request:create', this.created);
    diagnostics.subscribe('undici:request:trailers', this.ended);
    diagnostics.subscribe('undici:request:error', this.ended);
  }

  readonly quiet = (): boolean => [...this.open.values()].every((origin) => this.late.has(origin));

  close(): void {
    diagnostics.unsubscribe('undici:request:create', this.created);
    diagnostics.unsubscribe('undici:request:trailers', this.ended);
    diagnostics.unsubscribe('undici:request:error', this.ended);
  }
}

export interface InProcessPlugin {
  time: VirtualTime;
  /** The plugin's folder (its manifest, and the SDK's log file under logs/). */
  folder: string;
  /** The SDK's log file as written so far. */
  log(): string;
  /** Moves virtual time on by `ms`, running what falls due and waiting for the requests it starts. */
  advance(ms: number): Promise<void>;
  /** Moves virtual time on in small steps until `check` holds (at most `ms` of it). */
  until(check: () => boolean, what: string, ms?: number): Promise<void>;
  /** Answers from this origin wait for virtual time (a latency fault), or no longer do. */
  answersLate(origin: string, late: boolean): void;
  close(): void;
}

/**
 * Moves virtual time from one due timer to the next until `check` holds (at most `ms` of it, and 10 s of
 * wall time), letting the I/O each starts finish: nothing happens between two due moments but I/O, so
 * this sees every state the plugin passes through, in as few steps as it has timers.
 */
async function untilDue(time: VirtualTime, quiet: () => boolean, check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = time.now() + ms;
  const wallDeadline = Date.now() + Math.max(ms, 10_000);
  for (;;) {
    await settle(quiet);
    if (check()) return;
    const due = time.nextDue();
    if (due === null || due > deadline || Date.now() > wallDeadline) throw new Error(`timed out after ${ms} virtual ms waiting for ${what}`);
    time.advanceTo(due);
  }
}

/** Starts the plugin's wiring in this process on `time`, registered with `app` as the app would launch it. */
export async function startInProcessPlugin(app: FakeStreamDeckApp, devices: FakeDevice[], time: VirtualTime): Promise<InProcessPlugin> {
  if (startedOnce) throw new Error("the plugin's wiring was already started in this process: Elgato's SDK connects once per process");
  startedOnce = true;
  const work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-in-process-'));
  const folder = join(work, `${PLUGIN_UUID}.sdPlugin`);
  for (const file of pluginFolderFiles('0.1.0.0')) {
    mkdirSync(dirname(join(folder, file.path)), { recursive: true });
    writeFileSync(join(folder, file.path), file.content);
  }
  const requests = new RequestsUnderWay();
  const argv = process.argv;
  const cwd = process.cwd();
  try {
    process.chdir(folder);
    process.argv = [...argv, ...app.registrationArguments(devices)];
    // Imported here, not at the top of a test file: the SDK places its log file when it is first loaded.
    const { startPlugin } = await import('../../src/plugin/start-plugin.js');
    await startPlugin({ time });
  } finally {
    process.argv = argv;
    process.chdir(cwd);
  }
  await app.registered();
  const logFile = join(folder, 'logs', `${PLUGIN_UUID}.0.log`);
  return {
    time,
    folder,
    log: () => readFileSync(logFile, 'utf8'),
    advance: (ms) => advanceWithIo(time, ms, requests.quiet),
    until: (check, what, ms = 3000) => untilDue(time, requests.quiet, check, what, ms),
    answersLate: (origin, late) => {
      if (late) requests.late.add(origin);
      else requests.late.delete(origin);
    },
    close: () => {
      requests.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
