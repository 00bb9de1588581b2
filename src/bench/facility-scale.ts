// (j) A facility at scale: 4 recorders (simulators, in a process of their own), a poller for each (a
// `recdeck run` publishing it on the bus), and 100 panels in a few processes (panels-child.ts), all on one
// Mosquitto; panel i follows recorder i mod 4. Measured: the reads each recorder answers a second against
// what one bridge polling it alone makes (the panels must add none); a channel started or stopped inside
// a recorder until every panel following it shows it (its key's band, stamped as the image is handed to
// the surface); the CPU and memory of the broker, the pollers and the panels' processes; memory per panel.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expandPath, operations } from '../api/operations.js';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { startBroker } from './broker.js';
import { generatedFacilityOf, startPollerRun } from './bus.js';
import { startBenchBridge } from './harness.js';
import { startSimulators } from './floor-poller.js';
import type { ShownState } from './key-frames.js';
import type { Hops } from './panels-child.js';
import { LeanHttp } from './lean-http.js';
import { measureWhile, type ProcessCost } from './proc.js';
import { cancellableSleep, mean, percentile, preciseNow, sleep } from './stats.js';

export interface FacilityScale {
  panels: number;
  panelProcesses: number;
  recorders: number;
  pollMs: number;
  seconds: number;
  loadAverage: [number, number];
  /** Reads a second one bridge makes polling a recorder alone. */
  oneBridgeReads: number;
  /** Reads a second each recorder answered with the facility running. */
  facilityReads: number[];
  changeP50: number;
  changeP99: number;
  /** Panel images that did not show a change within 10 s. */
  notShown: number;
  samples: number;
  broker: ProcessCost;
  pollers: ProcessCost[];
  panelProcessCosts: ProcessCost[];
  /** The panels' processes' RSS beyond what each held before its first panel, per panel. */
  mbPerPanel: number;
  /** Where each image's time went, hop by hop (HOPS): each hop's p50 and p99 alone, and its mean over the slowest images. */
  split: HopSplit[];
  /** The panels' processes' event loops while the changes were measured: delay p99 and max, GC pauses. */
  panelLoops: { delayP99Ms: number; delayMaxMs: number; gcSharePercent: number; gcMaxMs: number };
}

/** One hop of a change on its way to a panel's key, over the images measured. */
export interface HopSplit {
  hop: string;
  p50: number;
  p99: number;
  /** Its mean over the images at or above the p50 of the whole, and over the slowest 5 % and 1 %. */
  meanOverP50: number;
  meanOverP95: number;
  meanOverP99: number;
}

/**
 * The hops, from the timestamps a panels' process sends with each image (panels-child.ts, Hops): the
 * change made in the recorder (t0, just before the PUT) to the poller's read that saw it answered (the
 * wait for the next poll, by design, and the read itself); that read to its publication (signed); the
 * publication to the first panel of the process having it (the broker, the socket, the process's own
 * backlog); that to this panel having it (behind the process's other panels); the check and parse; the
 * session's derivation until the key's picture goes to the renderer; the render; the image to the surface.
 */
export const HOPS = ['poll and read', 'poller publishes', 'broker to the process', 'behind its other panels', 'check and parse', 'derivation', 'render', 'to the surface'] as const;

const PANELS_CHILD = fileURLToPath(new URL('./panels-child.js', import.meta.url));
const TOKEN = 'perm:00000000-0000-4000-8000-000facility';
const SHOWN_MS = 10_000;
const LIVE_MS = 300_000;

interface PanelLine {
  panel: string;
  recorder: string;
  control: string;
  state: ShownState;
  at: number;
  pid: number;
  hops?: Hops;
}

interface LoopLine {
  pid: number;
  from: number;
  to: number;
  delayP99Ms: number;
  delayMaxMs: number;
  gcMs: number;
  gcMaxMs: number;
}

