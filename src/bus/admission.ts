// Whether a poller takes a signed command, decided before anything is stored for it, cheapest and
// most telling check first. Before its signature is checked or its JSON parsed, the message counts
// against its topic's member's message rate (arrive: MESSAGE_RATE; the broker's ACL ties the topic to
// the login, so only that login can spend it): a flood costs a token bucket per message, not an Ed25519
// verification, and those over it are not answered (an answer per message would be a flood of its own).
// Then, signed and parsed: the sender's rate (every signed command takes a token, refused or not, so
// a flood of refusals is as limited as a flood of presses), then what the facility file lets it call,
// then a deadline no further ahead than MAX_DEADLINE_AHEAD_MS and not past, then the arguments its
// operation takes. The id's length is the command schema's (topics.ts). Only a command admitted here
// is remembered for de-duplication (recent-commands.ts) and may run. A panel's acknowledgement of alarms
// (admitAck) takes the same checks: a write's token, the facility's leave (control), its deadline.
//
// A member that keeps sending over its rate is not answered at all for a cool-down (COOL_DOWN_MS): its
// messages are dropped on arrival, before their signature is checked, so it costs the poller nothing.
// It comes back from a cool-down without a burst (a token of each kind, no refusals for rate answered,
// refilled at its rates from then on): a flood that goes on is cooled down again at its second message,
// instead of a burst and as many refusals each time (560 messages, each read and most verified, per
// cool-down of a flood longer than one); a panel that calmed down has its bursts back within seconds.
import type { OperationId } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';
import { argumentError, isClientCall } from './command-args.js';
import { COOL_DOWN_MS, MAX_DEADLINE_AHEAD_MS, MESSAGE_RATE, READ_RATE, WRITE_RATE } from './limits.js';
import { OPERATION_GROUP } from './operation-groups.js';
import { TokenBucket } from './token-bucket.js';
import type { AlarmAckMessage, CommandMessage } from './topics.js';

/** Why a command was refused: `kind` groups refusals for the counted summary, `why` is said to the sender. */
export interface Refusal {
  kind: string;
  why: string;
}

export type Admission =
  | { verdict: 'admit'; call: ClientCall }
  /** Answered with `why`; it did not run and never will. */
  | { verdict: 'refuse'; refusal: Refusal }
  /** Over its rate again and again: not answered; the member is ignored until `until`. */
  | { verdict: 'cool-down'; refusal: Refusal; until: number };

type RateKind = 'reads' | 'writes' | 'messages';

interface MemberRate {
  reads: TokenBucket;
  writes: TokenBucket;
  /** Every message on its command topic, before anything is read of it. */
  messages: TokenBucket;
  /** Refusals for rate it may still get (answered, for reads and writes) before the cool-down: as many as a burst. */
  patience: Record<RateKind, TokenBucket>;
  coolingUntil: number;
}

const RATES = { reads: READ_RATE, writes: WRITE_RATE, messages: MESSAGE_RATE } as const;

/**
 * Each member's rates and cool-down, on the poller's clock (given with every call). Members are the
 * facility file's (a signature said who it is), so the map is as large as the facility; on an
 * insecure bus anyone is anyone, and the map is cut back to MAX_MEMBERS.
 */
export class MemberRates {
  private readonly members = new Map<string, MemberRate>();

  constructor(private readonly maxMembers = 1000) {}

  /** Whether a member's messages are dropped unread now (it is in a cool-down). */
  coolingDown(member: string, now: number): boolean {
    const rate = this.members.get(member);
    return rate !== undefined && now < rate.coolingUntil;
  }

  /** A message arrives on `member`'s command topic, unread: null when it may be read; otherwise a refusal (not answered) or the cool-down it starts now. */
  arrive(member: string, now: number): Exclude<Admission, { verdict: 'admit' }> | null {
    return this.take(member, 'messages', now);
  }

  /** Takes a token of `kind` for a signed command: null when it has one; otherwise the refusal, or the cool-down it starts now. */
  take(member: string, kind: RateKind, now: number): Exclude<Admission, { verdict: 'admit' }> | null {
    const rate = this.of(member, now);
    if (rate[kind].take(now)) return null;
    const { perS } = RATES[kind];
    const refusal = { kind: `more than ${perS} ${kind} a second`, why: `"${member}" sends more than ${perS} ${kind} a second` };
    if (rate.patience[kind].take(now)) return { verdict: 'refuse', refusal };
    rate.coolingUntil = now + COOL_DOWN_MS;
    return { verdict: 'cool-down', refusal, until: rate.coolingUntil };
  }

