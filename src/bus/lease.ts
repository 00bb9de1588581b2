// The lease that says which poller polls a recorder, as a pure decision over one state value: each
// event (a lease message, a moment passing) gives the next state and the effects to carry out, so the
// rules are tested without a broker. Every duration is measured on this poller's own clock:
//
// - The holder renews the lease every poll and holds it only while its last renewal that came back
//   from the broker was sent less than a TTL ago: a holder cut off, or stopped (SIGSTOP) and woken,
//   has lost it before it can run anything.
// - Anyone else claims it when no renewal has arrived for the lease's TTL (since it started, for a
//   fresh poller): a dead holder, a holder and standby gone together, a lease nobody signed (ignored
//   before it gets here) all end in a claim within the TTL.
// - A claim is a new term (random) and the next epoch. Leases are ordered by epoch, then term: of two
//   claims of one epoch the higher term holds, for every observer whatever order they arrive in. A
//   lease below the newest seen is an old holder's (or a replay) and is ignored, and so is a renewal
//   not newer than the last of its term: replaying old messages can neither keep a dead holder alive
//   nor unseat a live one.
// - A live lease for another recorder under this name (another URL or token) is never taken over: two
//   recorders under one name are refused loudly until that lease expires.
import type { LeaseMessage, RecorderIdentity } from './topics.js';

export interface LeaseSettings {
  recorder: string;
  /** This poller's id and the recorder it polls. */
  me: string;
  identity: RecorderIdentity;
  /** Renewals are sent this often. */
  renewMs: number;
  /** A lease not renewed for this long has expired (a few renewals). */
  ttlMs: number;
}

export interface OwnLease {
  term: string;
  epoch: number;
  /** When the claim was sent. */
  since: number;
  /** When the last renewal (or the claim) that came back from the broker was sent; null until one has. */
  confirmedSentAt: number | null;
  lastSentAt: number;
}

export interface LeaseState {
  /** The newest lease seen on the topic (highest epoch; the last delivered among equals). */
  seen: LeaseMessage | null;
  /** When a live renewal of `seen` last arrived (or when this poller started): the lease expires its TTL after. */
  renewalSeenAt: number;
  /** This poller's claim, or its lease once the claim came back. */
  own: OwnLease | null;
  holding: boolean;
  /** The term of the last live lease for another recorder under this name that was reported (once per term). */
  conflictTerm: string | null;
  /** While holding: its renewals come back so late that it is one renewal from losing the lease (said once, and again once caught up). */
  behind: boolean;
}

export type LeaseEvent =
  /** A lease whose signature is a poller's allowed for this recorder; retained: the broker's stored copy, not a renewal arriving now. */
  | { kind: 'lease'; lease: LeaseMessage; retained: boolean; now: number }
  | { kind: 'tick'; now: number };

export type LeaseEffect =
  /** A claim or a renewal (both at QoS 1: bus-poller.ts, LEASE_QOS). */
  | { kind: 'publish'; lease: LeaseMessage; claim: boolean }
  /** Start polling and running commands. */
  | { kind: 'hold' }
  /** Stop at once. */
  | { kind: 'release' }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; message: string };

export const initialLease = (now: number): LeaseState => ({ seen: null, renewalSeenAt: now, own: null, holding: false, conflictTerm: null, behind: false });

/** Whether this poller may poll and run a command at `now`: it holds the lease and its last confirmed renewal is younger than the TTL. */
export function holdsAt(state: LeaseState, settings: LeaseSettings, now: number): boolean {
  return state.holding && state.own !== null && state.own.confirmedSentAt !== null && now - state.own.confirmedSentAt < settings.ttlMs;
}

/** The next moment something is due (a renewal, a lapse, an expiry): the driver ticks then. */
export function leaseWakeAt(state: LeaseState, settings: LeaseSettings): number {
  const { own } = state;
  if (state.holding && own) return Math.min(own.lastSentAt + settings.renewMs, (own.confirmedSentAt ?? own.since) + settings.ttlMs);
  if (own) return own.since + settings.ttlMs;
  return state.renewalSeenAt + (state.seen?.ttlMs ?? settings.ttlMs);
}

const sameIdentity = (a: RecorderIdentity, b: RecorderIdentity) => a.url === b.url && a.tokenSha256Prefix === b.tokenSha256Prefix;

/** Which lease is newer: by epoch, then by term (negative: `a` is older). */
export function leaseOrder(a: LeaseMessage, b: LeaseMessage): number {
  return a.epoch - b.epoch || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
}

/** Whether a lease arriving now says anything new: a newer lease, or a later renewal of the same term. */
export function isNewer(lease: LeaseMessage, seen: LeaseMessage | null): boolean {
  if (seen === null) return true;
  const order = leaseOrder(lease, seen);
  return order > 0 || (order === 0 && lease.renewedAt > seen.renewedAt);
}

export function leaseTransition(state: LeaseState, event: LeaseEvent, settings: LeaseSettings, newTerm: () => string): { state: LeaseState; effects: LeaseEffect[] } {
  return event.kind === 'lease' ? onLease(state, event, settings) : onTick(state, event.now, settings, newTerm);
}

