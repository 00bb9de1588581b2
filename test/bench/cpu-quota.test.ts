// The small-machine bench puts the bridge in a cgroup with a CPU quota. What it writes is checked against a
// folder laid out like /sys/fs/cgroup (plain files stand for the kernel's control files; removing a
// group removes its folder, as rmdir does on cgroupfs); the kernel's own checks are met in the real run.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCpuQuota, findCpuCgroup, nodeCgroupFiles, parseCpuStat, quotaFiles, throttlingSince, type CgroupFiles } from '../../src/bench/cpu-quota.js';

let root = '';
afterEach(() => rm(root, { recursive: true, force: true }));

/** node's file operations, except that a group's folder goes with its files, as on cgroupfs. */
const files: CgroupFiles = { ...nodeCgroupFiles, removeGroup: (path) => rm(path, { recursive: true }) };

async function v1Root(): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'recdeck-cgroup-'));
  await mkdir(join(root, 'cpu'));
  await writeFile(join(root, 'cpu', 'cpu.cfs_quota_us'), '-1\n');
  await writeFile(join(root, 'cpu', 'cgroup.procs'), '');
  return root;
}

describe('finding the cpu controller', () => {
  it('finds v1 when only its cpu hierarchy is there', async () => {
    expect(await findCpuCgroup(await v1Root(), files)).toEqual({ version: 'v1', folder: join(root, 'cpu') });
  });

  it('prefers v2 when the unified hierarchy offers cpu, and not when it does not', async () => {
    await v1Root();
    await writeFile(join(root, 'cgroup.controllers'), 'cpuset io memory pids\n');
    expect(await findCpuCgroup(root, files)).toEqual({ version: 'v1', folder: join(root, 'cpu') });
    await writeFile(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    expect(await findCpuCgroup(root, files)).toEqual({ version: 'v2', folder: root });
  });

  it('says why when neither is there', async () => {
    root = await mkdtemp(join(tmpdir(), 'recdeck-cgroup-'));
    const found = await findCpuCgroup(root, files);
    expect(found).toEqual({ unusable: expect.stringContaining(`neither cgroup v2 offering the cpu controller (${join(root, 'cgroup.controllers')})`) });
  });
});

describe('the quota files', () => {
  it('v1: the period first, then the quota, in µs; v2: cpu.max', () => {
    expect(quotaFiles('v1', 25)).toEqual([['cpu.cfs_period_us', '10000\n'], ['cpu.cfs_quota_us', '2500\n']]);
    expect(quotaFiles('v1', 15)).toEqual([['cpu.cfs_period_us', '10000\n'], ['cpu.cfs_quota_us', '1500\n']]);
    expect(quotaFiles('v2', 15)).toEqual([['cpu.max', '1500 10000\n']]);
  });

  it("refuses a quota under the kernel's 1 ms minimum", () => {
    expect(() => quotaFiles('v1', 5)).toThrow("500 µs, under the kernel's 1 ms minimum");
    expect(quotaFiles('v1', 5, 100_000)).toEqual([['cpu.cfs_period_us', '100000\n'], ['cpu.cfs_quota_us', '5000\n']]);
  });
});

describe('a group', () => {
  it('v1: made with its quota, takes a process, reads its throttling, and is removed with what is left moved back', async () => {
    const found = await findCpuCgroup(await v1Root(), files);
    if ('unusable' in found) throw new Error(found.unusable);
    const group = await createCpuQuota(found, 'recdeck-bench-1', 25, files);
    expect(group.path).toBe(join(root, 'cpu', 'recdeck-bench-1'));
    expect(await readFile(join(group.path, 'cpu.cfs_period_us'), 'utf8')).toBe('10000\n');
    expect(await readFile(join(group.path, 'cpu.cfs_quota_us'), 'utf8')).toBe('2500\n');
    await group.add(4242);
    expect(await readFile(join(group.path, 'cgroup.procs'), 'utf8')).toBe('4242\n');
    await writeFile(join(group.path, 'cpu.stat'), 'nr_periods 900\nnr_throttled 120\nthrottled_time 4600000000\nnr_bursts 0\nburst_time 0\n');
    expect(await group.throttling()).toEqual({ periods: 900, throttled: 120, throttledMs: 4600 });
    await group.remove();
    expect(existsSync(group.path)).toBe(false);
    expect(await readFile(join(root, 'cpu', 'cgroup.procs'), 'utf8')).toBe('4242\n');
  });

  it('v2: hands cpu down from the parent first, then writes cpu.max', async () => {
    root = await mkdtemp(join(tmpdir(), 'recdeck-cgroup-'));
    await writeFile(join(root, 'cgroup.controllers'), 'cpu io memory\n');
    await writeFile(join(root, 'cgroup.subtree_control'), 'memory\n');
    const group = await createCpuQuota({ version: 'v2', folder: root }, 'recdeck-bench-2', 15, files);
    expect(await readFile(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
    expect(await readFile(join(group.path, 'cpu.max'), 'utf8')).toBe('1500 10000\n');
    await writeFile(join(group.path, 'cpu.stat'), 'usage_usec 5\nnr_periods 10\nnr_throttled 3\nthrottled_usec 1500\n');
    expect(await group.throttling()).toEqual({ periods: 10, throttled: 3, throttledMs: 1.5 });
  });

  it('says where and why when the group cannot be made, and makes nothing', async () => {
    const found = await findCpuCgroup(await v1Root(), files);
    if ('unusable' in found) throw new Error(found.unusable);
    const refusing: CgroupFiles = { ...files, mkdir: async () => Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })) };
    await expect(createCpuQuota(found, 'g', 25, refusing)).rejects.toThrow(`could not make the cgroup ${join(root, 'cpu', 'g')}: EACCES: permission denied (a CPU quota needs root and a writable cgroup hierarchy)`);
  });
});

describe('cpu.stat', () => {
  it('v1 counts held time in ns, v2 in µs; a window is the difference', () => {
    const a = parseCpuStat('v1', 'nr_periods 100\nnr_throttled 10\nthrottled_time 2000000\n');
    const b = parseCpuStat('v1', 'nr_periods 350\nnr_throttled 40\nthrottled_time 9000000\n');
    expect(throttlingSince(a, b)).toEqual({ periods: 250, throttled: 30, throttledMs: 7 });
  });

  it('names a missing counter', () => {
    expect(() => parseCpuStat('v2', 'usage_usec 5\nnr_periods 10\n')).toThrow('cpu.stat has no nr_throttled');
  });
});
