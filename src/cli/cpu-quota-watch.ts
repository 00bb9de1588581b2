// The bridge's own CPU quota, for the picture line's CPU budget (src/engine/cpu-budget.ts): the cgroup this
// process is in (/proc/self/cgroup) and its limit, cgroup v2's `cpu.max` or v1's `cpu.cfs_quota_us` over
// `cpu.cfs_period_us`, the tightest of the group and those above it (a container's limit is often set on
// a parent). Read again every few seconds: a process can be moved into a group after it starts (the
// bench does so just after spawning the bridge), and a container's limit can be changed while it runs.
// A file that cannot be read or holds what a kernel would not write is said once, with its path, and
// means no budget (the picture line as without one), never a crash.
import { stat } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import { timer } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import type { CpuMeter, CpuQuota } from '../engine/cpu-budget.js';
import type { Logger } from '../engine/log.js';
import { readSmallFile } from './small-file.js';
import { UsageError } from './usage-error.js';

/** How often the quota is read again: cheap (two or three small files), and a moved process is followed within this. */
export const QUOTA_REREAD_MS = 5000;

/** The longest cgroup file read here (/proc/self/cgroup of a deep hierarchy included): past it, the file is not the one meant. */
const CGROUP_FILE_MAX_BYTES = 64 * 1024;

/** Where the kernel's files are: the real ones, or a folder laid out like them (tests). */
export interface CgroupPaths {
  /** /proc/self/cgroup */
  procCgroup: string;
  /** /sys/fs/cgroup */
  root: string;
}

export const SYSTEM_CGROUP: CgroupPaths = { procCgroup: '/proc/self/cgroup', root: '/sys/fs/cgroup' };

/** The quota found (with the group whose limit it is), none, or why it could not be read. */
export type QuotaReading = { quota: CpuQuota; group: string } | { quota: null } | { unreadable: string };

