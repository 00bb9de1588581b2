// The order in which the bridge does its work, in one place: input, then state, then pictures of a
// changed meaning, then pictures that only move, then the page's frames (docs/design.md, "The order of
// work"). On a small machine (a Pi, or a bridge under
// a CPU quota) the pictures of one refresh (32 keys rendered, then framed for a page) are tens of
// milliseconds of CPU in one go; a press that arrives then used to wait for all of it. Here:
//
// - Input (a press, release, dial step) and state (a recorder's answer, a command's outcome) run at
//   once, in the turn they arrive: they never wait behind pictures. Posted from inside a task (which
//   runs synchronously), they run as soon as it returns, before any other waiting work.
// - Pictures (a session's refresh, each control's rendering) and page frames wait in line, the newest
//   per key (latest wins: a newer rendering of a key replaces the one waiting), pictures before frames,
//   and run in slices: a slice runs tasks until its budget (ms on the injected clock) is spent, then
//   hands the thread back (the next slice is a timer on the clock), so the I/O that came meanwhile (a
//   press on a socket, a recorder's answer) is read before the next picture is made.
// - What each slice took is measured: `busyShare()` is the share of the last second spent on pictures
//   and frames, from which `paceMs()` (picture-pace.ts) says how far apart the painter puts the redraws
//   of what only moves.
//
// - Pictures come in two lines: a change of meaning (a key going from REC to STOP, the refresh that
//   derives a recorder's new state) before what only moves (a duration's next second, a data age, a
//   preview, the clock's due refresh). Under a CPU budget pictures are made more slowly than they are
//   asked for; a change of meaning then still goes next, not behind a second's worth of clocks
//   (bench (i) under a 25 % quota: change -> key p99 0.9-1.7 s with one line, docs/performance.md).
//   A key waits in one line only: its task renders its newest picture, so a change of meaning posted
//   for a key waiting as a moving part takes it into the first line, and a moving part posted for a key
//   waiting there stays there.
// - No line waits for ever behind the ones before it: a line that has had no turn for its bound
//   (PICTURES_WAIT_MS for what only moves, FRAMES_WAIT_MS for frames) goes first once.
//
// A task may be async (a rendering waits for sharp): the slice waits for it before the next task, so
// what a task does after its first await is inside the slice's budget too, and two pictures of one key
// are never made at once.
//
// Under a CPU quota, handing the thread back is not enough: the kernel holds every thread once the quota
// of a period is used, and a press that comes then waits for the hold. With a `cpuBudget` (cpu-budget.ts)
// the picture line asks it before each slice (and after each task that awaited, libvips's CPU being
// counted too) and, when the bridge has used its picture share, starts the next slice after the wait it
// says, on a timer of the clock: the CPU is left unused, for input and state, which never ask.
import type { Subscription } from 'rxjs';
import type { EngineTime } from './engine-time.js';
import { LatestWins } from './latest-wins.js';
import { nextStretchMs } from './picture-pace.js';

/**
 * Kinds of work, most urgent first: `meaning` is picture work that changes what a control says (its
 * first drawing, a change sameMeaning (picture-pace.ts) does not pass, a refresh after a state change),
 * `pictures` the rest (what only moves: clocks, data ages, previews, meters).
 */
export type WorkPriority = 'input' | 'state' | 'meaning' | 'pictures' | 'frames';

/** What a task is told about the slice it runs in. */
export interface Slice {
  /** The slice's budget is spent: a task that can stop part way (a page's frames) leaves the rest for the next. */
  spent(): boolean;
}

export type Work = (slice: Slice) => void | Promise<void>;

export interface WorkSchedulerOptions {
  /**
   * A slice's budget, ms on the clock (default 1): the longest picture work runs before I/O is read again.
   * Wall time, which is never less than the thread's CPU time: under a quota or a loaded machine a slice
   * ends sooner in CPU terms, never later. 1 ms, not 2: under a 15 % quota (1.5 ms of CPU per 10 ms
   * period) a 2 ms slice was a whole period held and more (bench (i), docs/performance.md, 2026-11-28).
   */
  sliceMs?: number;
  /** A task that threw (or rejected): said, and the work goes on. */
  onError: (priority: WorkPriority, error: unknown) => void;
  /** Under a CPU quota: how long pictures and frames wait before their next slice (cpu-budget.ts); absent: never. */
  cpuBudget?: PictureBudget;
}

/** What the picture line asks before a slice (CpuBudget). */
export interface PictureBudget {
  /** ms to wait before the next slice; 0: go on. */
  waitMs(): number;
}

