// The bench's own flags that need more than parseArgs: the CPU quotas of the small-machine section.

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
