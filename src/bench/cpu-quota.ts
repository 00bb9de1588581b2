// A CPU quota for one process of the bench (the bridge, as a small machine would run it): a cgroup of
// its own with a share of one core per period, cgroup v2's cpu.max or v1's cpu.cfs_quota_us over
// cpu.cfs_period_us, and the throttling the kernel counts for it (cpu.stat). Linux only, as root. The
// files are written through a small interface so that the writing can be checked against a folder of
// plain files (test/bench/cpu-quota.test.ts); the kernel's own checks are what the real run meets.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../api/errors.js';

/** The period the quota is counted over: 10 ms, short enough that a throttled burst waits tens of ms, not a 100 ms default. */
export const QUOTA_PERIOD_US = 10_000;
/** cgroup v1 refuses a quota under 1 ms (and v2 does too): at a 10 ms period that is 10 % of a core. */
const MIN_QUOTA_US = 1000;

export type CgroupVersion = 'v1' | 'v2';

/** Where groups with a CPU quota can be made: the folder of the cpu controller's hierarchy. */
export interface CpuCgroupRoot {
  version: CgroupVersion;
  folder: string;
}

/** The file operations a quota group needs (node's by default; the test's write plain files). */
export interface CgroupFiles {
  exists(path: string): boolean;
  mkdir(path: string): Promise<void>;
  read(path: string): Promise<string>;
  write(path: string, text: string): Promise<void>;
  /** Removes an empty group (on cgroupfs its control files go with it). */
  removeGroup(path: string): Promise<void>;
}

export const nodeCgroupFiles: CgroupFiles = {
  exists: existsSync,
  mkdir: async (path) => void (await mkdir(path)),
  read: (path) => readFile(path, 'utf8'),
  write: (path, text) => writeFile(path, text),
  removeGroup: (path) => rmdir(path),
};

/**
 * The cpu controller under `root` (normally /sys/fs/cgroup): cgroup v2 when the unified hierarchy there
 * offers `cpu`, else v1's cpu hierarchy (`cpu/` or `cpu,cpuacct/`). A sentence saying why not otherwise.
 */
export async function findCpuCgroup(root: string, files: CgroupFiles = nodeCgroupFiles): Promise<CpuCgroupRoot | { unusable: string }> {
  if (process.platform !== 'linux') return { unusable: `a CPU quota needs Linux cgroups; this is ${process.platform}` };
  const controllers = join(root, 'cgroup.controllers');
  if (files.exists(controllers) && (await files.read(controllers)).split(/\s+/).includes('cpu')) return { version: 'v2', folder: root };
  for (const name of ['cpu', 'cpu,cpuacct']) {
    const folder = join(root, name);
    if (files.exists(join(folder, 'cpu.cfs_quota_us'))) return { version: 'v1', folder };
  }
  return { unusable: `neither cgroup v2 offering the cpu controller (${controllers}) nor cgroup v1's cpu hierarchy (${join(root, 'cpu', 'cpu.cfs_quota_us')}) is mounted` };
}

/** The control files that give a group `percent` % of one core per `periodUs`, in the order they must be written. */
export function quotaFiles(version: CgroupVersion, percent: number, periodUs = QUOTA_PERIOD_US): Array<[file: string, text: string]> {
  if (!Number.isFinite(percent) || percent <= 0) throw new Error(`a CPU quota must be a share of a core above 0 %, not ${percent}`);
  const quotaUs = Math.round((percent / 100) * periodUs);
  if (quotaUs < MIN_QUOTA_US) throw new Error(`${percent} % of a ${periodUs / 1000} ms period is ${quotaUs} µs, under the kernel's 1 ms minimum quota`);
  // v1 checks the quota against the period it has now: the period is set first.
  return version === 'v2' ? [['cpu.max', `${quotaUs} ${periodUs}\n`]] : [['cpu.cfs_period_us', `${periodUs}\n`], ['cpu.cfs_quota_us', `${quotaUs}\n`]];
}

