// The bridge's CPU quota as the picture line's budget reads it (src/cli/cpu-quota-watch.ts), over a temp
// folder laid out like /sys/fs/cgroup with its own /proc/self/cgroup: cgroup v2's cpu.max and v1's
// cfs files, the tightest of a group and its parents, "max" and -1, missing files, and garbage (a clear
// sentence naming the file, no budget, no crash); then the watch on virtual time, following a process
// moved into a group after it started, saying each change once.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectorFollowingQuota, scavengeFlagFor } from '../../src/cli/collector-under-quota.js';
import { QUOTA_REREAD_MS, cpuBudgetSetting, readCpuQuota, watchCpuQuota, type CgroupPaths } from '../../src/cli/cpu-quota-watch.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { VirtualTime } from '../support/virtual-time.js';
import { until } from '../support/until.js';

let folder: string;
let paths: CgroupPaths;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-cgroup-'));
  paths = { procCgroup: join(folder, 'proc-self-cgroup'), root: join(folder, 'sys-fs-cgroup') };
  await mkdir(paths.root);
});
afterEach(() => rm(folder, { recursive: true, force: true }));

/**
 * Writes files under the cgroup root (or the proc file, by its name), each whole at once (written beside
 * and renamed), as the kernel's files change: a read under way never sees one half written.
 */
async function lay(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const file = path === 'proc' ? paths.procCgroup : join(paths.root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(`${file}.new`, text);
    await rename(`${file}.new`, file);
  }
}

