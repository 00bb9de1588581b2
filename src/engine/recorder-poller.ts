// Keeps one recorder's state current. Channels, sync and dialog are each read every poll interval, each
// in a loop of its own over connections of their own: a slow or failing read of one never holds up or
// ages the others. Sources, resources, schedule and conversion are read more slowly. A command asks for
// an immediate re-read instead of waiting for the next tick. Only while the recorder cannot be reached
// do reads back off from the interval to 5 s: a recorder that answers, even badly, is read at the
// normal pace (and shown stale with its error), so keys are live again at its first good answer.
import { BehaviorSubject, Subject, Subscription, exhaustMap, filter, from, merge, timer, type Observable } from 'rxjs';
import type { RecorderClient, RequestOptions } from '../api/client.js';
import { messageOf, RecorderError } from '../api/errors.js';
import type { EngineTime } from './engine-time.js';
import { FAST_PARTS, SLOW_PARTS, initialRecorderState, type RecorderState, type StatePart } from './recorder-state.js';

export interface PollerOptions {
  /** Fast poll interval (channels, sync, dialog); default 250 ms. */
  pollMs?: number;
  /** Slow poll interval (sources, resources, schedule, conversion): default 5000 ms. They change rarely, and a command that touches them reads them again at once. */
  slowMs?: number;
  /** Longest wait between attempts while failing; default 5000 ms. */
  maxBackoffMs?: number;
  /** The clock and scheduler of every poll; real time by default. */
  time: EngineTime;
}

type FastPart = (typeof FAST_PARTS)[number];

/** A read's outcome, when its answer (or failure) came (a part is as old as the answer that brought it), and its number. */
type Settled<T> = ({ ok: true; value: T } | { ok: false; error: RecorderError }) & { at: number; number: number };

/** How one state read's loop is going. */
interface ReadLoop {
  /** When its last read was sent; the next leaves one interval later. */
  lastSentAt: number;
  /** A refresh asked for while a read was in flight: the next one leaves at once. */
  refreshPending: boolean;
  /** Failed reads in a row. */
  failures: number;
  /** The last failure could not reach the recorder. */
  unreachable: boolean;
  lastError: string | null;
  /** The next read, scheduled while the loop waits between reads; null while a read is under way. */
  wait: Subscription | null;
}

export class RecorderPoller {
  readonly pollMs: number;
  private readonly slowMs: number;
  private readonly maxBackoffMs: number;
  private readonly time: EngineTime;
  private readonly subject: BehaviorSubject<RecorderState>;
  private readonly slowNow = new Subject<void>();
  private readonly loops: Record<FastPart, ReadLoop>;
  private subscription: Subscription | null = null;
  /** A slow re-read asked for while one was under way: it reads again as soon as it is done. */
  private slowPending = false;
  /** Reads sent so far, per part: each read's number. */
  private readonly sent: Record<StatePart, number> = { channels: 0, sync: 0, dialog: 0, sources: 0, resources: 0, schedule: 0, conversion: 0 };

  constructor(
    readonly name: string,
    readonly client: RecorderClient,
    options: PollerOptions,
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.slowMs = options.slowMs ?? 5000;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.time = options.time;
    this.subject = new BehaviorSubject(initialRecorderState(name, this.pollMs, this.slowMs));
    const loop = (): ReadLoop => ({ lastSentAt: 0, refreshPending: false, failures: 0, unreachable: false, lastError: null, wait: null });
    this.loops = { channels: loop(), sync: loop(), dialog: loop() };
  }

  get state$(): Observable<RecorderState> {
    return this.subject.asObservable();
  }

  get state(): RecorderState {
    return this.subject.value;
  }

  start(): void {
    if (this.subscription) return;
    const running = new Subscription();
    this.subscription = running;
    for (const part of FAST_PARTS) this.read(part, running);
    const slow$ = merge(timer(0, this.slowMs, this.time.scheduler), this.slowNow).pipe(
      filter(() => this.state.lastGoodAt !== null && this.state.failures === 0),
      exhaustMap(() => from(this.pollSlow())),
    );
    running.add(slow$.subscribe());
  }

