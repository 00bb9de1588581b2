// Keeps one recorder's state current. Channels, sync and dialog are each read every poll interval, each
// in a loop of its own over connections of their own: a slow or failing read of one never holds up or
// ages the others. Sources, resources, schedule and conversion are read more slowly. A command asks for
// an immediate re-read instead of waiting for the next tick. Only while the recorder cannot be reached
// do reads back off from the interval to 5 s: a recorder that answers, even badly, is read at the
// normal pace (and shown stale with its error), so keys are live again at its first good answer.
//
// Which parts are read: every part (a facility's poller, which reads for panels it cannot see), or, on
// demand, only those its owners want now (part-demand.ts: the surfaces in view, the alarm engine, the
// web server). A part wanted is read at once, then at its pace; a part no longer wanted is not read
// again, and keeps its last value with that value's age (shown stale, never live, until read again);
// with nothing wanted the recorder is not asked anything. How the recorder answers (failures, lastError,
// unreachable, lastGoodAt) is judged over the state polls wanted, so a part nobody reads ages nothing.
//
// While the bridge is short of time, sync and dialog are read every other interval (paceBy: the bridge's
// one pace, the meters' and previews'); channels always at the interval. Each answer asks the pace once,
// and that one answer both schedules the next read and is recorded with the value (state.pollEvery), so
// the value's age limit (three of the intervals it was read at) always covers the wait for the next read,
// across any change of pace: a read planned at the old pace still leaves when planned. A command's
// refresh reads at once whatever the pace, and a failed read is followed at the normal pace.
import { BehaviorSubject, Subject, Subscription, exhaustMap, filter, from, merge, timer, type Observable } from 'rxjs';
import type { RecorderClient, RequestOptions } from '../api/client.js';
import { messageOf, RecorderError } from '../api/errors.js';
import type { EngineTime } from './engine-time.js';
import { PartDemand } from './part-demand.js';
import { FAST_PARTS, PACED_PARTS, SLOWEST_POLL_EVERY, SLOW_PARTS, initialRecorderState, type FastPart, type RecorderState, type StatePart } from './recorder-state.js';

/** Every part of the state, in the order they are listed. */
const ALL_PARTS: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];
/** The owner of the standing demand for every part a poller that reads everything has. */
const EVERYTHING = 'every part, always';

export interface PollerOptions {
  /** Fast poll interval (channels, sync, dialog); default 250 ms. */
  pollMs?: number;
  /** Slow poll interval (sources, resources, schedule, conversion): default 5000 ms. They change rarely, and a command that touches them reads them again at once. */
  slowMs?: number;
  /** Longest wait between attempts while failing; default 5000 ms. */
  maxBackoffMs?: number;
  /** The clock and scheduler of every poll; real time by default. */
  time: EngineTime;
  /**
   * 'everything' (the default): every part, always, for whoever reads the state (a facility's poller
   * publishing for panels elsewhere, `recdeck watch`). 'on-demand': only the parts wanted (want()).
   */
  reads?: 'everything' | 'on-demand';
}

type SlowPart = (typeof SLOW_PARTS)[number];

/** A read's outcome, when its answer (or failure) came (a part is as old as the answer that brought it), and its number. */
type Settled<T> = ({ ok: true; value: T } | { ok: false; error: RecorderError }) & { at: number; number: number };

