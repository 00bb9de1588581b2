// The young generation's collector under a CPU quota: on the main thread alone, not with V8's parallel
// helpers.
//
// V8 scavenges its young generation on the main thread and helper threads at once, and the main thread
// waits for the last helper. Under a CFS quota the helpers' CPU counts against the same quota, and on a
// small or busy machine they are the threads that wait for a core: in bench (i) under 25 % of a core,
// profiles of the bridge showed the collector in 45 % of the main thread's stretches over 5 ms, its bursts
// p90 11 ms and up to 90 ms (docs/performance.md, "Busy stretches under a quota"), where a scavenge of a
// 2 MB semi-space (node-flags.ts) is about a millisecond of one thread's work. A press that comes then
// waits for the whole pause. `--single-threaded-gc` for the whole life was measured before: the pauses
// shortened, but the concurrent marking of start-up then ran on the main thread too and the bridge came
// live 5-10 s later (node-flags.ts). So only the scavenger, and only once a quota is known (at run time:
// V8 reads the flag at each scavenge): without a quota, nothing changes.
import { setFlagsFromString } from 'node:v8';
import type { CpuQuota } from '../engine/cpu-budget.js';

/** The scavenger's flag for a quota: one thread under a quota of less than a core, V8's default otherwise. */
export function scavengeFlagFor(quota: CpuQuota | null): '--no-parallel-scavenge' | '--parallel-scavenge' {
  return quota !== null && quota.share < 1 ? '--no-parallel-scavenge' : '--parallel-scavenge';
}

/**
 * What the quota watch calls with each quota it reads: sets the scavenger's flag when it differs from the
 * one set (V8's default, parallel, at the start). `setFlag` is V8's, or a recorder in tests.
 */
export function collectorFollowingQuota(setFlag: (flag: string) => void = setFlagsFromString): (quota: CpuQuota | null) => void {
  let set: string = scavengeFlagFor(null);
  return (quota) => {
    const flag = scavengeFlagFor(quota);
    if (flag === set) return;
    setFlag(flag);
    set = flag;
  };
}