/** The window busyShare() is measured over. */
const SHARE_WINDOW_MS = 1000;

/** A line that yields to the ones before it, for at most `maxWaitMs`. */
interface GuardedLine {
  readonly priority: 'pictures' | 'frames';
  readonly line: LatestWins<string, Work>;
  readonly maxWaitMs: number;
  /** When the line last had a turn with work left, or its first task came; null while it is empty. */
  since: number | null;
}

export class WorkScheduler {
  private readonly sliceMs: number;
  /** Input and state posted while a task runs, in order (never merged: each press counts). */
  private readonly urgent: Array<{ priority: WorkPriority; work: Work }> = [];
  /** Pictures of a changed meaning, before those that only move. */
  private readonly changes = new LatestWins<string, Work>();
  private readonly pictures = new LatestWins<string, Work>();
  private readonly frames = new LatestWins<string, Work>();
  /**
   * The lines that yield to the ones before them, each with the longest it waits without a turn: what
   * only moves behind changes of meaning (PICTURES_WAIT_MS), frames behind pictures (FRAMES_WAIT_MS).
   */
  private readonly guarded: readonly GuardedLine[] = [
    { priority: 'pictures', line: this.pictures, maxWaitMs: PICTURES_WAIT_MS, since: null },
    { priority: 'frames', line: this.frames, maxWaitMs: FRAMES_WAIT_MS, since: null },
  ];
  /** A task is running synchronously now (anything posted waits for it to return). */
  private inTask = false;
  /** A slice is under way (maybe waiting for an async task). */
  private slicing = false;
  /** The next slice, on the clock. */
  private nextSlice: Subscription | null = null;
  /** When the slices run back to back in this turn began (their shared budget counts from here). */
  private burstStart = 0;
  /** Set while a turn that ran a slice lasts: cleared by the clock's next turn. */
  private turnMark: Subscription | null = null;
  private windowStart: number;
  private busyInWindow = 0;
  private lastShare = 0;
  /** The pace of what only moves in pictures, from the busy share (picture-pace.ts). */
  private stretch = 0;
  /** Work done so far, for tests and the bench: slices run, and how many ended on their budget. */
  readonly stats = { slices: 0, yields: 0, tasks: 0, budgetWaits: 0 };

  constructor(
    private readonly time: EngineTime,
    private readonly options: WorkSchedulerOptions,
  ) {
    this.sliceMs = options.sliceMs ?? 1;
    this.windowStart = time.precise();
  }

  /**
   * Input or state: runs now (or, posted from inside a task, right after it). Pictures or frames: waits
   * in line under `key` (a newer task for the key takes the waiting one's place), run in a slice that
   * starts now when none is under way. Frames posted with `atTurnEnd` start their slice at the end of the
   * turn instead, so that what one turn draws leaves together.
   */
  post(priority: WorkPriority, key: string, work: Work, atTurnEnd = false): void {
    if (priority === 'input' || priority === 'state') {
      if (this.inTask) this.urgent.push({ priority, work });
      else this.runNow(priority, work);
      return;
    }
    const line = this.lineFor(priority, key);
    const guard = this.guarded.find((g) => g.line === line);
    if (guard !== undefined && line.size === 0) guard.since = this.time.precise();
    line.put(key, work);
    // A slice under way (or one already due on the clock, after a yield) takes it in its turn.
    if (this.slicing || this.inTask || this.nextSlice !== null) return;
    if (atTurnEnd) this.scheduleSlice();
    else this.sliceNow();
  }

  /**
   * The line a picture or frame task waits in. A key waits in one line: a change of meaning takes a key
   * waiting as a moving part out of that line; a moving part of a key whose change waits joins it there
   * (its task renders the newest picture, the change included).
   */
  private lineFor(priority: 'meaning' | 'pictures' | 'frames', key: string): LatestWins<string, Work> {
    if (priority === 'frames') return this.frames;
    if (priority === 'meaning') {
      this.pictures.drop(key);
      return this.changes;
    }
    return this.changes.has(key) ? this.changes : this.pictures;
  }

  /** Drops what waits under `key` (its owner stopped). */
  cancel(key: string): void {
    this.changes.drop(key);
    this.pictures.drop(key);
    this.frames.drop(key);
    for (const guard of this.guarded) if (guard.line.size === 0) guard.since = null;
  }

  /** Pictures and frames waiting, or a slice under way. */
  get busy(): boolean {
    return this.slicing || this.waiting || this.urgent.length > 0;
  }

