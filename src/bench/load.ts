// (d) The bridge's own cost at steady state: 16 channels recording, a 32-key surface, thumbnails off or
// on; and, for reference, the same bridge polling with no surface at all (what the surface's cost sits
// on). The simulator runs in a child process so that its work is not counted as the bridge's.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startBenchBridge } from './harness.js';
import { sleep } from './stats.js';

/** What the steady-load bridge draws: nothing (no surface), or its 32 keys with thumbnails off or on. */
export type LoadKind = 'no surface' | 'thumbnails off' | 'thumbnails on';

export interface SteadyLoad {
  kind: LoadKind;
  cpuPercent: number;
  eventLoopP99Ms: number;
  rssMb: number;
  /** Work that the machine's noise does not change: the session's refreshes and pictures derived, a second. */
  refreshesPerSecond: number;
  picturesPerSecond: number;
  seconds: number;
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

export async function measureSteadyLoad(kind: LoadKind, seconds: number): Promise<SteadyLoad> {
  const thumbnails = kind === 'thumbnails on';
  const { url, child } = await startChildSimulator();
  const deck = startBenchBridge(url, TOKEN, { thumbnails, surface: kind !== 'no surface' });
  try {
    for (let i = 0; i < 16; i++) await deck.client.recStart(i);
    await sleep(3000); // first thumbnails, caches warm
    const session = deck.bridge.session(deck.surface.id);
    if (!session && kind !== 'no surface') throw new Error('the bench surface has no session');
    const work = () => session?.stats ?? { refreshes: 0, pictures: 0 };
    // CPU is measured with nothing of the bench's own running: the event-loop monitor wakes the process
    // every 10 ms, which costs 0.4 to 0.7 % of a core on this machine (a process doing nothing else,
    // node -e with monitorEventLoopDelay alone), a third of the 2 % the bridge is held to. Its p99 is
    // taken in a window of its own, after.
    const work0 = { ...work() };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    const work1 = work();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await sleep(Math.max(3, seconds / 2) * 1000);
    delay.disable();
    return {
      kind,
      cpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
      eventLoopP99Ms: delay.percentile(99) / 1e6,
      rssMb: process.memoryUsage().rss / 2 ** 20,
      refreshesPerSecond: ((work1.refreshes - work0.refreshes) * 1000) / wallMs,
      picturesPerSecond: ((work1.pictures - work0.pictures) * 1000) / wallMs,
      seconds,
    };
  } finally {
    await deck.stop();
    child.kill('SIGTERM');
  }
}
