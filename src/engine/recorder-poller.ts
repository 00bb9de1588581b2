// Keeps one recorder's state current: channels, sync and dialog every poll interval; sources,
// resources, schedule and conversion more slowly. A command asks for an immediate re-read instead of
// waiting for the next tick. While the recorder cannot be reached, polls back off from the interval
// to 5 s, and the first good answer brings the normal pace back.
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
import { initialRecorderState, type RecorderState } from './recorder-state.js';

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

type FastResult = { ok: true; at: number; value: Pick<RecorderState, 'channels' | 'sync' | 'dialog'> } | { ok: false; error: RecorderError };

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
    this.subject = new BehaviorSubject(initialRecorderState(name, this.pollMs));
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
      expand((result) => race(timer(this.delayAfter(result), scheduler), this.fastNow.pipe(take(1))).pipe(exhaustMap(() => this.pollFast()))),
    );
    const slow$ = merge(timer(0, this.slowMs, scheduler), this.slowNow).pipe(
      filter(() => this.state.lastGoodAt !== null && this.state.failures === 0),
      exhaustMap(() => from(this.pollSlow())),
    );
    this.subscription = merge(fast$.pipe(map((r) => this.applyFast(r))), slow$).subscribe();
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
    try {
      const [channels, sync, dialog] = await Promise.all([
        this.client.listChannels({ timeoutMs }),
        this.client.getSyncState({ timeoutMs }),
        this.client.getDialog({ timeoutMs }),
      ]);
      return { ok: true, at: this.time.now(), value: { channels, sync, dialog } };
    } catch (error) {
      return { ok: false, error: asRecorderError(error) };
    }
  }

  private applyFast(result: FastResult): void {
    const state = this.state;
    if (result.ok) {
      this.subject.next({ ...state, ...result.value, lastGoodAt: result.at, failures: 0, lastError: null, unreachable: false });
      // First answer, or back after failures: read the slow group now rather than at its next tick.
      if (state.lastGoodAt === null || state.failures > 0) this.slowNow.next();
    } else {
      const unreachable = ['network', 'timeout'].includes(result.error.kind);
      this.subject.next({ ...state, failures: state.failures + 1, lastError: result.error.message, unreachable });
    }
  }

  /** The interval while answers are good; doubling from it up to the cap while they fail. */
  private delayAfter(result: FastResult): number {
    if (this.refreshPending) return 0;
    if (result.ok) return this.pollMs;
    const failures = this.state.failures;
    return Math.min(this.maxBackoffMs, this.pollMs * 2 ** Math.min(failures, 10));
  }

  private async pollSlow(): Promise<void> {
    const [sources, resources, schedule, conversion] = await Promise.allSettled([
      this.client.listSources(),
      this.client.getResources(),
      this.client.getSchedule(),
      this.client.getConversionConfig(),
    ]);
    const state = this.state;
    this.subject.next({
      ...state,
      sources: sources.status === 'fulfilled' ? sources.value : state.sources,
      resources: resources.status === 'fulfilled' ? resources.value : state.resources,
      schedule: schedule.status === 'fulfilled' ? schedule.value : state.schedule,
      conversion: conversion.status === 'fulfilled' ? conversion.value : state.conversion,
    });
  }
}

function asRecorderError(error: unknown): RecorderError {
  return error instanceof RecorderError ? error : new RecorderError('network', 'GET', '(poll)', String(error));
}
