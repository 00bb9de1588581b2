// The bench's own flags that need more than parseArgs: the CPU quotas of the small-machine section, the
// section --only names, the counts, and the usage printed for --help or beside any error (a typo in
// --only once ran the whole bench, many minutes, instead of the section meant).

/** Shares of one core a quota may give (at the 10 ms period, 10 % is the kernel's 1 ms minimum). */
const QUOTA_RANGE = { min: 10, max: 100 } as const;

/**
 * `--cpu-quota 25 --cpu-quota 15` or `--cpu-quota 25,15`: whole percents of one core, each once, in the
 * order given. Anything else is an error naming the value.
 */
export function parseCpuQuotas(texts: readonly string[]): number[] {
  const quotas: number[] = [];
  for (const text of texts.flatMap((t) => t.split(','))) {
    const value = Number(text.trim());
    if (!/^\s*\d+\s*$/.test(text) || value < QUOTA_RANGE.min || value > QUOTA_RANGE.max) {
      throw new Error(`--cpu-quota: expected whole percents of one core from ${QUOTA_RANGE.min} to ${QUOTA_RANGE.max} (e.g. 25 or 25,15), got ${JSON.stringify(text)}`);
    }
    if (!quotas.includes(value)) quotas.push(value);
  }
  return quotas;
}

/** Whether bench (i), the desk, is what runs: `--only desk`, or quotas given with no other section named. */
export const deskSelected = (only: string | undefined, quotas: readonly number[]): boolean => only === 'desk' || (only === undefined && quotas.length > 0);

/**
 * `--press-trace` splits each press of bench (i) into hops (press-trace.ts); no other section presses a
 * web deck, so given without (i) it is an error rather than a flag that silently does nothing.
 */
export function parsePressTrace(given: boolean, desk: boolean): boolean {
  if (given && !desk) throw new Error('--press-trace: only bench (i) traces its presses; give it with --cpu-quota (e.g. --cpu-quota 25,15) or --only desk');
  return given;
}

/** The sections `--only` runs alone (main.ts): the desk (i), a (d) row, or one section as JSON. */
export const ONLY_SECTIONS = ['desk', 'load-none', 'load-off', 'load-on', 'idle', 'bus', 'facility', 'press', 'hid'] as const;
export type OnlySection = (typeof ONLY_SECTIONS)[number];

export function parseOnly(text: string | undefined): OnlySection | undefined {
  if (text === undefined) return undefined;
  const section = ONLY_SECTIONS.find((name) => name === text);
  if (section === undefined) throw new Error(`--only: expected one of ${ONLY_SECTIONS.join(', ')}, got ${JSON.stringify(text)}`);
  return section;
}

/** A count flag (--panels, --panel-processes, --curve): a whole number from 1, or absent. */
export function parseCount(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`${flag}: expected a whole number from 1, got ${JSON.stringify(text)}`);
  return Number(text);
}

export const BENCH_USAGE = `usage: npm run bench -- [--quick] [--json] [--only SECTION] [--cpu-quota PERCENT[,PERCENT]] [--press-trace]
                        [--cpu-prof DIR] [--render-thread on|off] [--panels N] [--panel-processes N] [--curve N]

  (no flag)            every section but (i) and the facility's 100 panels, as a table (docs/performance.md)
  --quick              shorter windows: a look, not a figure to quote
  --json               the same figures as JSON
  --only SECTION       one section: ${ONLY_SECTIONS.join(', ')}
  --cpu-quota 25,15    (i), the desk, without a quota and under each (root, a cgroup CPU controller)
  --press-trace        (i)'s presses split into hops
  --cpu-prof DIR       (i)'s bridges write CPU profiles in DIR
  --render-thread on|off  (i)'s bridge renders on a thread of its own, or not
  --panels N, --panel-processes N   the bus and facility sections' panels (default 20 and 100; 5 processes)
  --curve N            with --only load-*: CPU % in N windows of 30 s from the start`;
