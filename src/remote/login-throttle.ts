// Password guessing, slowed per client address. A guess counts as wrong the moment it arrives (a Bearer
// request, a login form's headers), before its password is looked at, and stops counting only if it
// proves right: 50 forms sent at once are 50 guesses, not 50 looked at before the first is counted.
// After FREE_FAILURES in a row an address waits 1 s, then 2, 4, … (up to MAX_WAIT_S) before its next
// guess is even taken; a right password clears its count. Logins whose form is still arriving are also
// capped per address, so slow senders cannot pile up whatever the wait. Time is injected so the schedule
// can be tested without waiting.
//
// An IPv6 client is counted by its /64, the block one host or home is given: rotating through the
// addresses of its own block gives no fresh guesses. The table holds at most MAX_GUESSERS, dropping the
// one heard from longest ago, so no stream of new addresses can grow it without bound.
import { isIPv6 } from 'node:net';
import type { EngineTime } from '../engine/engine-time.js';

const FREE_FAILURES = 5;
export const MAX_WAIT_S = 15 * 60;
/** An address not heard from for this long is forgotten (keeps the table small). */
const FORGET_MS = 60 * 60 * 1000;
/** The forgotten are dropped from the table at most this often, not at every guess (a Bearer program sends many). */
const SWEEP_MS = 60 * 1000;
/** Guessers remembered at most (a record is a few dozen bytes). */
export const MAX_GUESSERS = 10_000;
/** Logins from one address whose form is still arriving, at most; the next is refused at once. */
export const DEFAULT_MAX_LOGINS_UNDER_WAY = 8;

interface Failures {
  /** Wrong passwords in a row, the guesses still being looked at included. */
  count: number;
  lastAt: number;
  /** The log has said that this address is throttled (once an episode: until it logs in or is forgotten). */
  throttleSaid: boolean;
}

/** A guess taken: counted as wrong against its address until it proves right. */
export interface Guess {
  /** Wrong passwords in a row from its address with this one. */
  readonly inARow: number;
  /** The password was right: the address starts afresh. */
  right(): void;
  /** It has been answered (or its client went away): it no longer holds a place among the logins under way. */
  finished(): void;
}

export type Arrival =
  | { kind: 'taken'; guess: Guess }
  /** The address guessed too often: nothing of it is looked at for `waitS`. `firstRefusal` starts an episode. */
  | { kind: 'wait'; waitS: number; inARow: number; firstRefusal: boolean }
  /** Too many logins from the address are still arriving. */
  | { kind: 'busy'; underWay: number };

export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();
  /** Guesses taken and not yet answered, per address. */
  private readonly underWay = new Map<string, number>();
  private nextSweepAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly time: Pick<EngineTime, 'now'>,
    private readonly maxUnderWay = DEFAULT_MAX_LOGINS_UNDER_WAY,
    private readonly maxGuessers = MAX_GUESSERS,
  ) {}

  /** A guess from the client address arrives: refused at once, or taken and counted now. */
  arrive(clientAddress: string): Arrival {
    const address = guesserOf(clientAddress);
    const now = this.time.now();
    const record = this.remembered(address, now) ?? { count: 0, lastAt: now, throttleSaid: false };
    const waitS = waitSeconds(record, now);
    if (waitS > 0) {
      const firstRefusal = !record.throttleSaid;
      record.throttleSaid = true;
      return { kind: 'wait', waitS, inARow: record.count, firstRefusal };
    }
    const underWay = this.underWay.get(address) ?? 0;
    if (underWay >= this.maxUnderWay) return { kind: 'busy', underWay };
    record.count += 1;
    record.lastAt = now;
    // Set anew, so the table's order is by when each was last heard from, oldest first.
    this.failures.delete(address);
    if (this.failures.size >= this.maxGuessers) this.failures.delete(this.failures.keys().next().value ?? '');
    this.failures.set(address, record);
    this.underWay.set(address, underWay + 1);
    let answered = false;
    return {
      kind: 'taken',
      guess: {
        inARow: record.count,
        right: () => this.failures.delete(address),
        finished: () => {
          if (answered) return;
          answered = true;
          const left = (this.underWay.get(address) ?? 1) - 1;
          if (left > 0) this.underWay.set(address, left);
          else this.underWay.delete(address);
        },
      },
    };
  }

  /** The address's wrong passwords in a row, unless it has been quiet long enough to be forgotten. */
  private remembered(address: string, now: number): Failures | undefined {
    if (now >= this.nextSweepAt) {
      for (const [key, record] of this.failures) if (now - record.lastAt > FORGET_MS) this.failures.delete(key);
      this.nextSweepAt = now + SWEEP_MS;
    }
    const record = this.failures.get(address);
    return record !== undefined && now - record.lastAt <= FORGET_MS ? record : undefined;
  }
}

/** Seconds the address must still wait before a guess is taken; 0 when it may try. */
function waitSeconds(record: Failures, now: number): number {
  if (record.count < FREE_FAILURES) return 0;
  const waitMs = Math.min(2 ** (record.count - FREE_FAILURES), MAX_WAIT_S) * 1000;
  const left = record.lastAt + waitMs - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/** Who a guess is counted against: an IPv4 address itself, an IPv6 address's /64. */
export function guesserOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