  private of(member: string, now: number): MemberRate {
    const known = this.members.get(member);
    if (known !== undefined && (known.coolingUntil === Number.NEGATIVE_INFINITY || now < known.coolingUntil)) return known;
    if (known === undefined && this.members.size >= this.maxMembers) this.members.clear();
    // New, with full bursts; or back from a cool-down, without (see the file's comment), from its end.
    const rate = known === undefined ? fresh(now, null) : fresh(known.coolingUntil, 1);
    this.members.set(member, rate);
    return rate;
  }
}

/** A member's buckets from `at`: full bursts (tokens null), or `tokens` of each kind and no patience. */
function fresh(at: number, tokens: number | null): MemberRate {
  const bucket = (kind: RateKind, start: number | null) => new TokenBucket(RATES[kind].perS, RATES[kind].burst, at, start ?? RATES[kind].burst);
  const patience = tokens === null ? null : 0;
  return {
    reads: bucket('reads', tokens),
    writes: bucket('writes', tokens),
    messages: bucket('messages', tokens),
    patience: { reads: bucket('reads', patience), writes: bucket('writes', patience), messages: bucket('messages', patience) },
    coolingUntil: Number.NEGATIVE_INFINITY,
  };
}

export interface AdmissionContext {
  /** The recorder the poller polls. */
  recorder: string;
  /** Whether the facility lets `member` call `method` on it. */
  mayCall: (member: string, method: OperationId) => boolean;
  rates: MemberRates;
  now: number;
}

/** The checks, in order (see the file's comment). */
export function admit(from: string, command: CommandMessage, context: AdmissionContext): Admission {
  const { call, deadline } = command;
  const { now, recorder } = context;
  const over = context.rates.take(from, OPERATION_GROUP[call.method] === 'read' ? 'reads' : 'writes', now);
  if (over !== null) return over;
  const refuse = (kind: string, why: string): Admission => ({ verdict: 'refuse', refusal: { kind, why } });
  if (!context.mayCall(from, call.method)) return refuse(`not allowed to call ${call.method}`, `the facility file does not let "${from}" call ${call.method} on "${recorder}"`);
  const late = deadlineRefusal(deadline, now);
  if (late !== null) return { verdict: 'refuse', refusal: late };
  if (!isClientCall(call)) return refuse(`wrong arguments to ${call.method}`, argumentError(call) ?? `wrong arguments to ${call.method}`);
  return { verdict: 'admit', call };
}

/** A deadline too far ahead (a clock that is off, or a forger) or past. */
function deadlineRefusal(deadline: number, now: number): Refusal | null {
  if (deadline - now > MAX_DEADLINE_AHEAD_MS) return { kind: 'deadline too far ahead', why: `its deadline is ${deadline - now} ms ahead of this poller's clock (more than ${MAX_DEADLINE_AHEAD_MS}): the sender's clock is off` };
  if (deadline <= now) return { kind: 'arrived after its deadline', why: `it arrived ${now - deadline} ms after its deadline` };
  return null;
}

export interface AckAdmissionContext {
  recorder: string;
  /** Whether the facility lets `member` acknowledge this recorder's alarms (BusAuthority.mayAckAlarms). */
  mayAck: (member: string) => boolean;
  rates: MemberRates;
  now: number;
}

/**
 * The same checks for a panel's acknowledgement of alarms (bus-alarm-ack.ts): it takes a write's token
 * (it changes what every panel shows), then the facility's leave, then its deadline.
 */
export function admitAck(from: string, command: AlarmAckMessage, context: AckAdmissionContext): Exclude<Admission, { verdict: 'admit' }> | { verdict: 'admit' } {
  const over = context.rates.take(from, 'writes', context.now);
  if (over !== null) return over;
  if (!context.mayAck(from)) return { verdict: 'refuse', refusal: { kind: 'not allowed to acknowledge alarms', why: `the facility file does not let "${from}" acknowledge the alarms of "${context.recorder}" (it needs control there)` } };
  const late = deadlineRefusal(command.deadline, context.now);
  return late === null ? { verdict: 'admit' } : { verdict: 'refuse', refusal: late };
}