/** The process's CPU, every thread of it: the kernel counts them all against the quota. */
export const processCpu: CpuMeter = {
  usedMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

/** Reads the quota of the cgroup named in `paths.procCgroup`, the tightest of it and its parents. */
export async function readCpuQuota(paths: CgroupPaths): Promise<QuotaReading> {
  let membership: string;
  try {
    membership = await readSmallFile(paths.procCgroup, CGROUP_FILE_MAX_BYTES);
  } catch (error) {
    // Not Linux, or no /proc: no cgroup, so no quota the kernel enforces.
    if (isMissing(error)) return { quota: null };
    return { unreadable: `could not read ${paths.procCgroup}: ${messageOf(error)}` };
  }
  const lines = membership.split('\n').filter((line) => line.trim() !== '').map((line) => /^(\d+):([^:]*):(.*)$/.exec(line));
  if (lines.some((line) => line === null)) return { unreadable: `${paths.procCgroup} is not a list of hierarchy:controllers:path lines: ${JSON.stringify(membership.slice(0, 200))}` };
  const entries = lines.map((line) => ({ controllers: (line?.[2] ?? '').split(','), path: line?.[3] ?? '/' }));
  // v1 first: a hybrid system mounts v2 too, but the cpu controller is in the v1 hierarchy then.
  const v1 = entries.find((entry) => entry.controllers.includes('cpu'));
  if (v1 !== undefined) {
    for (const mount of [join(paths.root, v1.controllers.join(',')), join(paths.root, 'cpu'), join(paths.root, 'cpu,cpuacct')]) {
      if (await isFolder(mount)) return tightest(mount, v1.path, readV1Level);
    }
    return { quota: null };
  }
  const v2 = entries.find((entry) => entry.controllers.length === 1 && entry.controllers[0] === '');
  if (v2 !== undefined) return tightest(paths.root, v2.path, readV2Level);
  return { quota: null };
}

/** One group's own limit: a quota, none (no limit, or no file at this level), or a sentence saying what is wrong. */
type LevelLimit = CpuQuota | null | string;

/**
 * The tightest limit of the group at `groupPath` under `mount` and every group above it, up to the mount
 * (in a container, the mount is the container's own group). A path that would lead out of the mount
 * (a group outside this cgroup namespace shows as /../…) is read from the mount alone.
 */
async function tightest(mount: string, groupPath: string, readLevel: (folder: string) => Promise<LevelLimit>): Promise<QuotaReading> {
  const normal = posix.normalize(`/${groupPath}`);
  const inside = relative('/', normal);
  let folder = inside.startsWith('..') ? mount : join(mount, inside);
  let best: { quota: CpuQuota; group: string } | null = null;
  for (;;) {
    const limit = await readLevel(folder);
    if (typeof limit === 'string') return { unreadable: limit };
    if (limit !== null && (best === null || limit.share < best.quota.share)) best = { quota: limit, group: folder };
    if (folder === mount || relative(mount, folder).startsWith('..')) break;
    folder = join(folder, '..');
  }
  return best ?? { quota: null };
}

/** cgroup v2: `cpu.max` is "max PERIOD" (no limit) or "QUOTA PERIOD", in µs. */
async function readV2Level(folder: string): Promise<LevelLimit> {
  const file = join(folder, 'cpu.max');
  const text = await readIfThere(file);
  if (text === null || typeof text !== 'string') return text === null ? null : text.problem;
  const fields = text.trim().split(/\s+/);
  const [quota, period] = fields;
  if (fields.length !== 2 || quota === undefined || period === undefined || !(quota === 'max' || isWhole(quota)) || !isWhole(period)) return `${file} should hold "max PERIOD" or "QUOTA PERIOD" (µs), not ${JSON.stringify(text.slice(0, 100))}`;
  return quota === 'max' ? null : quotaOf(Number(quota), Number(period), file);
}

/** cgroup v1: `cpu.cfs_quota_us` (-1: no limit) over `cpu.cfs_period_us`. */
async function readV1Level(folder: string): Promise<LevelLimit> {
  const quotaFile = join(folder, 'cpu.cfs_quota_us');
  const periodFile = join(folder, 'cpu.cfs_period_us');
  const quota = await readIfThere(quotaFile);
  if (quota === null || typeof quota !== 'string') return quota === null ? null : quota.problem;
  const quotaText = quota.trim();
  if (quotaText === '-1') return null;
  if (!isWhole(quotaText)) return `${quotaFile} should hold a whole number of µs or -1, not ${JSON.stringify(quota.slice(0, 100))}`;
  const period = await readIfThere(periodFile);
  if (period === null) return `${quotaFile} sets a quota but ${periodFile} is missing`;
  if (typeof period !== 'string') return period.problem;
  if (!isWhole(period.trim())) return `${periodFile} should hold a whole number of µs, not ${JSON.stringify(period.slice(0, 100))}`;
  return quotaOf(Number(quotaText), Number(period.trim()), quotaFile);
}

function quotaOf(quotaUs: number, periodUs: number, file: string): CpuQuota | string {
  if (quotaUs <= 0 || periodUs <= 0) return `${file}: a quota of ${quotaUs} µs per ${periodUs} µs is not one a kernel sets`;
  return { share: quotaUs / periodUs, periodMs: periodUs / 1000 };
}

const isWhole = (text: string): boolean => /^\d{1,15}$/.test(text);

/** A file's text, null when it is not there, or why it could not be read. */
async function readIfThere(file: string): Promise<string | null | { problem: string }> {
  try {
    return await readSmallFile(file, CGROUP_FILE_MAX_BYTES);
  } catch (error) {
    return isMissing(error) ? null : { problem: `could not read ${file}: ${messageOf(error)}` };
  }
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** What the bridge is given: the process's CPU and the quota now (BridgeOptions.cpu). */
export interface CpuQuotaWatch {
  cpu: { meter: CpuMeter; quota: () => CpuQuota | null };
  stop(): void;
}

/** How the budget's share is chosen (`recdeck run --cpu-budget`): the cgroup's quota, none, or a share of a core by hand. */
export type CpuBudgetSetting = { kind: 'auto' } | { kind: 'off' } | { kind: 'share'; share: number };

/** A share set by hand is counted over periods as short as the bench's (the budget holds at most one). */
const HAND_PERIOD_MS = 10;

/**
 * The quota the bridge's CPU budget follows: read now, then every QUOTA_REREAD_MS on `clock`; each change
 * (and each new reason it cannot be read) said once. Null for `off`. A share by hand is fixed.
 * `onQuota` is told the quota the kernel enforces at each read (null: none, or unreadable); a share by
 * hand is not one, so it is never told of it (collector-under-quota.ts).
 */
export async function watchCpuQuota(setting: CpuBudgetSetting, clock: Clock, log: Logger, paths: CgroupPaths = SYSTEM_CGROUP, onQuota: (quota: CpuQuota | null) => void = () => undefined): Promise<CpuQuotaWatch | null> {
  if (setting.kind === 'off') return null;
  if (setting.kind === 'share') {
    const quota: CpuQuota = { share: setting.share, periodMs: HAND_PERIOD_MS };
    log.info(`CPU budget: pictures and the page's frames keep to part of ${percent(quota.share)} of a core (--cpu-budget), leaving the rest to input`);
    return { cpu: { meter: processCpu, quota: () => quota }, stop: () => undefined };
  }
  let current: CpuQuota | null = null;
  let said = '';
  const read = async (): Promise<void> => {
    const reading = await readCpuQuota(paths);
    const words =
      'unreadable' in reading
        ? `CPU quota not known (${reading.unreadable}): no CPU budget for pictures`
        : reading.quota === null
          ? 'no CPU quota: no CPU budget for pictures'
          : `CPU quota ${percent(reading.quota.share)} of a core per ${reading.quota.periodMs} ms (${reading.group}): pictures and the page's frames keep to part of it, leaving the rest to input`;
    current = 'unreadable' in reading ? null : reading.quota;
    onQuota(current);
    if (words === said) return;
    said = words;
    if ('unreadable' in reading) log.warn(words);
    else log.info(words);
  };
  // readCpuQuota answers every failure of the kernel's files itself; anything else is said, never thrown.
  const readSafely = (): Promise<void> => read().catch((error: unknown) => log.warn(`CPU quota: ${messageOf(error)}`));
  await readSafely();
  let reading: Promise<void> | null = null;
  // One read at a time: a slow filesystem never stacks them up.
  const rereads = timer(QUOTA_REREAD_MS, QUOTA_REREAD_MS, clock.scheduler).subscribe(() => void (reading ??= readSafely().finally(() => (reading = null))));
  return { cpu: { meter: processCpu, quota: () => current }, stop: () => rereads.unsubscribe() };
}

const percent = (share: number): string => `${Math.round(share * 1000) / 10} %`;

/** `--cpu-budget`: auto (the cgroup's quota), off, or a share of one core in % (1 to 6400) by hand. */
export function cpuBudgetSetting(text: string): CpuBudgetSetting {
  if (text === 'auto' || text === 'off') return { kind: text };
  if (!/^\d{1,4}(\.\d{1,2})?$/.test(text) || !(Number(text) >= 1 && Number(text) <= 6400)) throw new UsageError(`--cpu-budget: expected auto, off or a share of one core in % (1 to 6400), got ${JSON.stringify(text)}`);
  return { kind: 'share', share: Number(text) / 100 };
}