  /** Picture or frame tasks wait in line. */
  private get waiting(): boolean {
    return this.changes.size > 0 || this.pictures.size > 0 || this.frames.size > 0;
  }

  /**
   * The share of the clock's time that pictures and frames took over the last second (0..1, a slice
   * waiting for an async task counts: the picture line was held). Under a CPU quota a slice that was
   * held by the kernel takes longer, so the share rises as the machine gets tight, which is the point.
   * With a CPU budget the wait for it counts in the same way, from the moment the next slice was put off
   * to its end: the budget holds the line where the kernel did, so the pace still eases the work asked
   * for (what only moves, previews, meters) when pictures want more than their share. Only a wait with
   * work in line is counted, once (never the idle time after the line ran dry): the budget raises the
   * share only once the bridge has used the CPU pictures may have.
   */
  busyShare(): number {
    const now = this.time.precise();
    if (now - this.windowStart >= 2 * SHARE_WINDOW_MS) return 0; // nothing measured for a while: idle
    return this.lastShare;
  }

  /**
   * The least time between two redraws of a control that differ only in what moves (a clock, a meter, a
   * preview): 0 while pictures take little of the time, longer as they take more (picture-pace.ts).
   */
  paceMs(): number {
    if (this.time.precise() - this.windowStart >= 2 * SHARE_WINDOW_MS) this.stretch = 0; // idle a while
    return this.stretch;
  }

  private runNow(priority: WorkPriority, work: Work): void {
    this.inTask = true;
    try {
      const done = work(NEVER_SPENT);
      if (done instanceof Promise) done.catch((error: unknown) => this.options.onError(priority, error));
    } catch (error) {
      this.options.onError(priority, error);
    } finally {
      this.inTask = false;
    }
    this.runUrgent();
    // Pictures it asked for (a state's refresh) start now, frames at the end of the turn, unless a slice
    // under way (or due) will take them.
    if (this.slicing || this.inTask || this.nextSlice !== null) return;
    if (this.changes.size > 0 || this.pictures.size > 0) this.sliceNow();
    else if (this.frames.size > 0) this.scheduleSlice();
  }

  /** Input and state that came while a task ran, in order, before anything else. */
  private runUrgent(): void {
    for (let next = this.urgent.shift(); next !== undefined; next = this.urgent.shift()) this.runNow(next.priority, next.work);
  }

  /**
   * A slice now, in the turn that asked for it. Slices started back to back in one turn (pictures asked
   * for one by one, each from outside any task) share one budget, counted from the first: once it is
   * spent the rest waits for a slice on the clock, so no run of picture work without a look at I/O is
   * longer than a budget (and one task).
   */
  private sliceNow(): void {
    const now = this.time.precise();
    if (this.turnMark !== null && now - this.burstStart >= this.sliceMs) {
      this.stats.yields++;
      return this.scheduleSlice();
    }
    const wait = this.budgetWaitMs();
    if (wait > 0) return this.scheduleSlice(wait);
    if (this.turnMark === null) this.markTurn(); // the first slice of this turn: its budget counts from now
    void this.slice(this.burstStart);
  }

  /** The CPU budget's wait before a slice (0 without one). */
  private budgetWaitMs(): number {
    return this.options.cpuBudget?.waitMs() ?? 0;
  }

  /** A turn's slices begin now: their budget counts from here until the clock's next turn clears the mark. */
  private markTurn(): void {
    this.burstStart = this.time.precise();
    this.turnMark?.unsubscribe();
    this.turnMark = this.time.scheduler.schedule(() => (this.turnMark = null), 0);
  }

  /**
   * The next slice on the clock: on its next turn, or after `wait` ms (the CPU budget's, asked here when
   * not given). The slice then runs without asking again, so that pictures move on at least every
   * MAX_WAIT_MS (cpu-budget.ts) whatever else uses the CPU. The time waited for the budget counts as busy
   * in busyShare (see measure): the picture line was held, as it was when the kernel held the slice.
   */
  private scheduleSlice(wait?: number): void {
    if (this.nextSlice !== null) return;
    const delay = wait ?? this.budgetWaitMs();
    const heldSince = delay > 0 ? this.time.precise() : null;
    if (delay > 0) this.stats.budgetWaits++;
    this.nextSlice = this.time.scheduler.schedule(() => {
      this.nextSlice = null;
      this.markTurn();
      if (!this.slicing) void this.slice(this.burstStart, heldSince);
    }, delay);
  }