/** A panels' process: its lines, the moment it said all its panels are live, and what it held before the first. */
async function startPanels(brokerUrl: string, folder: string, pollMs: number, members: ReadonlyArray<[panel: string, recorder: string]>, seen: (line: PanelLine) => void, looked: (line: LoopLine) => void, children: ChildProcess[]): Promise<{ child: ChildProcess; baseRssMb: number }> {
  // RECDECK_BENCH_PANELS_CPU_PROF=DIR: each panels' process writes a CPU profile there as it exits.
  const profile = process.env.RECDECK_BENCH_PANELS_CPU_PROF;
  const child = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), PANELS_CHILD, '--broker', brokerUrl, '--folder', folder, '--poll-ms', String(pollMs), ...members.map(([p, r]) => `${p}=${r}`)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child); // stopped with the rest even if its panels never come live
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const live = new Promise<number>((resolve, reject) => {
    lines.on('line', (text) => {
      const line = JSON.parse(text) as PanelLine | { live: true; baseRssMb: number } | { loop: LoopLine };
      if ('live' in line) resolve(line.baseRssMb);
      else if ('loop' in line) looked(line.loop);
      else seen(line);
    });
    child.once('exit', (code) => reject(new Error(`a panels' process exited (${code}) before its panels were live`)));
  });
  // A process starting 20 panels (each its connection, bridge and first page of 32 keys) took over 120 s
  // at a load average of 30 on this 2-core machine.
  // The limit's timer is cleared once they are: left running, it held the bench's process for up to 300 s
  // after it printed its table (a run that "did not exit").
  const limit = cancellableSleep(LIVE_MS);
  const tooLate = limit.done.then(() => Promise.reject(new Error(`(j): a panels' process's panels were not live from the bus within ${LIVE_MS / 1000} s`)));
  try {
    return { child, baseRssMb: await Promise.race([live, tooLate]) };
  } finally {
    limit.cancel();
  }
}

const sum = (r: Record<string, number>) => Object.entries(r).reduce((total, [operation, n]) => total + (operation.startsWith('get') || operation.startsWith('list') ? n : 0), 0);

