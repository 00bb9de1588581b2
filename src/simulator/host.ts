// The recorder's resources snapshot, filled with this host's real figures so the numbers a control
// surface shows move the way a real recorder's would.
import { cpus, totalmem } from 'node:os';
import { readFile, realpath, statfs } from 'node:fs/promises';
import { dirname, parse, resolve } from 'node:path';
import type { Resources } from '../api/app.js';

const MB = 1024 * 1024;
/** Over shorter windows the figures are mostly noise (the host's counters tick every 10 ms). */
const MIN_CPU_WINDOW_MS = 250;

/** Where the CPU counters stand: this process's CPU time, the host's cores' busy and total times, the wall clock. */
export interface CpuMark {
  wallMs: number;
  processMicros: number;
  hostBusyMs: number;
  hostTotalMs: number;
}

interface CpuFigures {
  current: number;
  total: number;
}

export class HostResources {
  /**
   * Before the first sample, the process's start and the host's boot (performance.timeOrigin, cpuUsage
   * and the cores' times all count from there): a mark taken in the constructor would leave the first sample,
   * often taken right after, a window too short to mean anything.
   */
  #since: CpuMark = { wallMs: performance.timeOrigin, processMicros: 0, hostBusyMs: 0, hostTotalMs: 0 };
  #last: CpuFigures | undefined;

  /**
   * @param precise The clock's precise timer (ms since the epoch), the wall of each CPU window.
   * @param readCpu The counters, read through here so a test can give figures the machine's load cannot change.
   */
  constructor(
    precise: () => number,
    private readonly readCpu: () => CpuMark = () => cpuMark(precise),
    private readonly cores: () => number = () => cpus().length,
  ) {}

  /** The snapshot; DiskInfo has one entry per filesystem behind the folders, in the folders' order. */
  async sample(folders: readonly string[]): Promise<Resources> {
    const cpu = this.#cpuFigures();
    return {
      CurrentCPU: cpu.current,
      TotalCPU: cpu.total,
      CurrentRAM: Math.round(process.memoryUsage.rss() / MB),
      TotalRAM: Math.round(totalmem() / MB),
      DiskInfo: await diskUsage(folders),
    };
  }

  /** Percentages of all cores since the previous sample; polls closer together than the minimum window share figures. */
  #cpuFigures(): CpuFigures {
    const now = this.readCpu();
    const since = this.#since;
    if (this.#last !== undefined && now.wallMs - since.wallMs < MIN_CPU_WINDOW_MS) return this.#last;
    const cores = Math.max(1, this.cores());
    const processMs = (now.processMicros - since.processMicros) / 1000;
    this.#last = {
      current: percent(processMs, (now.wallMs - since.wallMs) * cores),
      total: percent(now.hostBusyMs - since.hostBusyMs, now.hostTotalMs - since.hostTotalMs),
    };
    this.#since = now;
    return this.#last;
  }
}

function cpuMark(precise: () => number): CpuMark {
  const { user, system } = process.cpuUsage();
  let hostBusyMs = 0;
  let hostTotalMs = 0;
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.idle + times.irq;
    hostTotalMs += total;
    hostBusyMs += total - times.idle;
  }
  return { wallMs: precise(), processMicros: user + system, hostBusyMs, hostTotalMs };
}

/** part / whole as a percentage from 0 to 100 with one decimal; 0 when nothing was measured. */
function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.round(Math.min(100, Math.max(0, (part / whole) * 100)) * 10) / 10;
}

async function diskUsage(folders: readonly string[]): Promise<Resources['DiskInfo']> {
  const mounts = await mountPoints();
  const pathOnMount = new Map<string, string>();
  for (const folder of folders) {
    const path = await nearestExisting(resolve(folder));
    const mount = mountPointOf(path, mounts);
    if (!pathOnMount.has(mount)) pathOnMount.set(mount, path);
  }
  return Promise.all(
    [...pathOnMount].map(async ([mount, path]) => ({ Key: mount, Value: usedPercent(await statfs(path)) })),
  );
}

/** Used share of the space a non-root user could have, as df computes it (root's reserve is not counted). */
function usedPercent({ blocks, bfree, bavail }: { blocks: number; bfree: number; bavail: number }): number {
  const used = blocks - bfree;
  const usable = used + bavail;
  return usable <= 0 ? 0 : Math.round((used / usable) * 100);
}

/**
 * The real path of the folder, or of its nearest ancestor that can be resolved: a destination folder
 * that is not created yet still lives on the disk its parent is on.
 */
async function nearestExisting(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const parent = dirname(path);
    if (parent === path) throw error;
    return nearestExisting(parent);
  }
}

/** Mount points from /proc/mounts; empty where there is none (not Linux, or no procfs). */
async function mountPoints(): Promise<string[]> {
  let table: string;
  try {
    table = await readFile('/proc/mounts', 'utf8');
  } catch {
    return [];
  }
  return table
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((field) => field !== undefined)
    .map(unescapeMountField);
}

/** /proc/mounts writes space, tab, newline and backslash in paths as octal escapes such as \040. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The longest mount point containing path; the path's root when none is known. */
function mountPointOf(path: string, mounts: readonly string[]): string {
  let best = parse(path).root;
  for (const mount of mounts) {
    const contains = mount === path || path.startsWith(mount.endsWith('/') ? mount : `${mount}/`);
    if (contains && mount.length > best.length) best = mount;
  }
  return best;
}
