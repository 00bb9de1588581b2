// (f) What `recdeck run` costs with the shipped profiles and no page open, beside a bare poller making
// the same reads in the same run (both child processes against one simulator child, measured from
// /proc); then with one page open viewing the 32-key web deck (16 previews at 1 fps, its meters), beside
// a bare poller making that page's reads too, and the cost of decoding 16 previews a second alone. The
// reads the bridge made in the window are counted from its /metrics, so that the two are seen to match.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { RecorderClient } from '../api/client.js';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { sleep } from './stats.js';

export interface ProcessCost {
  cpuPercent: number;
  rssMb: number;
}

export interface IdleCost {
  seconds: number;
  bare: ProcessCost;
  run: ProcessCost;
  runWithPage: ProcessCost;
  /** A bare poller making the page's reads too (its previews and meters). */
  bareWithPageReads: ProcessCost;
  /** Reads a second by operation, of the bridge and of the bare poller, without and with the page. */
  reads: Record<'idle' | 'page', { run: Record<string, number>; bare: Record<string, number> }>;
  /** CPU of decoding 16 previews a second, alone. */
  decodeCpuPercent: number;
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-poller.js', import.meta.url));
const SIMULATORS = fileURLToPath(new URL('./simulators-child.js', import.meta.url));
const TOKEN = 'perm:00000000-0000-4000-8000-0000000idle1';
/**
 * Steady state is measured, not start-up: the bridge's first reads and drawings, and V8's memory reducer,
 * which runs full collections once the allocation rate falls after start (seen at 16-17 s with
 * --trace-gc): they cost a heap the bridge's size more than the bare poller's, once, not per hour idle.
 */
const IDLE_WARM_UP_MS = 25_000;
/**
 * With a page open the allocation rate stays up and the reducer does not run, but V8 is still compiling
 * the drawing paths for a while: with a page open from the start, TurboFan finished 263 compiles in the
 * first 10 s, 47-59 per 10 s over the next 40 s, and about 30 per 10 s from then on (--trace-opt).
 * A page stays open for hours, so it is measured after a minute.
 */
const PAGE_WARM_UP_MS = 60_000;
/** The deck the page views, and what its first page shows: every channel's preview, meters of channels 1 and 2. */
const PAGE_DECK = 'web:web-32';
const PREVIEW_CHANNELS = Array.from({ length: 16 }, (_, i) => i);
const METER_CHANNELS = [0, 1];
/** Linux reports process times in these ticks a second (USER_HZ). */
const TICKS_PER_SECOND = 100;

async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU % of a core over `seconds`, and RSS at the end, for each process. */
async function measure(pids: number[], seconds: number): Promise<ProcessCost[]> {
  const before = await Promise.all(pids.map(cpuTicks));
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const after = await Promise.all(pids.map(cpuTicks));
  const wall = (performance.now() - t0) / 1000;
  return Promise.all(pids.map(async (pid, i) => ({ cpuPercent: (((after[i] as number) - (before[i] as number)) / TICKS_PER_SECOND / wall) * 100, rssMb: await rssMb(pid) })));
}

async function startRun(url: string): Promise<{ child: ChildProcess; web: string }> {
  const child = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, CLI, 'run', '--recorder', url, '--web-port', '0', '--log-format', 'json'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, RECDECK_TOKEN: TOKEN },
  });
  const web = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /open (http:\/\/[^\s"]+)/.exec(text);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`recdeck run exited (${code}) before serving: ${text.slice(-500)}`)));
  });
  return { child, web };
}

/** The simulators' child: their URLs, and the reads each has answered since the last ask, by operation. */
async function startSimulators(count: number): Promise<{ child: ChildProcess; urls: string[]; readsSince: () => Promise<Array<Record<string, number>>> }> {
  const child = spawn(process.execPath, [SIMULATORS, String(count), TOKEN], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the simulators stopped');
    return JSON.parse(value as string);
  };
  const { urls } = (await next()) as { urls: string[] };
  return {
    child,
    urls,
    readsSince: async () => {
      child.stdin?.write('count\n');
      return ((await next()) as { counts: Array<Record<string, number>> }).counts;
    },
  };
}

const perSecond = (counts: Record<string, number> | undefined, seconds: number) => Object.fromEntries(Object.entries(counts ?? {}).map(([operation, n]) => [operation, n / seconds]));

/** CPU % of a core for decoding 16 previews a second, measured alone (nothing else runs in this process then). */
async function decodeCost(pngs: readonly Uint8Array[], seconds: number): Promise<number> {
  for (const png of pngs) await decodeThumbnail(png); // sharp's first calls set up its pipeline: not counted
  const cpu0 = process.cpuUsage();
  for (let round = 0; round < seconds; round++) for (const png of pngs) await decodeThumbnail(png);
  const cpu = process.cpuUsage(cpu0);
  // Each round is one second's 16 decodes: their CPU time as a share of `seconds` seconds.
  return ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100;
}

export async function measureIdleCost(seconds: number): Promise<IdleCost> {
  // One simulator for the bridge and one for the bare pollers, so that each one's reads are counted.
  const sims = await startSimulators(2);
  const [runUrl, bareUrl] = sims.urls as [string, string];
  const children: ChildProcess[] = [sims.child];
  const stop = async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  };
  try {
    const bare = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, BARE, '--url', bareUrl, '--token', TOKEN], { stdio: 'ignore' });
    children.push(bare);
    const run = await startRun(runUrl);
    children.push(run.child);
    await sleep(IDLE_WARM_UP_MS);
    await sims.readsSince();
    let t0 = performance.now();
    const [bareCost, runCost] = await measure([bare.pid as number, run.child.pid as number], seconds);
    const [idleRunReads, idleBareReads] = await sims.readsSince();
    const idleSeconds = (performance.now() - t0) / 1000;
    bare.kill('SIGTERM');
    const page = new WebSocket(`${run.web.replace('http', 'ws')}/ws`);
    await once(page, 'open');
    page.send(JSON.stringify({ type: 'view', surfaces: [PAGE_DECK] }));
    const pageBare = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, BARE, '--url', bareUrl, '--token', TOKEN, '--previews', PREVIEW_CHANNELS.join(','), '--meters', METER_CHANNELS.join(',')], { stdio: 'ignore' });
    children.push(pageBare);
    await sleep(PAGE_WARM_UP_MS);
    await sims.readsSince();
    t0 = performance.now();
    const [runWithPage, bareWithPageReads] = await measure([run.child.pid as number, pageBare.pid as number], seconds);
    const [pageRunReads, pageBareReads] = await sims.readsSince();
    const pageSeconds = (performance.now() - t0) / 1000;
    page.close();
    const client = new RecorderClient({ url: runUrl, token: TOKEN });
    const pngs = await Promise.all(PREVIEW_CHANNELS.map((i) => client.getChannelPreview(i)));
    await client.close();
    await stop();
    return {
      seconds,
      bare: bareCost as ProcessCost,
      run: runCost as ProcessCost,
      runWithPage: runWithPage as ProcessCost,
      bareWithPageReads: bareWithPageReads as ProcessCost,
      reads: {
        idle: { run: perSecond(idleRunReads, idleSeconds), bare: perSecond(idleBareReads, idleSeconds) },
        page: { run: perSecond(pageRunReads, pageSeconds), bare: perSecond(pageBareReads, pageSeconds) },
      },
      decodeCpuPercent: await decodeCost(pngs, Math.max(3, seconds)),
    };
  } finally {
    await stop();
  }
}
