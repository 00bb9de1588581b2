// The poller's costly work on what panels send (signature checks, parsing, admission, signed answers),
// taken off the MQTT client's receive path and done in slices, so that it never runs ahead of the lease.
//
// mqtt.js hands over every packet of one socket read in a single run of process.nextTick callbacks,
// ahead of every timer and of every other socket. Done there, a flood's first few hundred commands
// (an Ed25519 check each, and a signed refusal for the first ones) were one stretch of work that this
// 2-core machine, loaded by others, spread over more than a second: the lease renewal due meanwhile
// was sent late, and the echo that confirms it was read after the whole stretch (measured on the
// insiders flood at the default poll: the event loop held 1169 ms, the renewal's echo read 703 ms
// after it was sent, the lease lost "for 1192 ms"). Queued here instead, the receive path costs
// microseconds a message (the lease itself is handled there at once), and the queue is worked through
// at most SLICE_MS at a time with a turn for timers and sockets between slices: a renewal is sent and
// its echo read within a slice of being due, whatever a panel sends.
//
// The queue is bounded (the caller refuses what does not fit): each member's messages are already
// limited before they get here (admission.ts, MESSAGE_RATE), this bounds them all together.
import { Subscription, timer } from 'rxjs';
import type { EngineTime } from '../engine/engine-time.js';

/** Work done in one turn of the event loop before timers and sockets get theirs (precise clock). */
export const SLICE_MS = 5;

/** Messages waiting at most, all members together. */
export const MAX_QUEUED = 2000;

export class WorkSlices {
  private readonly queue: Array<() => void> = [];
  private next: Subscription | null = null;

  constructor(
    private readonly time: EngineTime,
    /** A piece of work that threw (a bug): said, and the rest goes on. */
    private readonly failed: (error: unknown) => void,
    private readonly sliceMs = SLICE_MS,
    readonly maxQueued = MAX_QUEUED,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /** Queues `work` to be done in a later turn; false (and not queued) when the queue is full. */
  add(work: () => void): boolean {
    if (this.queue.length >= this.maxQueued) return false;
    this.queue.push(work);
    this.next ??= timer(0, this.time.scheduler).subscribe(() => this.slice());
    return true;
  }

  /** Drops what waits (a stopping poller: what was not done is as if still on the wire); how many were dropped. */
  clear(): number {
    const dropped = this.queue.length;
    this.queue.length = 0;
    this.next?.unsubscribe();
    this.next = null;
    return dropped;
  }

  private slice(): void {
    this.next = null;
    const start = this.time.precise();
    // At least one piece per slice, so a slow piece cannot stop the queue.
    do {
      const work = this.queue.shift();
      if (work === undefined) break;
      try {
        work();
      } catch (error) {
        this.failed(error);
      }
    } while (this.time.precise() - start < this.sliceMs);
    if (this.queue.length > 0) this.next = timer(0, this.time.scheduler).subscribe(() => this.slice());
  }
}
