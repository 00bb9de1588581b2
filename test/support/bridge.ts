// A whole bridge for tests: the simulator on loopback (real HTTP), the real engine and renderer, and an
// in-memory surface bound to a profile written in the test.
//
// Time is virtual by default: the engine (polls, frames, holds, macros) and the simulator share one clock
// that only the test moves. Moving it runs the timers due, one moment after another, and waits for the
// real I/O they start (requests, drawings) before going on, so a test reads like a timeline and never
// sleeps: a recorder that answers at once, polled exactly when the test says.
import { firstValueFrom, filter, timeout } from 'rxjs';
import { RecorderClient } from '../../src/api/client.js';
import { Bridge } from '../../src/engine/bridge.js';
import { realTime } from '../../src/engine/engine-time.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import type { ControlDefinition } from '../../src/engine/surface.js';
import { parseProfile } from '../../src/profiles/load.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { startFixture, type SimulatorFixture } from './simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo, settle } from './virtual-time.js';

export interface BridgeFixture extends SimulatorFixture {
  bridge: Bridge;
  surface: MemorySurface;
  renderer: ReturnType<typeof pictureRenderer>;
  logs: Array<{ level: 'info' | 'warn' | 'error'; message: string }>;
  commands: CommandRecord[];
  /** Moves time on (virtual time) until the check holds, at most `ms` of it; with real time, waits for it. */
  until: (check: () => boolean, what: string, ms?: number) => Promise<void>;
  /** Moves virtual time on by `ms`, running what falls due and waiting for the I/O it starts. */
  advance: (ms: number) => Promise<void>;
  /** Waits for the requests and drawings under way to finish, without moving time. */
  settle: () => Promise<void>;
  /** The engine's clock. */
  now: () => number;
  /** The bridge's requests under way, and the most under way at once per operation. */
  requests: RequestCounter;
  /** Resolves with the next command record for a control. */
  nextCommand: (control: string, ms?: number) => Promise<CommandRecord>;
  /** The requests the simulator received on /api after a mark, without the polls (GETs). */
  writesSince: (mark: number) => string[];
  mark: () => number;
  stopBridge: () => Promise<void>;
}

export interface BridgeFixtureOptions {
  profile: string;
  controls?: readonly ControlDefinition[];
  pollMs?: number;
  simulator?: SimulatorOptions;
  /** Virtual (default) or real time: real only for races that need real concurrency. */
  time?: 'virtual' | 'real';
}

export function parseTestProfile(text: string, file = 'test-profile.yaml') {
  const result = parseProfile(text, file);
  if (!result.ok) throw new Error(`test profile is invalid: ${JSON.stringify(result.problems)}`);
  return result.loaded;
}

export async function startBridgeFixture(options: BridgeFixtureOptions): Promise<BridgeFixture> {
  const virtual = options.time === 'real' ? null : new VirtualTime();
  const time = virtual ?? realTime;
  const fixture = await startFixture({ now: time.now, grid: 16, ...options.simulator });
  const logs: BridgeFixture['logs'] = [];
  const log: Logger = {
    info: (message) => logs.push({ level: 'info', message }),
    warn: (message) => logs.push({ level: 'warn', message }),
    error: (message) => logs.push({ level: 'error', message }),
  };
  const made: { renderer?: ReturnType<typeof pictureRenderer> } = {};
  const client = new RecorderClient({ url: fixture.sim.url, token: fixture.sim.token });
  // Requests under way, so that moving virtual time waits for their answers.
  const requests = new RequestCounter(client, virtual ?? undefined);
  // Previews decoded (by sharp, on real time) are waited for too.
  let decoding = 0;
  const decode = async (png: Uint8Array) => {
    decoding++;
    try {
      return await decodeThumbnail(png);
    } finally {
      decoding--;
    }
  };
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => (made.renderer = pictureRenderer({ thumbnails })), decodeThumbnail: decode, log, pollMs: options.pollMs ?? 100, slowMs: 500, meterMs: 100, thumbnailMs: 500, time });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ id: 'memory:test', model: 'test-15', controls: options.controls ?? keyGrid(3, 5, 96) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(options.profile)]);
  bridge.addSurface(surface);
  const running = bridge;
  const madeRenderer = made.renderer;
  if (!madeRenderer) throw new Error('the bridge did not make its renderer');

  const quiet = () => requests.quiet() && decoding === 0 && bridge.surfaceSessions().every((session) => session.idle);
  const settleBridge: BridgeFixture['settle'] = () => settle(quiet, 'the bridge');
  const advance: BridgeFixture['advance'] = async (ms) => {
    if (!virtual) throw new Error('advance needs virtual time');
    await advanceWithIo(virtual, ms, quiet);
  };
  const STEP_MS = 10;
  const until: BridgeFixture['until'] = async (check, what, ms = 3000) => {
    const deadline = time.now() + ms;
    const wallDeadline = Date.now() + Math.max(ms, 10_000);
    if (virtual) await settleBridge();
    while (!check()) {
      if (time.now() >= deadline || Date.now() > wallDeadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      if (virtual) await advance(STEP_MS);
      else await new Promise((resolve) => setTimeout(resolve, STEP_MS));
    }
  };
  const nextCommand: BridgeFixture['nextCommand'] = (control, ms = 3000) =>
    firstValueFrom(running.commands$.pipe(filter((r) => r.control === control), timeout(ms)));
  let stopped = false;
  const stopBridge = async () => {
    if (stopped) return;
    stopped = true;
    await running.stop();
    await client.close();
  };
  return {
    ...fixture,
    bridge: running,
    surface,
    renderer: madeRenderer,
    logs,
    commands,
    until,
    advance,
    settle: settleBridge,
    requests,
    now: time.now,
    nextCommand,
    mark: () => fixture.sim.log.list().at(-1)?.seq ?? 0,
    writesSince: (mark) => fixture.sim.log.list().filter((r) => r.seq > mark && r.method !== 'GET').map((r) => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ''}`),
    stopBridge,
    close: async () => {
      await stopBridge();
      await fixture.close();
    },
  };
}

/** The share of a control's pixels within `tolerance` of a colour (0..1). */
export function colourShare(surface: MemorySurface, control: string, hex: string, tolerance = 24): number {
  const image = surface.images.get(control);
  if (!image) return 0;
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  let near = 0;
  const pixels = image.width * image.height;
  for (let p = 0; p < pixels; p++) {
    const at = p * 3;
    if (Math.abs((image.data[at] as number) - r) <= tolerance && Math.abs((image.data[at + 1] as number) - g) <= tolerance && Math.abs((image.data[at + 2] as number) - b) <= tolerance) near++;
  }
  return near / pixels;
}