  stop(): void {
    for (const loop of Object.values(this.loops)) {
      loop.wait?.unsubscribe();
      loop.wait = null;
    }
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  /** The number the next read of a part will have: a state whose read number is at least this was read after now. */
  nextReadNumber(part: StatePart): number {
    return this.sent[part] + 1;
  }

  /** Read channels, sync and dialog again now (after a command), and the slow group too if asked. */
  refresh(slow = false): void {
    for (const part of FAST_PARTS) {
      const loop = this.loops[part];
      loop.refreshPending = true;
      // Waiting for its next read: read now. Under way: the next read leaves as soon as it is answered.
      if (loop.wait && this.subscription) {
        loop.wait.unsubscribe();
        this.read(part, this.subscription);
      }
    }
    if (slow) {
      this.slowPending = true;
      this.slowNow.next();
    }
  }

  /**
   * One turn of a part's loop: sends its read, applies the answer, and schedules the next read. A loop
   * is a plain chain of one scheduled action per read: it runs 12 times a second for as long as the
   * bridge runs, so it makes no observables per read.
   */
  private read(part: FastPart, running: Subscription): void {
    const loop = this.loops[part];
    loop.wait = null;
    void this.readFast(part).then((result) => {
      // Stopped (or stopped and started again) while the read was under way: this loop has ended.
      if (this.subscription !== running) return;
      this.applyFast(part, result);
      if (this.subscription !== running) return; // stopped by what the answer set off
      loop.wait = this.time.scheduler.schedule(() => this.read(part, running), this.delayAfter(part));
    });
  }

  private readFast(part: FastPart): Promise<Settled<unknown>> {
    const loop = this.loops[part];
    loop.refreshPending = false;
    loop.lastSentAt = this.time.now();
    const options: RequestOptions = { timeoutMs: Math.max(1000, this.pollMs * 4), lane: 'state' };
    const request = part === 'channels' ? this.client.listChannels(options) : part === 'sync' ? this.client.getSyncState(options) : this.client.getDialog(options);
    return this.settle<unknown>(part, request);
  }

  private applyFast(part: FastPart, result: Settled<unknown>): void {
    const state = this.state;
    const loop = this.loops[part];
    const recovered = result.ok && (state.readAt[part] === null || loop.failures > 0);
    if (result.ok) Object.assign(loop, { failures: 0, unreachable: false, lastError: null });
    else Object.assign(loop, { failures: loop.failures + 1, unreachable: ['network', 'timeout'].includes(result.error.kind), lastError: result.error.message });
    const readAt = result.ok ? { ...state.readAt, [part]: result.at } : state.readAt;
    const readNumber = result.ok ? { ...state.readNumber, [part]: result.number } : state.readNumber;
    const loops = FAST_PARTS.map((p) => this.loops[p]);
    const times = FAST_PARTS.map((p) => readAt[p]);
    this.subject.next({
      ...state,
      ...(result.ok ? { [part]: result.value } : {}),
      readAt,
      readNumber,
      lastGoodAt: times.every((at) => at !== null) ? Math.min(...(times as number[])) : null,
      // A problem with any read shows; the recorder is unreachable only when no read reaches it.
      failures: Math.max(...loops.map((l) => l.failures)),
      lastError: loops.find((l) => l.lastError !== null)?.lastError ?? null,
      unreachable: loops.every((l) => l.unreachable),
    });
    // First answer, or back after failures: read the slow group now rather than at its next tick.
    if (recovered && this.state.lastGoodAt !== null && this.state.failures === 0) this.slowNow.next();
  }

  /**
   * While the recorder answers (well or badly), a read leaves one interval after the last one left, at
   * once if that has passed: latency does not stretch the pace. While it cannot be reached, the wait
   * doubles from the interval up to the cap.
   */
  private delayAfter(part: FastPart): number {
    const loop = this.loops[part];
    if (loop.refreshPending) return 0;
    if (loop.failures === 0 || !loop.unreachable) return Math.max(0, loop.lastSentAt + this.pollMs - this.time.now());
    return Math.min(this.maxBackoffMs, this.pollMs * 2 ** Math.min(loop.failures, 10));
  }

  /** Reads the slow group, again while a re-read was asked for during the last one (a command's effect must be seen). */
  private async pollSlow(): Promise<void> {
    do {
      this.slowPending = false;
      await this.pollSlowOnce();
    } while (this.slowPending && this.subscription);
  }

  private async pollSlowOnce(): Promise<void> {
    const [sources, resources, schedule, conversion] = await Promise.all([
      this.settle('sources', this.client.listSources()),
      this.settle('resources', this.client.getResources()),
      this.settle('schedule', this.client.getSchedule()),
      this.settle('conversion', this.client.getConversionConfig()),
    ]);
    const state = this.state;
    const results = { sources, resources, schedule, conversion };
    const readAt: Record<StatePart, number | null> = { ...state.readAt };
    const readNumber: Record<StatePart, number> = { ...state.readNumber };
    for (const part of SLOW_PARTS) {
      const result = results[part];
      if (result.ok) [readAt[part], readNumber[part]] = [result.at, result.number];
    }
    this.subject.next({
      ...state,
      readAt,
      readNumber,
      sources: sources.ok ? sources.value : state.sources,
      resources: resources.ok ? resources.value : state.resources,
      schedule: schedule.ok ? schedule.value : state.schedule,
      conversion: conversion.ok ? conversion.value : state.conversion,
    });
  }

  /** Numbers a read as it is sent and stamps its outcome with when it came. */
  private async settle<T>(part: StatePart, request: Promise<T>): Promise<Settled<T>> {
    const number = ++this.sent[part];
    try {
      const value = await request;
      return { ok: true, value, at: this.time.now(), number };
    } catch (error) {
      return { ok: false, error: asRecorderError(error), at: this.time.now(), number };
    }
  }
}

function asRecorderError(error: unknown): RecorderError {
  return error instanceof RecorderError ? error : new RecorderError('network', 'GET', '(poll)', messageOf(error));
}
