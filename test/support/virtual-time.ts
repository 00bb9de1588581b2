// Engine time that tests move by hand: RxJS's VirtualTimeScheduler as the scheduler of every engine
// timer, and its frame as the clock. Nothing runs until the test advances it.
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import type { EngineTime } from '../../src/engine/engine-time.js';

export class VirtualTime implements EngineTime {
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);

  /** Starts at a real date, so that local-time schedules and ages behave as in life. */
  constructor(start = Date.UTC(2026, 10, 23, 9, 0, 0)) {
    this.scheduler.frame = start;
  }

  readonly now = (): number => this.scheduler.frame;
  readonly precise = (): number => this.scheduler.frame;

  /** When the next timer is due, or null when none is scheduled. */
  nextDue(): number | null {
    return this.scheduler.actions[0]?.delay ?? null;
  }

  /** Runs every timer due in the next `ms`, in order, and leaves the clock `ms` on. */
  advance(ms: number): void {
    this.advanceTo(this.now() + ms);
  }

  /** Whether a timer is due at the present moment (one set for "now": the clock's next turn). */
  dueNow(): boolean {
    const due = this.nextDue();
    return due !== null && due <= this.now();
  }

  /**
   * One turn of the timers, the clock not moving: runs those due now that were set before this call, not
   * the ones they set for now (as Node runs a zero-delay timer set by a timer on the next turn of its
   * loop). advanceTo(now()) would run those too, so work that yields to the clock (a WorkScheduler's
   * next slice) would never be seen to.
   */
  turn(): void {
    const { actions } = this.scheduler;
    for (const action of actions.filter((a) => a.delay <= this.scheduler.frame)) {
      const at = actions.indexOf(action);
      if (at < 0) continue; // cancelled by one that ran before it
      actions.splice(at, 1);
      const error = action.execute(action.state, action.delay);
      if (error) throw error;
    }
  }

  /**
   * The thread held for `ms` (a collector's pause, a CPU quota's hold, a loaded machine): the clock moves
   * on and no timer runs. What fell due meanwhile runs late, at the next turn(), as Node runs it when the
   * thread is back: in its loop's timers phase, before the I/O that came meanwhile is read.
   */
  stall(ms: number): void {
    this.scheduler.frame += ms;
  }

  /** Runs every timer due up to `target`, in order, and leaves the clock there. */
  advanceTo(target: number): void {
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = Math.max(this.scheduler.frame, target);
  }
}

/**
 * Turns of the event loop until `quiet` holds for a few turns in a row (sockets and sharp answer on later
 * turns). Bounded in wall time, so a request that never ends fails the test instead of hanging it.
 *
 * With the engine's virtual `time`, each turn of the loop is a turn of its timers too: what is due at the
 * present moment runs, as Node runs a zero-delay timer on its loop's next turn (the WorkScheduler's
 * slice at the end of a turn, the first tick of an interval, an auditTime's window that just closed), and
 * the engine is quiet only when nothing more is due now. Without it, work set for "now" waited for the
 * test's next move of the clock, and a check made in between saw the engine as it never is in life.
 */
export async function settle(quiet: () => boolean, what = 'I/O', time?: VirtualTime): Promise<void> {
  const wallDeadline = Date.now() + 10_000;
  for (let calm = 0; calm < 3; calm = quiet() && !time?.dueNow() ? calm + 1 : 0) {
    if (Date.now() > wallDeadline) throw new Error(`${what} did not settle within 10 s`);
    time?.turn();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Moves virtual time on by `ms`, one due moment after another, letting the real I/O each starts finish. */
export async function advanceWithIo(time: VirtualTime, ms: number, quiet: () => boolean): Promise<void> {
  const target = time.now() + ms;
  await settle(quiet, 'I/O', time);
  for (let due = time.nextDue(); due !== null && due <= target; due = time.nextDue()) {
    time.advanceTo(due);
    await settle(quiet, 'I/O', time);
  }
  time.advanceTo(target);
  await settle(quiet, 'I/O', time);
}

/**
 * Moves virtual time on in steps of `stepMs` until `check` holds, at most `ms` of it (and 10 s of wall
 * time), letting the real I/O each step starts finish. A longer step suits a long wait for something
 * that changes only at polls a second or more apart: the check is still asked several times a poll.
 */
export async function untilWithIo(time: VirtualTime, quiet: () => boolean, check: () => boolean, what: string, ms = 3000, stepMs = 10): Promise<void> {
  const deadline = time.now() + ms;
  const wallDeadline = Date.now() + Math.max(ms, 10_000);
  await settle(quiet, 'I/O', time);
  while (!check()) {
    if (time.now() >= deadline || Date.now() > wallDeadline) throw new Error(`timed out after ${ms} virtual ms waiting for ${what}`);
    await advanceWithIo(time, stepMs, quiet);
  }
}

/**
 * Counts a client's requests under way, and the most under way at once per operation path. With a
 * virtual time and `latencyMs`, each answer reaches the client only once that much virtual time has
 * passed since it was sent (the recorder acted at once, the answer is on its way): requests overlap as
 * they would over a network, deterministically.
 */
export class RequestCounter {
  /** Requests waiting for real I/O (an answer that only waits for virtual time is not). */
  inFlight = 0;
  latencyMs = 0;
  /** Latency for requests whose operation path starts with a prefix; the longest matching prefix wins over `latencyMs`. */
  readonly latencyByPath = new Map<string, number>();
  private readonly current = new Map<string, number>();
  private readonly peaks = new Map<string, number>();

  constructor(
    client: { send: (...args: never[]) => Promise<unknown> },
    private readonly time?: VirtualTime,
  ) {
    const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
    client.send = (async (...args: unknown[]) => {
      const path = (args[0] as { path: string }).path;
      const sentAt = this.time?.now() ?? 0;
      const now = (this.current.get(path) ?? 0) + 1;
      this.current.set(path, now);
      this.peaks.set(path, Math.max(now, this.peaks.get(path) ?? 0));
      try {
        this.inFlight++;
        let answer: { ok: true; value: unknown } | { ok: false; error: unknown };
        try {
          answer = { ok: true, value: await send(...args) };
        } catch (error) {
          answer = { ok: false, error };
        } finally {
          this.inFlight--;
        }
        const wait = this.time ? sentAt + this.latencyOf(path) - this.time.now() : 0;
        if (this.time && wait > 0) await new Promise((resolve) => this.time?.scheduler.schedule(() => resolve(undefined), wait));
        if (!answer.ok) throw answer.error;
        return answer.value;
      } finally {
        this.current.set(path, (this.current.get(path) ?? 1) - 1);
      }
    }) as typeof client.send;
  }
  readonly quiet = (): boolean => this.inFlight === 0;

  private latencyOf(path: string): number {
    const prefix = [...this.latencyByPath.keys()].filter((p) => path.startsWith(p)).sort((a, b) => b.length - a.length)[0];
    return prefix === undefined ? this.latencyMs : (this.latencyByPath.get(prefix) as number);
  }

  /** The most requests of one operation (its path template, e.g. "/api/channels/{index}/preview") under way at once. */
  peak(pathTemplate: string): number {
    return this.peaks.get(pathTemplate) ?? 0;
  }
}