function onLease(state: LeaseState, event: Extract<LeaseEvent, { kind: 'lease' }>, settings: LeaseSettings): { state: LeaseState; effects: LeaseEffect[] } {
  const { lease, retained, now } = event;
  const where = `recorder "${settings.recorder}"`;
  if (!isNewer(lease, state.seen)) {
    // A copy of a renewal already seen says nothing; an older lease is an old holder's, or a replay.
    if (state.seen === null || leaseOrder(lease, state.seen) === 0) return { state, effects: [] };
    return { state, effects: [{ kind: 'log', level: 'warn', message: `${where}: ignoring a lease of epoch ${lease.epoch} from "${lease.holder}": epoch ${state.seen.epoch} of "${state.seen.holder}" is newer (an old holder's, or a replay)` }] };
  }
  const own = state.own;
  if (lease.holder === settings.me && own !== null && lease.term === own.term) {
    // Our claim or renewal, back from the broker: what every subscriber now sees.
    const next: LeaseState = { ...state, seen: lease, renewalSeenAt: now, own: { ...own, confirmedSentAt: lease.renewedAt }, holding: true, behind: false };
    if (state.holding && state.behind) return { state: next, effects: [{ kind: 'log', level: 'info', message: `${where}: "${settings.me}" caught up: its renewal sent ${now - lease.renewedAt} ms ago came back` }] };
    if (state.holding) return { state: next, effects: [] };
    return { state: next, effects: [{ kind: 'hold' }, { kind: 'log', level: 'info', message: `${where}: "${settings.me}" holds the lease (epoch ${lease.epoch}) and polls` }] };
  }
  // Another poller's lease (or one this id held before a restart). A claim of ours still on its way
  // stays: if the broker delivers it after this one, it holds (the last delivered wins, for everyone).
  const effects: LeaseEffect[] = [];
  const next: LeaseState = { ...state, seen: lease, renewalSeenAt: retained ? state.renewalSeenAt : now, own: state.holding ? null : own, holding: false, behind: false };
  if (state.holding) {
    effects.push({ kind: 'release' }, { kind: 'log', level: 'warn', message: `${where}: "${settings.me}" lost the lease to "${lease.holder}" (epoch ${lease.epoch}); it stops polling and running commands` });
  }
  const other = `"${lease.holder}" (epoch ${lease.epoch}, ${lease.identity.url}, token sha256 ${lease.identity.tokenSha256Prefix}…)`;
  if (!sameIdentity(lease.identity, settings.identity) && !retained && state.conflictTerm !== lease.term) {
    next.conflictTerm = lease.term;
    effects.push({
      kind: 'log',
      level: 'error',
      message: `${where}: two recorders under one name: ${other} holds the lease and renews it, and "${settings.me}" is for ${settings.identity.url} (token sha256 ${settings.identity.tokenSha256Prefix}…); "${settings.me}" refuses to poll or run commands while that lease is renewed. Give one of them another name.`,
    });
  } else if (state.seen?.term !== lease.term) {
    effects.push({ kind: 'log', level: 'info', message: `${where}: "${settings.me}" stands by: the lease is held by ${other}; it claims it if no renewal arrives for ${lease.ttlMs} ms` });
  }
  return { state: next, effects };
}

function onTick(state: LeaseState, now: number, settings: LeaseSettings, newTerm: () => string): { state: LeaseState; effects: LeaseEffect[] } {
  const where = `recorder "${settings.recorder}"`;
  const { own } = state;
  if (state.holding && own) {
    if (!holdsAt(state, settings, now)) {
      const since = now - (own.confirmedSentAt ?? own.since);
      return {
        state: { ...state, own: null, holding: false, behind: false },
        effects: [{ kind: 'release' }, { kind: 'log', level: 'warn', message: `${where}: "${settings.me}" lost the lease: none of its renewals came back for ${since} ms (TTL ${settings.ttlMs} ms); it stops polling and running commands` }],
      };
    }
    // Falling behind (renewals stuck behind a flood, a stalled machine): said while there is still a
    // renewal's time left, so the log explains the lapse that may follow.
    const since = now - (own.confirmedSentAt ?? own.since);
    const behind = since >= settings.ttlMs - settings.renewMs;
    const warning: LeaseEffect[] =
      behind && !state.behind ? [{ kind: 'log', level: 'warn', message: `${where}: "${settings.me}" is falling behind: its last renewal that came back was sent ${since} ms ago; it loses the lease in ${settings.ttlMs - since} ms unless one comes back` }] : [];
    if (now - own.lastSentAt < settings.renewMs) return { state: behind === state.behind ? state : { ...state, behind }, effects: warning };
    return { state: { ...state, own: { ...own, lastSentAt: now }, behind }, effects: [...warning, { kind: 'publish', lease: leaseOf(settings, own, now), claim: false }] };
  }
  if (own && now - own.since < settings.ttlMs) return { state, effects: [] }; // a claim on its way
  const ttlMs = state.seen?.ttlMs ?? settings.ttlMs;
  if (now - state.renewalSeenAt < ttlMs) return { state: own ? { ...state, own: null } : state, effects: [] };
  const claim: OwnLease = { term: newTerm(), epoch: (state.seen?.epoch ?? 0) + 1, since: now, confirmedSentAt: null, lastSentAt: now };
  const why = state.seen === null ? 'no lease seen' : `no renewal from "${state.seen.holder}" (epoch ${state.seen.epoch}) for ${now - state.renewalSeenAt} ms`;
  return {
    state: { ...state, own: claim },
    effects: [
      { kind: 'publish', lease: leaseOf(settings, claim, now), claim: true },
      { kind: 'log', level: 'info', message: `${where}: "${settings.me}" claims the lease (epoch ${claim.epoch}): ${why}` },
    ],
  };
}

function leaseOf(settings: LeaseSettings, own: OwnLease, now: number): LeaseMessage {
  return { recorder: settings.recorder, identity: settings.identity, holder: settings.me, term: own.term, epoch: own.epoch, renewedAt: now, ttlMs: settings.ttlMs };
}
