// Keeps one recorder's state current: channels, sync and dialog every poll interval, over connections
// of their own; sources, resources, schedule and conversion more slowly. A command asks for an
// immediate re-read instead of waiting for the next tick. Only while the recorder cannot be reached do
// polls back off from the interval to 5 s: a recorder that answers, even badly, is polled at the
// normal pace (and shown stale with its error), so keys are live again at its first good answer.
import {
  BehaviorSubject,
  Subject,
  Subscription,
  defer,
  exhaustMap,
  expand,
  filter,
  from,
  map,
  merge,
  race,
  take,
  timer,
  type Observable,
} from 'rxjs';
import type { RecorderClient } from '../api/client.js';
import { RecorderError } from '../api/errors.js';
import { realTime, type EngineTime } from './engine-time.js';
import { initialRecorderState, type RecorderState, type StatePart } from './recorder-state.js';

export interface PollerOptions {
  /** Fast poll interval (channels, sync, dialog); default 250 ms. */
  pollMs?: number;
  /** Slow poll interval (sources, resources, schedule, conversion): default 5000 ms. They change rarely, and a command that touches them reads them again at once. */
  slowMs?: number;
  /** Longest wait between attempts while failing; default 5000 ms. */
  maxBackoffMs?: number;
  /** The clock and scheduler of every poll; real time by default. */
  time?: EngineTime;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: RecorderError };

/** One state poll: when it was sent and how each of its three reads went. */
interface FastResult {
  sentAt: number;
  channels: Settled<RecorderState['channels']>;
  sync: Settled<RecorderState['sync']>;
  dialog: Settled<RecorderState['dialog']>;
}

export class RecorderPoller {
  readonly pollMs: number;
  private readonly slowMs: number;
  private readonly maxBackoffMs: number;
  private readonly time: EngineTime;
  private readonly subject: BehaviorSubject<RecorderState>;
  private readonly fastNow = new Subject<void>();
  private readonly slowNow = new Subject<void>();
  /** A refresh asked for while a poll was in flight: the next one starts at once. */
  private refreshPending = false;
  private subscription: Subscription | null = null;

  constructor(
    readonly name: string,
    readonly client: RecorderClient,
    options: PollerOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.slowMs = options.slowMs ?? 5000;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.time = options.time ?? realTime;
    this.subject = new BehaviorSubject(initialRecorderState(name, this.pollMs, this.slowMs));
  }

  get state$(): Observable<RecorderState> {
    return this.subject.asObservable();
  }

  get state(): RecorderState {
    return this.subject.value;
  }

  start(): void {
    if (this.subscription) return;
    const { scheduler } = this.time;
    const fast$ = defer(() => this.pollFast()).pipe(
      expand(() => race(timer(this.delayAfter(), scheduler), this.fastNow.pipe(take(1))).pipe(exhaustMap(() => this.pollFast()))),
    );
    const slow$ = merge(timer(0, this.slowMs, scheduler), this.slowNow).pipe(
      filter(() => this.state.lastGoodAt !== null && this.state.failures === 0),
      exhaustMap(() => from(this.pollSlow())),
    );
    this.subscription = merge(fast$.pipe(map((result) => this.applyFast(result))), slow$).subscribe();
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  /** Read channels, sync and dialog again now (after a command), and the slow group too if asked. */
  refresh(slow = false): void {
    this.refreshPending = true;
    this.fastNow.next();
    if (slow) this.slowNow.next();
  }

  private async pollFast(): Promise<FastResult> {
    this.refreshPending = false;
    const timeoutMs = Math.max(1000, this.pollMs * 4);
    const options = { timeoutMs, lane: 'state' as const };
    const sentAt = this.time.now();
    const [channels, sync, dialog] = await Promise.all([settle(this.client.listChannels(options)), settle(this.client.getSyncState(options)), settle(this.client.getDialog(options))]);
    return { sentAt, channels, sync, dialog };
  }

  private applyFast(result: FastResult): void {
    const state = this.state;
    const parts = { channels: result.channels, sync: result.sync, dialog: result.dialog };
    const failures = Object.values(parts).flatMap((part) => (part.ok ? [] : [part.error]));
    // Each read that came back good is taken, with the time it was sent, even when another failed.
    const readAt: Record<StatePart, number | null> = { ...state.readAt };
    for (const [part, settled] of Object.entries(parts) as Array<[keyof typeof parts, Settled<unknown>]>) if (settled.ok) readAt[part] = result.sentAt;
    const next: RecorderState = {
      ...state,
      readAt,
      channels: result.channels.ok ? result.channels.value : state.channels,
      sync: result.sync.ok ? result.sync.value : state.sync,
      dialog: result.dialog.ok ? result.dialog.value : state.dialog,
    };
    const [failure] = failures;
    if (failure === undefined) {
      this.subject.next({ ...next, lastGoodAt: result.sentAt, failures: 0, lastError: null, unreachable: false });
      // First answer, or back after failures: read the slow group now rather than at its next tick.
      if (state.lastGoodAt === null || state.failures > 0) this.slowNow.next();
    } else {
      // Unreachable only when no read got an answer: a recorder that answers some reads is there.
      const unreachable = failures.length === 3 && failures.every((error) => ['network', 'timeout'].includes(error.kind));
      this.subject.next({ ...next, failures: state.failures + 1, lastError: failure.message, unreachable });
    }
  }

  /** The interval while the recorder answers (well or badly); doubling from it up to the cap while it cannot be reached. */
  private delayAfter(): number {
    if (this.refreshPending) return 0;
    const { failures, unreachable } = this.state;
    if (failures === 0 || !unreachable) return this.pollMs;
    return Math.min(this.maxBackoffMs, this.pollMs * 2 ** Math.min(failures, 10));
  }

  private async pollSlow(): Promise<void> {
    const sentAt = this.time.now();
    const [sources, resources, schedule, conversion] = await Promise.all([
      settle(this.client.listSources()),
      settle(this.client.getResources()),
      settle(this.client.getSchedule()),
      settle(this.client.getConversionConfig()),
    ]);
    const state = this.state;
    const readAt: Record<StatePart, number | null> = { ...state.readAt };
    for (const [part, settled] of [['sources', sources], ['resources', resources], ['schedule', schedule], ['conversion', conversion]] as const) if (settled.ok) readAt[part] = sentAt;
    this.subject.next({
      ...state,
      readAt,
      sources: sources.ok ? sources.value : state.sources,
      resources: resources.ok ? resources.value : state.resources,
      schedule: schedule.ok ? schedule.value : state.schedule,
      conversion: conversion.ok ? conversion.value : state.conversion,
    });
  }
}

async function settle<T>(request: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await request };
  } catch (error) {
    return { ok: false, error: asRecorderError(error) };
  }
}

function asRecorderError(error: unknown): RecorderError {
  return error instanceof RecorderError ? error : new RecorderError('network', 'GET', '(poll)', String(error));
}