  /** The lines in the order they are taken from when none has waited past its bound. */
  private readonly inOrder = [['meaning', this.changes], ['pictures', this.pictures], ['frames', this.frames]] as const;

  /** The most urgent waiting task, taken out of line. */
  private take(): { priority: WorkPriority; work: Work } | null {
    // Each line before the next, but a bridge saturated by the lines before (a small machine, previews
    // moving on every key; a recorder whose every channel changes at every poll) would never draw what
    // only moves, or never send a page what it drew: a line that waited its bound gets a turn first,
    // the one overdue longest first.
    const now = this.time.precise();
    let overdue: GuardedLine | null = null;
    let overdueSince = Infinity; // when the chosen line's bound ran out
    for (const guard of this.guarded) {
      if (guard.since === null || guard.line.size === 0 || now - guard.since < guard.maxWaitMs) continue;
      if (guard.since + guard.maxWaitMs < overdueSince) {
        overdue = guard;
        overdueSince = guard.since + guard.maxWaitMs;
      }
    }
    const order = overdue === null ? this.inOrder : [[overdue.priority, overdue.line] as const, ...this.inOrder];
    for (const [priority, line] of order) {
      const key = line.next();
      if (key === null) continue;
      const work = line.take(key);
      // The line had its turn: its wait starts again if it still holds work.
      const guard = this.guarded.find((g) => g.line === line);
      if (guard !== undefined) guard.since = line.size > 0 ? now : null;
      if (work !== undefined) return { priority, work };
    }
    return null;
  }

  /**
   * Runs what waits, most urgent first, until the budget counted from `budgetFrom` is spent. `heldSince`:
   * when the slice began to wait for the CPU budget (measured as busy from then), or null.
   */
  private async slice(from: number, heldSince: number | null = null): Promise<void> {
    this.slicing = true;
    this.stats.slices++;
    const start = heldSince ?? this.time.precise();
    let budgetFrom = from;
    const slice: Slice = { spent: () => this.time.precise() - budgetFrom >= this.sliceMs };
    try {
      for (let first = true; ; first = false) {
        this.runUrgent();
        // At least one task per slice, so that work always moves on.
        if (!first && slice.spent()) {
          if (this.waiting) {
            this.stats.yields++;
            this.scheduleSlice();
          }
          return;
        }
        const next = this.take();
        if (next === null) return;
        this.stats.tasks++;
        this.inTask = true;
        let done: void | Promise<void> = undefined;
        try {
          done = next.work(slice);
        } catch (error) {
          this.options.onError(next.priority, error);
        } finally {
          this.inTask = false;
        }
        this.runUrgent();
        if (done instanceof Promise) {
          await done.catch((error: unknown) => this.options.onError(next.priority, error));
          // The clock turned while the task waited (for sharp, say): the thread was free, input had its
          // turn, and the budget starts again from here.
          if (this.turnMark === null) {
            this.markTurn();
            budgetFrom = this.burstStart;
          }
          // What the task started off the thread (sharp's decode on libvips's threads) used the quota too.
          const wait = this.budgetWaitMs();
          if (wait > 0 && this.waiting) {
            this.scheduleSlice(wait);
            return;
          }
        }
      }
    } finally {
      this.slicing = false;
      this.measure(this.time.precise() - start);
    }
  }

  private measure(busyMs: number): void {
    const now = this.time.precise();
    this.busyInWindow += busyMs;
    const span = now - this.windowStart;
    if (span < SHARE_WINDOW_MS) return;
    this.lastShare = Math.min(1, this.busyInWindow / span);
    this.stretch = nextStretchMs(this.stretch, this.lastShare);
    this.busyInWindow = 0;
    this.windowStart = now;
  }
}

/**
 * The longest what only moves (a take's clock, a data age, a preview, a meter) waits behind changes of
 * meaning (ms on the clock). Changes come at a recorder's pace (a poll, 250 ms by default), so a stream of
 * them is rare (every channel changing at every poll, a surface flapping), but without a bound it would
 * stop every clock on every key while it lasted; with it a clock shows its second at most this late.
 */
export const PICTURES_WAIT_MS = 500;

/**
 * The longest a page's frames wait behind pictures (ms on the clock). Measured with bench (i) under a
 * 25 % CPU quota: with pictures strictly first, a key's change reached the page after 2.4 s (p99); the
 * page shows what is drawn at least this often, whatever the load.
 */
export const FRAMES_WAIT_MS = 100;

/** Input and state run whole: they are never asked to stop part way. */
const NEVER_SPENT: Slice = { spent: () => false };
