// What a process of the bench costs, read from /proc: CPU time in the kernel's ticks and resident memory.
import { readFile } from 'node:fs/promises';
import { sleep } from './stats.js';

export interface ProcessCost {
  cpuPercent: number;
  rssMb: number;
}

/** Linux reports process times in these ticks a second (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU time the process has used so far (user and system), in ticks of 10 ms. */
export async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU % of a core over `seconds`, and RSS at the end, for each process. */
export async function measure(pids: number[], seconds: number): Promise<ProcessCost[]> {
  return measureWhile(pids, () => sleep(seconds * 1000));
}

/** CPU % of a core for each process while `wait` runs, and RSS at its end. */
export async function measureWhile(pids: number[], wait: () => Promise<unknown>): Promise<ProcessCost[]> {
  const before = await Promise.all(pids.map(cpuTicks));
  const t0 = performance.now();
  await wait();
  const after = await Promise.all(pids.map(cpuTicks));
  const wall = (performance.now() - t0) / 1000;
  return Promise.all(pids.map(async (pid, i) => ({ cpuPercent: (((after[i] as number) - (before[i] as number)) / TICKS_PER_SECOND / wall) * 100, rssMb: await rssMb(pid) })));
}
