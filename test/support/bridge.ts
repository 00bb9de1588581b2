// A whole bridge for tests: the simulator on loopback (real HTTP), the real engine and renderer, and an
// in-memory surface bound to a profile written in the test.
//
// Time is virtual: the engine (polls, frames, holds, macros) and the simulator share one clock
// that only the test moves. Moving it runs the timers due, one moment after another, and waits for the
// real I/O they start (requests, drawings) before going on, so a test reads like a timeline and never
// sleeps: a recorder that answers at once, polled exactly when the test says.
import { firstValueFrom, filter, timeout } from 'rxjs';
import { RecorderClient } from '../../src/api/client.js';
import { Bridge, type BridgeOptions } from '../../src/engine/bridge.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import type { ControlDefinition } from '../../src/engine/surface.js';
import { parseProfile } from '../../src/profiles/load.js';
import { pictureRenderer, type KeyRenderer, type KeyRendererOptions } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { keyGrid } from '../../src/engine/surface.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { lastSeq, startFixture, writesSince, type SimulatorFixture } from './simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo, settle, untilWithIo } from './virtual-time.js';
import { WAIT_MS } from './until.js';
import { realClock } from '../../src/api/clock.js';
import { realTime } from '../../src/engine/engine-time.js';

export interface BridgeFixture extends SimulatorFixture {
  bridge: Bridge;
  surface: MemorySurface;
  renderer: ReturnType<typeof pictureRenderer>;
  logs: Array<{ level: 'info' | 'warn' | 'error'; message: string }>;
  commands: CommandRecord[];
  /** Moves virtual time on (in steps of `stepMs`, 10 by default) until the check holds, at most `ms` of it. */
  until: (check: () => boolean, what: string, ms?: number, stepMs?: number) => Promise<void>;
  /** Moves virtual time on by `ms`, running what falls due and waiting for the I/O it starts. */
  advance: (ms: number) => Promise<void>;
  /** Waits for the requests and drawings under way to finish, without moving time. */
  settle: () => Promise<void>;
  /** The engine's clock. */
  now: () => number;
  /** The engine's time itself, to see what it has scheduled. */
  time: VirtualTime;
  /** The bridge's requests under way, and the most under way at once per operation. */
  requests: RequestCounter;
  /**
   * Resolves with the next command record for a control, within `ms` of real time (WAIT_MS by default: the
   * command is a real request, and the first of a process on a loaded machine took over 3 s).
   */
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
  /** The slow group's interval (resources, schedule, …); 500 ms by default. */
  slowMs?: number;
  /** When disks' time left turns amber and red (the bridge's defaults otherwise). */
  diskTime?: BridgeOptions['diskTime'];
  simulator?: Partial<SimulatorOptions>;
  /** The token the bridge sends (default: the simulator's own). */
  token?: string;
  /** More recorders after the simulator (named main, the default), each at its own URL. */
  moreRecorders?: ReadonlyArray<{ name: string; url: string; token: string }>;
  /** The virtual time to run on, when another simulator (a more recorder's) runs on it too. */
  time?: VirtualTime;
  /**
   * What the renderer draws: 'images' (the default) the real key images, as a deck shows them; 'pictures'
   * each picture as its own JSON in place of pixels, for a test that reads the engine's pictures and never
   * an image (rasterising keys nobody looks at, glyph atlases first, was a sixth of such a file's CPU).
   * LEDs and the pages a reason needs are the real renderer's either way, so the pictures are the same.
   */
  draws?: 'images' | 'pictures';
}

export function parseTestProfile(text: string, file = 'test-profile.yaml') {
  const result = parseProfile(text, file);
  if (!result.ok) throw new Error(`test profile is invalid: ${JSON.stringify(result.problems)}`);
  return result.loaded;
}

export async function startBridgeFixture(options: BridgeFixtureOptions): Promise<BridgeFixture> {
  const time = options.time ?? new VirtualTime();
  const fixture = await startFixture({ clock: time, grid: 16, ...options.simulator });
  const logs: BridgeFixture['logs'] = [];
  const log: Logger = {
    info: (message) => logs.push({ level: 'info', message }),
    warn: (message) => logs.push({ level: 'warn', message }),
    error: (message) => logs.push({ level: 'error', message }),
  };
  const made: { renderer?: ReturnType<typeof pictureRenderer> } = {};
  const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: options.token ?? fixture.sim.token });
  // Requests under way, so that moving virtual time waits for their answers.
  const requests = new RequestCounter(client, time);
  const more = (options.moreRecorders ?? []).map(({ name, url, token }) => {
    const other = new RecorderClient({ clock: realClock, url, token });
    return { name, client: other, requests: new RequestCounter(other, time) };
  });
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
  const bridge = new Bridge({ recorders: [{ name: 'main', client }, ...more], renderer: (thumbnails) => (made.renderer = rendererFor(options.draws ?? 'images', thumbnails)), decodeThumbnail: decode, log, pollMs: options.pollMs ?? 100, slowMs: options.slowMs ?? 500, ...(options.diskTime ? { diskTime: options.diskTime } : {}), meterMs: 100, thumbnailMs: 500, time });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ time: realTime, id: 'memory:test', model: 'test-15', controls: options.controls ?? keyGrid(3, 5, 96) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(options.profile)]);
  bridge.addSurface(surface);
  const running = bridge;
  const madeRenderer = made.renderer;
  if (!madeRenderer) throw new Error('the bridge did not make its renderer');

  const quiet = () => requests.quiet() && more.every((m) => m.requests.quiet()) && decoding === 0 && bridge.surfaceSessions().every((session) => session.idle);
  const settleBridge: BridgeFixture['settle'] = () => settle(quiet, 'the bridge', time);
  const advance: BridgeFixture['advance'] = async (ms) => {
    await advanceWithIo(time, ms, quiet);
  };
  const until: BridgeFixture['until'] = (check, what, ms, stepMs) => untilWithIo(time, quiet, check, what, ms, stepMs);
  const nextCommand: BridgeFixture['nextCommand'] = (control, ms = WAIT_MS) =>
    firstValueFrom(running.commands$.pipe(filter((r) => r.control === control), timeout(ms)));
  let stopped = false;
  const stopBridge = async () => {
    if (stopped) return;
    stopped = true;
    await running.stop();
    await client.close();
    for (const other of more) await other.client.close();
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
    time,
    nextCommand,
    mark: () => lastSeq(fixture.sim),
    writesSince: (mark) => writesSince(fixture.sim, mark),
    stopBridge,
    close: async () => {
      await stopBridge();
      await fixture.close();
    },
  };
}

/** The real renderer; drawing each picture as its JSON (see BridgeFixtureOptions.draws) where no test reads an image. */
function rendererFor(draws: 'images' | 'pictures', thumbnails: KeyRendererOptions['thumbnails']): KeyRenderer {
  const renderer = pictureRenderer({ thumbnails });
  if (draws === 'pictures') renderer.render = (picture, size) => Promise.resolve({ ...size, data: Buffer.from(JSON.stringify(picture)) });
  return renderer;
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