/** How one state read's loop is going. */
interface ReadLoop {
  /** When its last read was sent; the next leaves `every` intervals later. */
  lastSentAt: number;
  /** How many intervals after the last read the next leaves: the pace asked when its answer came (1 after a failure). */
  every: number;
  /** A read is under way (its answer schedules the next while the part is wanted). */
  inFlight: boolean;
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
  /** The parts read, and who wants each. */
  private readonly demand = new PartDemand();
  /** How many intervals apart the paced parts are read now (paceBy); every interval until a bridge says otherwise. */
  private pace: () => number = () => 1;

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
    const loop = (): ReadLoop => ({ lastSentAt: 0, every: 1, inFlight: false, refreshPending: false, failures: 0, unreachable: false, lastError: null, wait: null });
    this.loops = { channels: loop(), sync: loop(), dialog: loop() };
    if ((options.reads ?? 'everything') === 'everything') this.demand.want(EVERYTHING, ALL_PARTS);
  }

  /**
   * What `owner` needs read from now on, replacing what it said before (null: nothing). A part newly
   * wanted is read at once; a part nobody wants any more is not read again.
   */
  want(owner: string, parts: Iterable<StatePart> | null): void {
    const before = new Set(this.demand.parts);
    if (!this.demand.want(owner, parts)) return;
    const running = this.subscription;
    if (running === null) return;
    for (const part of FAST_PARTS) {
      const loop = this.loops[part];
      if (!this.demand.has(part)) {
        // Waiting for its next read: there is none. Under way: its answer is applied, and nothing follows.
        loop.wait?.unsubscribe();
        loop.wait = null;
      } else if (!loop.inFlight && loop.wait === null) this.read(part, running);
    }
    if (SLOW_PARTS.some((part) => this.demand.has(part) && !before.has(part))) {
      this.slowPending = true;
      this.slowNow.next();
    }
    // The recorder's health is judged over the state polls wanted: a loop that stopped counts no more.
    const health = this.health(this.state.readAt);
    const state = this.state;
    if (health.lastGoodAt !== state.lastGoodAt || health.failures !== state.failures || health.lastError !== state.lastError || health.unreachable !== state.unreachable) this.subject.next({ ...state, ...health });
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
    for (const part of FAST_PARTS) {
      // Reads of an earlier run still under way are that run's: their answers end with it.
      this.loops[part].inFlight = false;
      if (this.demand.has(part)) this.read(part, running);
    }
    const slow$ = merge(timer(0, this.slowMs, this.time.scheduler), this.slowNow).pipe(
      filter(() => this.slowMayRead()),
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

  /**
   * Reads sync and dialog `every()` poll intervals apart from their next answer on (1 ..
   * SLOWEST_POLL_EVERY; the bridge's pace of what only moves, picture-pace.ts statePollEvery), asked once
   * at each of their answers. Channels keep the interval.
   */
  paceBy(every: () => number): void {
    this.pace = every;
  }

  /** The number the next read of a part will have: a state whose read number is at least this was read after now. */
  nextReadNumber(part: StatePart): number {
    return this.sent[part] + 1;
  }

  /** Read the state polls wanted again now (after a command), and the slow parts wanted too if asked. */
  refresh(slow = false): void {
    for (const part of FAST_PARTS) {
      if (!this.demand.has(part)) continue;
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
    loop.inFlight = true;
    void this.readFast(part).then((result) => {
      // Stopped (or stopped and started again) while the read was under way: this loop has ended.
      if (this.subscription !== running) return;
      loop.inFlight = false;
      loop.every = this.everyAfter(part, result.ok);
      this.applyFast(part, result, loop.every);
      // Stopped by what the answer set off, or no longer wanted (or read again already, when wanted anew).
      if (this.subscription !== running || !this.demand.has(part) || loop.inFlight) return;
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

  /**
   * How many intervals after this read the part's next leaves: the pace now for a paced part that
   * answered well, whole and within 1 .. SLOWEST_POLL_EVERY; the interval for channels and after a failure
   * (a recorder answering badly is read at the normal pace, so a good answer comes back as soon as it can).
   */
  private everyAfter(part: FastPart, ok: boolean): number {
    if (!ok || !PACED_PARTS.includes(part)) return 1;
    const every = this.pace();
    return Number.isFinite(every) ? Math.min(SLOWEST_POLL_EVERY, Math.max(1, Math.round(every))) : 1;
  }

  private applyFast(part: FastPart, result: Settled<unknown>, every: number): void {
    const state = this.state;
    const loop = this.loops[part];
    const recovered = result.ok && (state.readAt[part] === null || loop.failures > 0);
    if (result.ok) Object.assign(loop, { failures: 0, unreachable: false, lastError: null });
    else Object.assign(loop, { failures: loop.failures + 1, unreachable: ['network', 'timeout'].includes(result.error.kind), lastError: result.error.message });
    const readAt = result.ok ? { ...state.readAt, [part]: result.at } : state.readAt;
    const readNumber = result.ok ? { ...state.readNumber, [part]: result.number } : state.readNumber;
    // The value's interval goes with it: its age limit covers the wait for the next read planned from it.
    const pollEvery = result.ok && state.pollEvery[part] !== every ? { ...state.pollEvery, [part]: every } : state.pollEvery;
    this.subject.next({ ...state, ...(result.ok ? { [part]: result.value } : {}), readAt, readNumber, pollEvery, ...this.health(readAt) });
    // First answer, or back after failures: read the slow group now rather than at its next tick.
    if (recovered && this.slowMayRead()) this.slowNow.next();
  }

  /**
   * How the recorder answers the state polls wanted: when the oldest answer of their last good reads
   * came (null while one was never answered, or none is wanted); a problem with any read shows; the
   * recorder is unreachable only when no read reaches it.
   */
  private health(readAt: RecorderState['readAt']): Pick<RecorderState, 'lastGoodAt' | 'failures' | 'lastError' | 'unreachable'> {
    const parts = FAST_PARTS.filter((p) => this.demand.has(p));
    if (parts.length === 0) return { lastGoodAt: null, failures: 0, lastError: null, unreachable: false };
    const loops = parts.map((p) => this.loops[p]);
    const times = parts.map((p) => readAt[p]);
    return {
      lastGoodAt: times.every((at) => at !== null) ? Math.min(...(times as number[])) : null,
      failures: Math.max(...loops.map((l) => l.failures)),
      lastError: loops.find((l) => l.lastError !== null)?.lastError ?? null,
      unreachable: loops.every((l) => l.unreachable),
    };
  }

  /**
   * The slow parts are read once every state poll wanted has answered well and none is failing (while
   * the recorder cannot be reached, only the state polls try, backing off); with no state poll wanted,
   * at their own pace.
   */
  private slowMayRead(): boolean {
    return FAST_PARTS.every((p) => !this.demand.has(p) || (this.state.readAt[p] !== null && this.loops[p].failures === 0));
  }

  /**
   * While the recorder answers (well or badly), a read leaves its `every` intervals after the last one
   * left, at once if that has passed: latency does not stretch the pace. While it cannot be reached, the wait
   * doubles from the interval up to the cap.
   */
  private delayAfter(part: FastPart): number {
    const loop = this.loops[part];
    if (loop.refreshPending) return 0;
    if (loop.failures === 0 || !loop.unreachable) return Math.max(0, loop.lastSentAt + loop.every * this.pollMs - this.time.now());
    return Math.min(this.maxBackoffMs, this.pollMs * 2 ** Math.min(loop.failures, 10));
  }

  /** Reads the slow parts wanted, again while a re-read was asked for during the last one (a command's effect must be seen, a part newly wanted read). */
  private async pollSlow(): Promise<void> {
    do {
      this.slowPending = false;
      await this.pollSlowOnce();
    } while (this.slowPending && this.subscription);
  }

  private async pollSlowOnce(): Promise<void> {
    const wanted = SLOW_PARTS.filter((part) => this.demand.has(part));
    if (wanted.length === 0) return;
    const read = <T>(part: SlowPart, request: () => Promise<T>) => (wanted.includes(part) ? this.settle(part, request()) : null);
    const [sources, resources, schedule, conversion] = await Promise.all([
      read('sources', () => this.client.listSources()),
      read('resources', () => this.client.getResources()),
      read('schedule', () => this.client.getSchedule()),
      read('conversion', () => this.client.getConversionConfig()),
    ]);
    const state = this.state;
    const results = { sources, resources, schedule, conversion };
    const readAt: Record<StatePart, number | null> = { ...state.readAt };
    const readNumber: Record<StatePart, number> = { ...state.readNumber };
    for (const part of SLOW_PARTS) {
      const result = results[part];
      if (result?.ok) [readAt[part], readNumber[part]] = [result.at, result.number];
    }
    this.subject.next({
      ...state,
      readAt,
      readNumber,
      sources: sources?.ok ? sources.value : state.sources,
      resources: resources?.ok ? resources.value : state.resources,
      schedule: schedule?.ok ? schedule.value : state.schedule,
      conversion: conversion?.ok ? conversion.value : state.conversion,
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
