// The resources snapshot from this host's real figures.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostResources, type CpuMark } from '../../src/simulator/host.js';
import { realClock } from '../../src/api/clock.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-host-'));
  await mkdir(join(folder, 'a'));
  await mkdir(join(folder, 'b'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const hasOneDecimal = (value: number) => Math.round(value * 10) / 10 === value;

function burnCpu(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('HostResources', () => {
  it('reports memory in whole MB: the host installed, and this process\'s resident set', async () => {
    const resources = await new HostResources(realClock.precise).sample([]);
    expect(resources.TotalRAM).toBe(Math.round(totalmem() / 2 ** 20));
    const rss = process.memoryUsage.rss() / 2 ** 20;
    expect(Number.isInteger(resources.CurrentRAM)).toBe(true);
    expect(resources.CurrentRAM).toBeGreaterThan(rss * 0.7);
    expect(resources.CurrentRAM).toBeLessThan(rss * 1.3);
    expect(resources.DiskInfo).toEqual([]);
  });

  it('reports the CPU used since the previous sample as a share of all cores, to one decimal', async () => {
    // Counters as the machine would give them: one core of two busy with this process for 400 ms of
    // wall time, and the host's cores busy 1 s of their 2.4 s since the previous sample.
    let mark: CpuMark = { wallMs: 1000, processMicros: 50_000, hostBusyMs: 9000, hostTotalMs: 30_000 };
    const host = new HostResources(realClock.precise, () => mark, () => 2);
    await host.sample([]);
    mark = { wallMs: 1400, processMicros: 450_000, hostBusyMs: 10_000, hostTotalMs: 32_400 };
    const busy = await host.sample([]);
    expect([busy.CurrentCPU, busy.TotalCPU]).toEqual([50, 41.7]);
    // A poll within 250 ms of the last gives the same figures rather than a noisy reading over a few ms.
    mark = { wallMs: 1500, processMicros: 550_000, hostBusyMs: 10_200, hostTotalMs: 32_600 };
    expect(await host.sample([])).toMatchObject({ CurrentCPU: 50, TotalCPU: 41.7 });
    // Past it, the window runs from the last figures' counters.
    mark = { wallMs: 1800, processMicros: 610_000, hostBusyMs: 10_400, hostTotalMs: 33_200 };
    expect(await host.sample([])).toMatchObject({ CurrentCPU: 20, TotalCPU: 50 });
  });

  it("from this machine's own counters, figures between 0 and 100 with one decimal", async () => {
    const host = new HostResources(realClock.precise);
    await host.sample([]);
    burnCpu(300);
    const busy = await host.sample([]);
    for (const value of [busy.CurrentCPU, busy.TotalCPU]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
      expect(hasOneDecimal(value)).toBe(true);
    }
    expect(busy.TotalCPU).toBeGreaterThan(0);
  });

  it('the very first sample already has meaningful CPU figures', async () => {
    const first = await new HostResources(realClock.precise).sample([]);
    for (const value of [first.CurrentCPU, first.TotalCPU]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
    }
    // This process has been running (loading modules, the tests above) since it started.
    expect(first.CurrentCPU).toBeGreaterThan(0);
  });

  it('gives one entry for folders on the same filesystem, keyed by its mount point, with a whole used percentage', async () => {
    const { DiskInfo } = await new HostResources(realClock.precise).sample([join(folder, 'a'), join(folder, 'b'), folder]);
    expect(DiskInfo).toHaveLength(1);
    const [disk] = DiskInfo;
    const real = await realpath(folder);
    expect(disk!.Key === '/' || real === disk!.Key || real.startsWith(`${disk!.Key}/`)).toBe(true);
    expect(Number.isInteger(disk!.Value)).toBe(true);
    expect(disk!.Value).toBeGreaterThanOrEqual(0);
    expect(disk!.Value).toBeLessThanOrEqual(100);
  });

  it('measures a folder that does not exist yet on the disk of its nearest existing ancestor', async () => {
    const host = new HostResources(realClock.precise);
    const missing = await host.sample([join(folder, 'not', 'created', 'yet')]);
    const existing = await host.sample([folder]);
    expect(missing.DiskInfo.map((disk) => disk.Key)).toEqual(existing.DiskInfo.map((disk) => disk.Key));
    expect(missing.DiskInfo[0]!.Value).toBeGreaterThanOrEqual(0);
    expect(missing.DiskInfo[0]!.Value).toBeLessThanOrEqual(100);
  });

  it.runIf(existsSync('/proc/mounts'))('gives one entry per filesystem, in the folders\' order', async () => {
    const { DiskInfo } = await new HostResources(realClock.precise).sample(['/proc/self', folder, '/proc']);
    expect(DiskInfo).toHaveLength(2);
    // procfs has no blocks, so nothing is used.
    expect(DiskInfo[0]).toEqual({ Key: '/proc', Value: 0 });
    expect(DiskInfo[1]!.Key).not.toBe('/proc');
  });
});