export async function measureFacilityScale(panelCount: number, processCount: number, seconds: number, samples: number, pollMs = 250): Promise<FacilityScale> {
  const recorders = ['rec-0', 'rec-1', 'rec-2', 'rec-3'];
  const children: ChildProcess[] = [];
  const begun = preciseNow();
  // Where the run's time goes, on stderr (a run at 100 panels takes minutes).
  const stage = (what: string) => process.stderr.write(`(j) ${((preciseNow() - begun) / 1000).toFixed(1)} s: ${what} (load ${(loadavg()[0] as number).toFixed(1)})\n`);
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const sims = await startSimulators(recorders.length, TOKEN, 'idle');
    children.push(sims.child);
    const writers = sims.urls.map((url) => new LeanHttp(url, TOKEN, 1));
    cleanup.push(async () => writers.forEach((w) => w.close()));

    // One bridge alone, polling the first recorder: the load one panel puts on a recorder without the bus.
    const alone = startBenchBridge(sims.urls[0] as string, TOKEN, { thumbnails: false, pollMs, reads: 'everything' }); // as the facility's pollers read
    await sleep(3000);
    await sims.readsSince();
    let t0 = preciseNow();
    await sleep(seconds * 1000);
    const oneBridgeReads = sum((await sims.readsSince())[0] ?? {}) / ((preciseNow() - t0) / 1000);
    await alone.stop();
    stage(`one bridge alone: ${oneBridgeReads.toFixed(1)} reads/s`);

    const broker = await startBroker();
    cleanup.push(() => broker.close());
    const pollerIds = Object.fromEntries(recorders.map((r) => [`poller-${r}`, r]));
    const panelIds = Array.from({ length: panelCount }, (_, i) => `panel-${i}`);
    const made = generatedFacilityOf(pollerIds, panelIds);
    const folder = await mkdtemp(join(tmpdir(), 'recdeck-bench-facility-'));
    cleanup.push(() => rm(folder, { recursive: true, force: true }));
    const pollers: ChildProcess[] = [];
    for (const [i, recorder] of recorders.entries()) {
      const files = await made.writeFiles(folder, `poller-${recorder}`);
      pollers.push(startPollerRun(broker.url, { url: sims.urls[i] as string, token: TOKEN }, pollMs, files, `poller-${recorder}`, recorder));
    }
    children.push(...pollers);
    for (const id of panelIds) await made.writeFiles(folder, id);
    stage(`the broker and ${pollers.length} pollers started, ${panelIds.length} panels' keys written`);

    // Each panel's latest state per key, and whoever waits on it.
    const recorderOf = (i: number) => recorders[i % recorders.length] as string;
    let waiting: { recorder: string; control: string; state: ShownState; t0: number; times: Map<string, number>; images: Image[] } | null = null;
    const seen = (line: PanelLine) => {
      if (!waiting || line.recorder !== waiting.recorder || line.control !== waiting.control || line.state !== waiting.state || line.at < waiting.t0) return;
      waiting.times.set(line.panel, line.at - waiting.t0);
      waiting.images.push({ t0: waiting.t0, at: line.at, pid: line.pid, hops: line.hops });
    };
    const loops: LoopLine[] = [];
    let measuring: { from: number; to: number } | null = null;
    const looked = (line: LoopLine) => {
      if (measuring !== null && line.from >= measuring.from) loops.push(line);
    };
    const images: Image[] = [];
    const groups = Array.from({ length: processCount }, (_, p) => panelIds.flatMap((id, i) => (i % processCount === p ? [[id, recorderOf(i)] as [string, string]] : [])));
    const panels = await Promise.all(groups.map((members) => startPanels(broker.url, folder, pollMs, members, seen, looked, children)));
    stage(`all ${panelCount} panels have been live`);
    await sleep(3000);

    await sims.readsSince();
    const load0 = loadavg()[0] as number;
    const times: number[] = [];
    let notShown = 0;
    const pids = [broker.pid() as number, ...pollers.map((p) => p.pid as number), ...panels.map((p) => p.child.pid as number)];
    t0 = preciseNow();
    measuring = { from: t0, to: Infinity };
    const costs = await measureWhile(pids, async () => {
      const end = preciseNow() + seconds * 1000;
      for (let i = 0; i < samples || preciseNow() < end; i++) {
        const r = i % recorders.length;
        const recorder = recorders[r] as string;
        const channel = Math.floor(i / recorders.length) % 16;
        const following = panelIds.filter((_, p) => recorderOf(p) === recorder).length;
        for (const [operation, state] of [['recStart', 'recording'], ['recStop', 'ready']] as const) {
          await sleep(Math.random() * pollMs); // any phase of the poll
          waiting = { recorder, control: `key${channel}`, state, t0: preciseNow(), times: new Map(), images: [] };
          await (writers[r] as LeanHttp).send('PUT', expandPath(operations[operation].path, { index: channel }));
          const deadline = preciseNow() + SHOWN_MS;
          while (waiting.times.size < following && preciseNow() < deadline) await sleep(20);
          times.push(...waiting.times.values());
          images.push(...waiting.images);
          notShown += following - waiting.times.size;
          waiting = null;
        }
      }
    });
    const wall = (preciseNow() - t0) / 1000;
    measuring = null;
    stage(`measured ${times.length} images`);
    const facilityReads = (await sims.readsSince()).map((reads) => sum(reads) / wall);
    const load1 = loadavg()[0] as number;
    const [brokerCost, ...rest] = costs as [ProcessCost, ...ProcessCost[]];
    const pollerCosts = rest.slice(0, pollers.length);
    const panelProcessCosts = rest.slice(pollers.length);
    const beyondBase = panelProcessCosts.reduce((total, cost, i) => total + cost.rssMb - (panels[i]?.baseRssMb ?? 0), 0);
    return {
      panels: panelCount,
      panelProcesses: processCount,
      recorders: recorders.length,
      pollMs,
      seconds,
      loadAverage: [load0, load1],
      oneBridgeReads,
      facilityReads,
      changeP50: percentile(times, 50),
      changeP99: percentile(times, 99),
      notShown,
      samples: times.length,
      broker: brokerCost,
      pollers: pollerCosts,
      panelProcessCosts,
      mbPerPanel: beyondBase / panelCount,
      split: splitOf(images),
      panelLoops: loopsOf(loops),
    };
  } finally {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      // Cancelled once it exited: each left running held the bench's process up to 10 s after its table.
      const limit = cancellableSleep(10_000);
      await Promise.race([exited, limit.done.then(() => child.kill('SIGKILL'))]);
      limit.cancel();
    }
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    stage('every process stopped');
  }
}

