// (d) The bridge's own cost at steady state: 16 channels recording, a 32-key surface, thumbnails off or
// on; and, for reference, the same bridge polling with no surface at all (what the surface's cost sits
// on). Beside each, the floor: the leanest poller making the same reads (bare-poller.ts --lean). The
// simulators run in a child process so that their work is not counted as the bridge's.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { once } from 'node:events';
import { startBare, startSimulators } from './floor-poller.js';
import { benchParts, startBenchBridge } from './harness.js';
import { measureWhile, type ProcessCost } from './proc.js';
import { sleep } from './stats.js';

/** What the steady-load bridge draws: nothing (no surface), or its 32 keys with thumbnails off or on. */
export const LOAD_KINDS = ['no surface', 'thumbnails off', 'thumbnails on'] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

export interface SteadyLoad {
  kind: LoadKind;
  /** How long the bridge ran before the measured window: V8 is still compiling the bridge's code until then. */
  warmUpSeconds: number;
  cpuPercent: number;
  eventLoopP99Ms: number;
  rssMb: number;
  /** Work that the machine's noise does not change: the session's refreshes and pictures derived, a second. */
  refreshesPerSecond: number;
  picturesPerSecond: number;
  seconds: number;
  /**
   * The floor beside it, in the same window: the leanest poller there is (bare-poller.ts --lean: node:http
   * and JSON.parse) making the reads this bridge makes, in a process of its own with the bridge's Node
   * flags, measured from /proc; and the reads a second each made, counted by their simulators.
   */
  floor: { cpuPercent: number; rssMb: number; readsPerSecond: Record<string, number>; bridgeReadsPerSecond: Record<string, number> };
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const TOKEN = 'perm:00000000-0000-4000-8000-00000000bench';

/** The simulator in a child process (its work is not counted as the bridge's). */
export async function startChildSimulator(token = TOKEN): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'simulate', '--port', '0', '--grid', '16', '--token', token], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before listening`)));
  });
  return { url, child };
}

/**
 * The bridge runs for months, so its steady state is measured, not its first minute: V8 compiles the
 * functions of the poll, the refreshes and the drawing one by one as each gets hot enough, on threads
 * of the same process, and at this load (a dozen answers and 32 key images a second) the last of them
 * get there only after a minute or two. Thumbnails off, CPU % of a core in successive 30 s windows from
 * the start (`node dist/bench/main.js --only load-off --curve 16`, alone on this machine, 2026-11-27):
 * 3.08 2.05 2.13 1.59 1.76 1.57 1.54 1.46 1.66 1.59 1.44 1.55 1.45 1.58 1.31 1.68. The measured window
 * begins after two minutes, where that curve has flattened.
 */
export const STEADY_WARM_UP_MS = 120_000;

/** What a rig runs: the bridge's work counters, the floor's process, the reads each simulator answered since the last ask. */
interface LoadRig {
  work: () => { refreshes: number; pictures: number };
  floorPid: number;
  /** Reads a second by operation since the last ask: the bridge's and the floor's. */
  readsSince: () => Promise<[Record<string, number>, Record<string, number>]>;
  stop: () => Promise<void>;
}

/**
 * A bench bridge drawing (or not) its 32 keys, 16 channels recording, and beside it the floor making the
 * same reads (benchParts: what the keys need, read on demand; with thumbnails, their 16 previews too),
 * each against a simulator of its own in one child process that counts what each answered.
 */
async function startLoadRig(kind: LoadKind): Promise<LoadRig> {
  const sims = await startSimulators(2, TOKEN);
  const [bridgeUrl, floorUrl] = sims.urls as [string, string];
  const thumbnails = kind === 'thumbnails on';
  const deck = startBenchBridge(bridgeUrl, TOKEN, { thumbnails, surface: kind !== 'no surface' });
  const floor = startBare(floorUrl, TOKEN, { lean: true, parts: benchParts(thumbnails), ...(thumbnails ? { previews: Array.from({ length: 16 }, (_, i) => i) } : {}) });
  const stop = async () => {
    await deck.stop();
    for (const child of [floor, sims.child]) {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  };
  try {
    const session = deck.bridge.session(deck.surface.id);
    if (!session && kind !== 'no surface') throw new Error('the bench surface has no session');
    let since = performance.now();
    const readsSince = async (): Promise<[Record<string, number>, Record<string, number>]> => {
      const [bridgeReads, floorReads] = await sims.readsSince();
      const seconds = (performance.now() - since) / 1000;
      since = performance.now();
      const perSecond = (counts: Record<string, number> | undefined) => Object.fromEntries(Object.entries(counts ?? {}).map(([operation, n]) => [operation, n / seconds]));
      return [perSecond(bridgeReads), perSecond(floorReads)];
    };
    return { work: () => ({ ...(session?.stats ?? { refreshes: 0, pictures: 0 }) }), floorPid: floor.pid as number, readsSince, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** CPU % of a core this process used while `wait` ran. */
async function cpuPercentOver(wait: () => Promise<void>): Promise<{ cpuPercent: number; wallMs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await wait();
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  return { cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100, wallMs };
}

export async function measureSteadyLoad(kind: LoadKind, seconds: number, warmUpMs: number): Promise<SteadyLoad> {
  const rig = await startLoadRig(kind);
  try {
    await sleep(warmUpMs);
    // CPU is measured with nothing of the bench's own running: the event-loop monitor wakes the process
    // every 10 ms, which costs 0.4 to 0.7 % of a core on this machine (a process doing nothing else,
    // node -e with monitorEventLoopDelay alone), a third of the 2 % the bridge is held to. Its p99 is
    // taken in a window of its own, after.
    // The floor's CPU is read from /proc at the window's two ends, and the simulators asked for their
    // counts just outside it: a few reads of files and pipes, next to nothing in a minute.
    await rig.readsSince();
    const work0 = rig.work();
    let bridge = { cpuPercent: 0, wallMs: 0 };
    const [floorCost] = (await measureWhile([rig.floorPid], async () => (bridge = await cpuPercentOver(() => sleep(seconds * 1000))))) as [ProcessCost];
    const { cpuPercent, wallMs } = bridge;
    const work1 = rig.work();
    const [bridgeReadsPerSecond, floorReadsPerSecond] = await rig.readsSince();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await sleep(Math.max(3, seconds / 2) * 1000);
    delay.disable();
    return {
      kind,
      warmUpSeconds: warmUpMs / 1000,
      cpuPercent,
      eventLoopP99Ms: delay.percentile(99) / 1e6,
      rssMb: process.memoryUsage().rss / 2 ** 20,
      refreshesPerSecond: ((work1.refreshes - work0.refreshes) * 1000) / wallMs,
      picturesPerSecond: ((work1.pictures - work0.pictures) * 1000) / wallMs,
      seconds,
      floor: { ...floorCost, readsPerSecond: floorReadsPerSecond, bridgeReadsPerSecond },
    };
  } finally {
    await rig.stop();
  }
}

/** CPU % of a core in each of `windows` successive windows of `windowSeconds` from the start: how long the warm-up lasts. */
export async function measureWarmUpCurve(kind: LoadKind, windows: number, windowSeconds: number): Promise<number[]> {
  const rig = await startLoadRig(kind);
  try {
    const curve: number[] = [];
    for (let i = 0; i < windows; i++) curve.push((await cpuPercentOver(() => sleep(windowSeconds * 1000))).cpuPercent);
    return curve;
  } finally {
    await rig.stop();
  }
}
