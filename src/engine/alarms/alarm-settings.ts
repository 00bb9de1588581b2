// Every threshold of the alarm engine, in one zod schema: the settings file (`--alarm-settings FILE`,
// JSON or YAML, no profile needed) is parsed by it, flags override single fields, and the defaults here
// are what a studio gets with neither.
import * as z from 'zod';
import { AlarmKind } from './alarm.js';

const count = (min: number, max: number) => z.number().int().min(min).max(max);

export const AlarmSettings = z.strictObject({
  /** Evaluations (one per poll) a condition must hold in a row before its alarm is raised. */
  raisePolls: count(1, 1000).default(3),
  /** Evaluations it must not hold in a row before the alarm clears (no flapping at a threshold). */
  clearPolls: count(1, 1000).default(5),
  /** Dropped frames plus breaks within the last minute that raise drops-rising. */
  dropsPerMinute: count(1, 1_000_000).default(1),
  /** Dropped frames plus breaks within the last minute that make it critical. */
  dropsPerMinuteCritical: count(1, 1_000_000).default(250),
  /** Buffered frames at or above this that still rose over bufferGrowingS raise buffer-growing. */
  bufferedFrames: count(1, 1_000_000).default(25),
  bufferGrowingS: z.number().min(1).max(3600).default(5),
  /** A recorder dialog waiting this long for an answer raises dialog-waiting. */
  dialogWaitS: z.number().min(0).max(86_400).default(10),
  /**
   * A take that stops within this many polls of a recdeck command's answer (or while one is under way)
   * was stopped by recdeck: the command runner itself gives an effect three reads to show.
   */
  commandSettlePolls: count(1, 100).default(4),
  /** Cleared alarms kept for GET /alarms. */
  clearedKept: count(1, 10_000).default(100),
  /** Kinds not raised at all. */
  off: z.array(AlarmKind).default([]),
  /** Webhook delivery: attempts per event, the first back-off (doubling), the cap, each request's time limit, events queued per URL. */
  webhook: z
    .strictObject({
      attempts: count(1, 100).default(6),
      backoffMs: count(10, 600_000).default(1000),
      maxBackoffMs: count(10, 3_600_000).default(60_000),
      timeoutMs: count(100, 120_000).default(5000),
      queue: count(1, 100_000).default(1000),
    })
    .prefault({}),
});
export type AlarmSettings = z.output<typeof AlarmSettings>;
export type AlarmSettingsInput = z.input<typeof AlarmSettings>;

export const DEFAULT_ALARM_SETTINGS: AlarmSettings = AlarmSettings.parse({});