export interface Throttling {
  /** Periods in which the group ran. */
  periods: number;
  /** Periods in which it used its quota up and was held until the next. */
  throttled: number;
  /** Time its processes were held, ms. */
  throttledMs: number;
}

/** cpu.stat's throttling counters: v1 counts the held time in ns (throttled_time), v2 in µs (throttled_usec). */
export function parseCpuStat(version: CgroupVersion, text: string): Throttling {
  const fields = new Map(text.split('\n').map((line) => line.trim().split(/\s+/) as [string, string]).filter((f) => f.length === 2).map(([k, v]) => [k, Number(v)]));
  const field = (name: string): number => {
    const value = fields.get(name);
    if (value === undefined || !Number.isFinite(value)) throw new Error(`cpu.stat has no ${name}: ${JSON.stringify(text.slice(0, 200))}`);
    return value;
  };
  return version === 'v2'
    ? { periods: field('nr_periods'), throttled: field('nr_throttled'), throttledMs: field('throttled_usec') / 1000 }
    : { periods: field('nr_periods'), throttled: field('nr_throttled'), throttledMs: field('throttled_time') / 1e6 };
}

export const throttlingSince = (before: Throttling, after: Throttling): Throttling => ({
  periods: after.periods - before.periods,
  throttled: after.throttled - before.throttled,
  throttledMs: after.throttledMs - before.throttledMs,
});

export interface CpuQuotaGroup {
  path: string;
  percent: number;
  /** Moves a process (every thread of it) into the group. */
  add(pid: number): Promise<void>;
  throttling(): Promise<Throttling>;
  /** Moves what is still in the group back to its parent and removes the group. */
  remove(): Promise<void>;
}

const fail = (what: string, path: string, error: unknown): Error =>
  new Error(`${what} ${path}: ${messageOf(error)}${/EACCES|EPERM|EROFS/.test(messageOf(error)) ? ' (a CPU quota needs root and a writable cgroup hierarchy)' : ''}`);

/** Makes the group `name` under `root` with `percent` % of one core per period. */
export async function createCpuQuota(root: CpuCgroupRoot, name: string, percent: number, files: CgroupFiles = nodeCgroupFiles, periodUs = QUOTA_PERIOD_US): Promise<CpuQuotaGroup> {
  const settings = quotaFiles(root.version, percent, periodUs);
  const path = join(root.folder, name);
  if (root.version === 'v2') {
    // A v2 group gets the cpu controller only when its parent hands it down.
    const subtree = join(root.folder, 'cgroup.subtree_control');
    const handed = files.exists(subtree) ? (await files.read(subtree)).split(/\s+/) : [];
    if (!handed.includes('cpu')) await files.write(subtree, '+cpu').catch((error: unknown) => Promise.reject(fail('could not hand the cpu controller down in', subtree, error)));
  }
  await files.mkdir(path).catch((error: unknown) => Promise.reject(fail('could not make the cgroup', path, error)));
  const group: CpuQuotaGroup = {
    path,
    percent,
    add: async (pid) => files.write(join(path, 'cgroup.procs'), `${pid}\n`).catch((error: unknown) => Promise.reject(fail(`could not move process ${pid} into`, path, error))),
    throttling: async () => parseCpuStat(root.version, await files.read(join(path, 'cpu.stat'))),
    remove: async () => {
      const left = (await files.read(join(path, 'cgroup.procs')).catch(() => '')).split('\n').filter((pid) => pid.trim() !== '');
      for (const pid of left) await files.write(join(root.folder, 'cgroup.procs'), `${pid}\n`).catch(() => undefined); // it may have exited meanwhile
      await files.removeGroup(path);
    },
  };
  try {
    for (const [file, text] of settings) await files.write(join(path, file), text).catch((error: unknown) => Promise.reject(fail(`could not set ${file} of`, path, error)));
  } catch (error) {
    await files.removeGroup(path).catch(() => undefined);
    throw error;
  }
  return group;
}
