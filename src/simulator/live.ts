// Values that move on their own while the simulated recorder runs: frame rate, counters and meters.
import type { Random } from './random.js';

/** Silence on the meters, in dBFS. */
export const METER_FLOOR_DB = -90;

/** A recording frame rate a little under the source's, as a real capture shows. */
export function measuredFps(sourceFps: number, random: Random): number {
  return Math.max(0, sourceFps - random() * 0.04);
}

export interface Counters {
  breaks: number;
  drops: number;
  buffered: number;
}

/** One second of recording: rare drops, rarer breaks; buffered frames follow the stream buffer. */
export function advanceCounters(counters: Counters, streamBuffer: number, random: Random): Counters {
  const drops = random() < 0.03 ? 1 + Math.floor(random() * 3) : 0;
  const breaks = random() < 0.002 ? 1 : 0;
  return {
    breaks: counters.breaks + breaks,
    drops: counters.drops + drops,
    buffered: Math.round(streamBuffer * 12 + random() * 4),
  };
}

/**
 * Two audio channels of programme-like level (around -18 dBFS, moving with time) plus the gain,
 * clipped at 0 dBFS. Silent when no channel uses the source.
 */
export function audioMeters(inUse: boolean, gainDb: number, timeMs: number, seed: number): number[] {
  if (!inUse) return [METER_FLOOR_DB, METER_FLOOR_DB];
  return [0, 1].map((ch) => {
    const t = timeMs / 1000 + seed * 7.3 + ch * 0.37;
    const programme = -18 + 6 * Math.sin(t * 2.1) + 3 * Math.sin(t * 7.7 + ch);
    return Math.round(Math.min(0, Math.max(METER_FLOOR_DB, programme + gainDb)) * 10) / 10;
  });
}
