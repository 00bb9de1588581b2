// (f) What `recdeck run` costs with the shipped profiles and no page open, beside a bare poller making
// the same reads in the same run (both child processes against one simulator child, measured from
// /proc); then with one page open (16 previews at 1 fps on the 32-key web deck), beside the cost of
// decoding 16 previews a second alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { RecorderClient } from '../api/client.js';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { startChildSimulator } from './load.js';
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
  /** CPU of decoding 16 previews a second, alone. */
  decodeCpuPercent: number;
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-poller.js', import.meta.url));
const TOKEN = 'perm:00000000-0000-4000-8000-0000000idle1';
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

async function decodeCost(url: string, seconds: number): Promise<number> {
  const client = new RecorderClient({ url, token: TOKEN });
  try {
    const pngs = await Promise.all(Array.from({ length: 16 }, (_, i) => client.getChannelPreview(i)));
    const cpu0 = process.cpuUsage();
    for (let round = 0; round < seconds; round++) for (const png of pngs) await decodeThumbnail(png);
    const cpu = process.cpuUsage(cpu0);
    // Each round is one second's 16 decodes: their CPU time as a share of `seconds` seconds.
    return ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100;
  } finally {
    await client.close();
  }
}

export async function measureIdleCost(seconds: number): Promise<IdleCost> {
  const sim = await startChildSimulator(TOKEN);
  const children: ChildProcess[] = [sim.child];
  try {
    const client = new RecorderClient({ url: sim.url, token: TOKEN });
    for (let i = 0; i < 16; i++) await client.recStart(i);
    await client.close();
    const bare = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, BARE, sim.url, TOKEN, '250', '5000'], { stdio: 'ignore' });
    children.push(bare);
    const run = await startRun(sim.url);
    children.push(run.child);
    await sleep(4000); // profiles bound, first reads done, caches warm
    const [bareCost, runCost] = await measure([bare.pid as number, run.child.pid as number], seconds);
    const page = new WebSocket(`${run.web.replace('http', 'ws')}/ws`);
    await once(page, 'open');
    await sleep(4000);
    const [runWithPage] = await measure([run.child.pid as number], seconds);
    page.close();
    return { seconds, bare: bareCost as ProcessCost, run: runCost as ProcessCost, runWithPage: runWithPage as ProcessCost, decodeCpuPercent: await decodeCost(sim.url, Math.max(3, Math.round(seconds / 2))) };
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}
