// Bench (i)'s cores: the bridge on a core of its own, the rest of the bench's world (the simulator, the
// page's chromium, the bench itself) on the others. The quota models the small machine's CPU; what stands
// for other machines (the recorder, the operator's desk computer, the person pressing) must not take that
// core from it. Without this, on this 2-core host, the bridge waited for a core behind them even without a
// quota: calm (load 2-5), unlimited press p99 41.8 ms with the slowest presses' main thread runnable but
// not running 47 of 76 ms (--press-trace's kernel counters, 2026-11-29 00:58).
//
// Affinity by `taskset` (util-linux): the bridge is started under it (it execs the bridge, so the pid is the
// bridge's), and the bench moves its own threads, whose later children (the simulator, chromium) inherit
// the mask. A thread made later by a moved thread inherits its mask too.
import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where each side runs, as taskset's CPU lists; null on a one-core machine (nothing to separate). */
export interface CpuSplit {
  bridge: string;
  world: string;
}

/** CPU 0 for the bridge, the rest for the world; null with one CPU. */
export function cpuSplit(count = cpus().length): CpuSplit | null {
  if (count < 2) return null;
  return { bridge: '0', world: count === 2 ? '1' : `1-${count - 1}` };
}

/** The CPU list a process may run on now ("0,1", "0-3"), as taskset says it. */
export async function affinityOf(pid: number): Promise<string> {
  const { stdout } = await run('taskset', ['-pc', String(pid)]);
  const list = /affinity list:\s*(\S+)/.exec(stdout)?.[1];
  if (list === undefined) throw new Error(`taskset -pc ${pid}: no affinity list in ${JSON.stringify(stdout.trim())}`);
  return list;
}

/** Every thread of `pid` onto `list`. */
export async function pinProcess(pid: number, list: string): Promise<void> {
  await run('taskset', ['-a', '-pc', list, String(pid)]);
}