/** One image measured: when the change was made, when the image was handed to the surface, in which process, and its hops. */
interface Image {
  t0: number;
  at: number;
  pid: number;
  hops: Hops | undefined;
}

/** The hops of each image (HOPS), and the split of the whole into them (images without all their stamps are left out). */
export function splitOf(images: readonly Image[]): HopSplit[] {
  // The first panel of each process to have each read: what is behind it is the process's other panels.
  const firstIn = new Map<string, number>();
  for (const { pid, hops } of images) {
    if (hops === undefined) continue;
    const key = `${pid}/${hops.read}/${hops.readNumber}`;
    firstIn.set(key, Math.min(firstIn.get(key) ?? Infinity, hops.arrived));
  }
  const rows = images.flatMap(({ t0, at, pid, hops }) => {
    if (hops === undefined || hops.renderCalled === undefined || hops.rendered === undefined) return [];
    const first = firstIn.get(`${pid}/${hops.read}/${hops.readNumber}`) as number;
    const parts = [hops.read - t0, hops.sent - hops.read, first - hops.sent, hops.arrived - first, hops.believed - hops.arrived, hops.renderCalled - hops.believed, hops.rendered - hops.renderCalled, at - hops.rendered];
    return [{ total: at - t0, parts, sharpCalls: hops.sharpCalls }];
  });
  const sorted = [...rows].sort((a, b) => a.total - b.total);
  // The slowest 1 % one by one, on stderr: which hops, and whether its render called sharp.
  for (const row of sorted.slice(Math.floor(0.99 * sorted.length))) process.stderr.write(`(j) slow image ${row.total.toFixed(0)} ms: ${row.parts.map((p, i) => `${HOPS[i]} ${p.toFixed(0)}`).join(', ')}; sharp calls ${row.sharpCalls}\n`);
  const from = (p: number) => sorted.slice(Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length)));
  const [over50, over95, over99] = [from(50), from(95), from(99)];
  const meanOf = (set: typeof rows, i: number) => mean(set.map((r) => r.parts[i] as number));
  const sharp = rows.filter((r) => (r.sharpCalls ?? 0) > 0).length;
  const sharpInTail = over99.filter((r) => (r.sharpCalls ?? 0) > 0).length;
  process.stderr.write(`(j) images whose render called sharp: ${sharp} of ${rows.length}; in the slowest 1 %: ${sharpInTail} of ${over99.length}\n`);
  return [
    ...HOPS.map((hop, i) => ({ hop, p50: percentile(rows.map((r) => r.parts[i] as number), 50), p99: percentile(rows.map((r) => r.parts[i] as number), 99), meanOverP50: meanOf(over50, i), meanOverP95: meanOf(over95, i), meanOverP99: meanOf(over99, i) })),
    { hop: `whole (${rows.length} of ${images.length} images stamped)`, p50: percentile(rows.map((r) => r.total), 50), p99: percentile(rows.map((r) => r.total), 99), meanOverP50: mean(over50.map((r) => r.total)), meanOverP95: mean(over95.map((r) => r.total)), meanOverP99: mean(over99.map((r) => r.total)) },
  ];
}

function loopsOf(loops: readonly LoopLine[]): FacilityScale['panelLoops'] {
  const wall = loops.reduce((total, l) => total + l.to - l.from, 0);
  return {
    delayP99Ms: percentile(loops.map((l) => l.delayP99Ms), 50),
    delayMaxMs: Math.max(0, ...loops.map((l) => l.delayMaxMs)),
    gcSharePercent: wall === 0 ? Number.NaN : (100 * loops.reduce((total, l) => total + l.gcMs, 0)) / wall,
    gcMaxMs: Math.max(0, ...loops.map((l) => l.gcMaxMs)),
  };
}

/** Mean CPU % and RSS of a kind of process. */
export const meanCost = (costs: readonly ProcessCost[]): ProcessCost => ({ cpuPercent: mean(costs.map((c) => c.cpuPercent)), rssMb: mean(costs.map((c) => c.rssMb)) });
