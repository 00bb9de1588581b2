// (f) What `recdeck run` costs with the shipped profiles and no page open, beside two bare pollers making
// the same reads in the same run (child processes, each against a simulator of its own in one simulator
// child, measured from /proc): the floor, the leanest client there is (node:http and JSON.parse), and one
// through recdeck's own client. Then with one page open viewing the 32-key web deck (16 previews at 1 fps,
// its meters), beside the two pollers making that page's reads too, and the cost of decoding 16 previews
// a second alone. Each simulator counts the reads it answered, so that they are seen to match.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { RecorderClient } from '../api/client.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { startBare, startSimulators } from './floor-poller.js';
import { measure, type ProcessCost } from './proc.js';
import { startRunChild } from './run-child.js';
import { sleep } from './stats.js';
import { realClock } from '../api/clock.js';

export type { ProcessCost } from './proc.js';

export interface IdleCost {
  seconds: number;
  /** The floor: the same reads through node:http and JSON.parse. */
  lean: ProcessCost;
  /** The same reads through recdeck's own client. */
  bare: ProcessCost;
  run: ProcessCost;
  runWithPage: ProcessCost;
  /** The floor making the page's reads too (its previews and meters). */
  leanWithPageReads: ProcessCost;
  /** recdeck's client making the page's reads too. */
  bareWithPageReads: ProcessCost;
  /** Reads a second by operation, of the bridge and of the bare pollers, without and with the page. */
  reads: Record<'idle' | 'page', { run: Record<string, number>; bare: Record<string, number>; lean: Record<string, number> }>;
  /** CPU of decoding 16 previews a second, alone. */
  decodeCpuPercent: number;
}

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

/** A bare poller making the bridge's reads, with the page's too when `pageReads`. */
function startBareFor(url: string, lean: boolean, pageReads: boolean): ChildProcess {
  return startBare(url, TOKEN, { lean, ...(pageReads ? { previews: PREVIEW_CHANNELS, meters: METER_CHANNELS } : {}) });
}

export async function measureIdleCost(seconds: number): Promise<IdleCost> {
  // A simulator for the bridge and one for each bare poller, so that each one's reads are counted.
  const sims = await startSimulators(3, TOKEN);
  const [runUrl, bareUrl, leanUrl] = sims.urls as [string, string, string];
  const children: ChildProcess[] = [sims.child];
  const stop = async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  };
  try {
    const bare = startBareFor(bareUrl, false, false);
    const lean = startBareFor(leanUrl, true, false);
    children.push(bare, lean);
    const run = await startRunChild(runUrl, TOKEN);
    children.push(run.child);
    await sleep(IDLE_WARM_UP_MS);
    await sims.readsSince();
    let t0 = performance.now();
    const [leanCost, bareCost, runCost] = await measure([lean.pid as number, bare.pid as number, run.child.pid as number], seconds);
    const [idleRunReads, idleBareReads, idleLeanReads] = await sims.readsSince();
    const idleSeconds = (performance.now() - t0) / 1000;
    bare.kill('SIGTERM');
    lean.kill('SIGTERM');
    const page = new WebSocket(`${run.web.replace('http', 'ws')}/ws`);
    await once(page, 'open');
    page.send(JSON.stringify({ type: 'view', surfaces: [PAGE_DECK] }));
    const pageBare = startBareFor(bareUrl, false, true);
    const pageLean = startBareFor(leanUrl, true, true);
    children.push(pageBare, pageLean);
    await sleep(PAGE_WARM_UP_MS);
    await sims.readsSince();
    t0 = performance.now();
    const [runWithPage, bareWithPageReads, leanWithPageReads] = await measure([run.child.pid as number, pageBare.pid as number, pageLean.pid as number], seconds);
    const [pageRunReads, pageBareReads, pageLeanReads] = await sims.readsSince();
    const pageSeconds = (performance.now() - t0) / 1000;
    page.close();
    const client = new RecorderClient({ clock: realClock, url: runUrl, token: TOKEN });
    const pngs = await Promise.all(PREVIEW_CHANNELS.map((i) => client.getChannelPreview(i)));
    await client.close();
    await stop();
    return {
      seconds,
      lean: leanCost as ProcessCost,
      bare: bareCost as ProcessCost,
      run: runCost as ProcessCost,
      runWithPage: runWithPage as ProcessCost,
      leanWithPageReads: leanWithPageReads as ProcessCost,
      bareWithPageReads: bareWithPageReads as ProcessCost,
      reads: {
        idle: { run: perSecond(idleRunReads, idleSeconds), bare: perSecond(idleBareReads, idleSeconds), lean: perSecond(idleLeanReads, idleSeconds) },
        page: { run: perSecond(pageRunReads, pageSeconds), bare: perSecond(pageBareReads, pageSeconds), lean: perSecond(pageLeanReads, pageSeconds) },
      },
      decodeCpuPercent: await decodeCost(pngs, Math.max(3, seconds)),
    };
  } finally {
    await stop();
  }
}