describe('readCpuQuota', () => {
  it('cgroup v2: the group\'s cpu.max, as a share of a core over its period', async () => {
    await lay({ proc: '0::/recdeck-bench-1-25\n', 'cgroup.controllers': 'cpu io memory\n', 'recdeck-bench-1-25/cpu.max': '2500 10000\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: { share: 0.25, periodMs: 10 }, group: join(paths.root, 'recdeck-bench-1-25') });
  });

  it('cgroup v2: the tightest of the group and those above it (a container\'s limit set on a parent); "max" is none', async () => {
    await lay({ proc: '0::/machine/ct/app\n', 'machine/cpu.max': '150000 100000\n', 'machine/ct/cpu.max': '50000 100000\n', 'machine/ct/app/cpu.max': 'max 100000\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: { share: 0.5, periodMs: 100 }, group: join(paths.root, 'machine/ct') });
    await lay({ 'machine/cpu.max': 'max 100000\n', 'machine/ct/cpu.max': 'max 100000\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: null });
  });

  it('cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us in the cpu hierarchy; -1 is none', async () => {
    await lay({ proc: '12:memory:/x\n4:cpu,cpuacct:/bench/g\n1:name=systemd:/user.slice\n', 'cpu,cpuacct/bench/g/cpu.cfs_quota_us': '1500\n', 'cpu,cpuacct/bench/g/cpu.cfs_period_us': '10000\n', 'cpu,cpuacct/cpu.cfs_quota_us': '-1\n', 'cpu,cpuacct/cpu.cfs_period_us': '100000\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: { share: 0.15, periodMs: 10 }, group: join(paths.root, 'cpu,cpuacct/bench/g') });
    await lay({ 'cpu,cpuacct/bench/g/cpu.cfs_quota_us': '-1\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: null });
  });

  it('no cgroup file, no limit file, or a path outside the namespace: no quota (the root group has no cpu.max), never a crash', async () => {
    expect(await readCpuQuota(paths)).toEqual({ quota: null }); // no /proc/self/cgroup: not Linux
    await lay({ proc: '0::/\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: null });
    await lay({ proc: '0::/user.slice/session-1.scope\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: null });
    // A group outside this cgroup namespace shows as /../…: only the mount (the container's own group) is read.
    await lay({ proc: '0::/../../elsewhere\n', 'cpu.max': '20000 100000\n' });
    expect(await readCpuQuota(paths)).toEqual({ quota: { share: 0.2, periodMs: 100 }, group: paths.root });
  });

  it('garbage is said with the file it is in, and means no quota', async () => {
    await lay({ proc: '0::/g\n', 'g/cpu.max': 'lots\n' });
    expect(await readCpuQuota(paths)).toEqual({ unreadable: `${join(paths.root, 'g/cpu.max')} should hold "max PERIOD" or "QUOTA PERIOD" (µs), not "lots\\n"` });
    await lay({ 'g/cpu.max': '0 100000\n' });
    expect(await readCpuQuota(paths)).toEqual({ unreadable: `${join(paths.root, 'g/cpu.max')}: a quota of 0 µs per 100000 µs is not one a kernel sets` });
    await lay({ proc: 'not a cgroup line\n' });
    expect(await readCpuQuota(paths)).toMatchObject({ unreadable: expect.stringMatching(/proc-self-cgroup is not a list of hierarchy:controllers:path lines: "not a cgroup line/) });
    await lay({ proc: '3:cpu:/g\n', 'cpu/g/cpu.cfs_quota_us': '2500\n' });
    expect(await readCpuQuota(paths)).toEqual({ unreadable: `${join(paths.root, 'cpu/g/cpu.cfs_quota_us')} sets a quota but ${join(paths.root, 'cpu/g/cpu.cfs_period_us')} is missing` });
    await lay({ 'cpu/g/cpu.cfs_quota_us': '2.5e3\n' });
    expect(await readCpuQuota(paths)).toEqual({ unreadable: `${join(paths.root, 'cpu/g/cpu.cfs_quota_us')} should hold a whole number of µs or -1, not "2.5e3\\n"` });
  });
});

describe('watchCpuQuota', () => {
  const logger = () => {
    const lines: string[] = [];
    return { lines, log: { info: (m: string) => void lines.push(`info ${m}`), warn: (m: string) => void lines.push(`warn ${m}`), error: (m: string) => void lines.push(`error ${m}`) } };
  };

  it('follows the process into a group after it started, says each change once, sets the collector for it, and stops reading when stopped', async () => {
    const time = new VirtualTime();
    const { lines, log } = logger();
    const flags: string[] = []; // V8's scavenger flag, as the bridge sets it at each change (collector-under-quota.ts)
    await lay({ proc: '0::/user.slice\n' });
    const watch = await watchCpuQuota({ kind: 'auto' }, time, log, paths, collectorFollowingQuota((flag) => void flags.push(flag)));
    expect(watch?.cpu.quota()).toBeNull();
    expect(lines).toEqual(['info no CPU quota: no CPU budget for pictures']);
    // The clock moves a reread period on at each look, until the watch shows what was laid: a read under
    // way when the files changed may answer with what was there before, and the next one comes.
    const rereadUntil = (check: () => boolean, what: string) =>
      until(() => {
        time.advance(QUOTA_REREAD_MS);
        return check();
      }, what);
    const rereadsBefore = async (n: number) => {
      for (let i = 0; i < n; i++) await rereadUntil(() => true, 'a reread');
    };
    await rereadsBefore(3); // the same each time: said once
    // The bench moves the bridge into its group just after spawning it.
    await lay({ proc: '0::/recdeck-bench\n', 'recdeck-bench/cpu.max': '2500 10000\n' });
    await rereadUntil(() => watch?.cpu.quota() !== null, 'the group\'s quota');
    expect(watch?.cpu.quota()).toEqual({ share: 0.25, periodMs: 10 });
    await lay({ 'recdeck-bench/cpu.max': 'garbage\n' });
    await rereadUntil(() => watch?.cpu.quota() === null, 'the garbage read');
    await lay({ 'recdeck-bench/cpu.max': '1500 10000\n' }); // a container's limit lowered
    await rereadUntil(() => watch?.cpu.quota()?.share === 0.15, 'the lowered quota');
    await rereadUntil(() => lines.length >= 4, 'the lines');
    expect(lines.slice(1)).toEqual([
      `info CPU quota 25 % of a core per 10 ms (${join(paths.root, 'recdeck-bench')}): pictures and the page's frames keep to part of it, leaving the rest to input`,
      `warn CPU quota not known (${join(paths.root, 'recdeck-bench/cpu.max')} should hold "max PERIOD" or "QUOTA PERIOD" (µs), not "garbage\\n"): no CPU budget for pictures`,
      `info CPU quota 15 % of a core per 10 ms (${join(paths.root, 'recdeck-bench')}): pictures and the page's frames keep to part of it, leaving the rest to input`,
    ]);
    // Parallel scavenges (V8's default) until the quota, one thread under it, back without one, one thread again.
    expect(flags).toEqual(['--no-parallel-scavenge', '--parallel-scavenge', '--no-parallel-scavenge']);
    watch?.stop();
    expect(time.nextDue()).toBeNull(); // no timer left: no more reads
  });

  it('the scavenger on one thread under a quota of less than a core only: a core or more, or none, leave V8\'s default', () => {
    expect(scavengeFlagFor({ share: 0.25, periodMs: 10 })).toBe('--no-parallel-scavenge');
    expect(scavengeFlagFor({ share: 0.99, periodMs: 100 })).toBe('--no-parallel-scavenge');
    expect(scavengeFlagFor({ share: 1, periodMs: 100 })).toBe('--parallel-scavenge');
    expect(scavengeFlagFor({ share: 4, periodMs: 100 })).toBe('--parallel-scavenge');
    expect(scavengeFlagFor(null)).toBe('--parallel-scavenge');
  });

  it('off: no budget at all; a share by hand: that share, whatever the cgroup says', async () => {
    const time = new VirtualTime();
    const { lines, log } = logger();
    await lay({ proc: '0::/g\n', 'g/cpu.max': '2500 10000\n' });
    const flags: string[] = [];
    const collector = collectorFollowingQuota((flag) => void flags.push(flag));
    expect(await watchCpuQuota({ kind: 'off' }, time, log, paths, collector)).toBeNull();
    const byHand = await watchCpuQuota(cpuBudgetSetting('40'), time, log, paths, collector);
    expect(flags).toEqual([]); // neither is a quota the kernel holds the process to: the collector is left as it is
    expect(byHand?.cpu.quota()).toEqual({ share: 0.4, periodMs: 10 });
    expect(lines).toEqual(["info CPU budget: pictures and the page's frames keep to part of 40 % of a core (--cpu-budget), leaving the rest to input"]);
    expect(byHand?.cpu.meter.usedMs()).toBeGreaterThan(0); // this process's CPU
  });

  it('--cpu-budget: auto, off or a share of a core in %; anything else is a usage error naming the flag', () => {
    expect(cpuBudgetSetting('auto')).toEqual({ kind: 'auto' });
    expect(cpuBudgetSetting('off')).toEqual({ kind: 'off' });
    expect(cpuBudgetSetting('12.5')).toEqual({ kind: 'share', share: 0.125 });
    for (const bad of ['0', '-5', 'half', '25%', '99999']) expect(() => cpuBudgetSetting(bad)).toThrow(UsageError);
    expect(() => cpuBudgetSetting('half')).toThrow('--cpu-budget: expected auto, off or a share of one core in % (1 to 6400), got "half"');
  });
});
