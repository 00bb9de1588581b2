// Small statistics for benchmark samples.

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length;
}

/** Wall-clock ms with sub-ms precision, comparable with the simulator's `receivedAt`. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A sleep that can be called off (a limit raced against what it limits must not hold the process once that came). */
export function cancellableSleep(ms: number): { done: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { done, cancel: () => clearTimeout(timer) };
}

/** The bench's one timer: a sleep nobody calls off. */
export const sleep = (ms: number): Promise<void> => cancellableSleep(ms).done;
