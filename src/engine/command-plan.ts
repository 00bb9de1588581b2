// What planning one recorder command gives: exactly one request, or a refusal with the reason; and the
// rules every action's plan keeps (src/engine/actions/ holds each action's own plan). Pure, so the rules
// are testable without a recorder: a toggle decides from the last confirmed state only while it is live.
import type { Channel } from '../api/channel.js';
import type { RecorderClient } from '../api/client.js';
import { expandPath, operations, type OperationId } from '../api/operations.js';
import { freshnessOf, liveUntil, offlineReason, oldestReadAt, type RecorderState, type StatePart } from './recorder-state.js';

/** A call on the client: its method name and arguments, so it can be described before it is sent. */
export type ClientCall = {
  [K in OperationId]: RecorderClient[K] extends (...args: infer A) => Promise<unknown> ? { method: K; args: A } : never;
}[OperationId];

export type CommandPlan =
  | {
      kind: 'send';
      call: ClientCall;
      /** Re-read the slow group (sources, schedule, conversion) afterwards too. */
      touchesSlowState: boolean;
      /** A gain this sends, so the next step starts from it before the recorder is read again. */
      gain?: { sourceName: string; db: number };
    }
  | { kind: 'refuse'; reason: string }
  /** A gain step whose gain is not live: read the source's gain at the press, then plan again. */
  | { kind: 'read-gain-first'; sourceName: string };

/** What a plan decides from. A command's channel is already a number: "selected" was resolved when it was pressed. */
export interface PlanInputs {
  state: RecorderState;
  /** Now, to tell whether the parts a toggle decides from are young enough. */
  now: number;
  /** Signed detents of a turn (1 for a press). */
  amount: number;
  /** Fader position 0..1, for gain-fader. */
  position: number | null;
  /** The gain (dB) a step may start from (see gain-truth.ts's stepBasis), or null when it must be read first. */
  liveGain: (sourceName: string) => number | null;
}

export const send = (call: ClientCall, touchesSlowState = false): CommandPlan => ({ kind: 'send', call, touchesSlowState });
export const refuse = (reason: string): CommandPlan => ({ kind: 'refuse', reason });

/** A value a toggle may decide from, or the plan that refuses to decide and says why. */
export type Decision<T> = { ok: true; value: T } | { ok: false; plan: CommandPlan };

/** A toggle decides from what it reads only while those parts are live: the value, or the refusal saying why not. */
export function decideFromLive<T>(inputs: PlanInputs, what: string, parts: StatePart[], value: T | null | undefined): Decision<T> {
  const { state, now } = inputs;
  const freshness = freshnessOf(state, now, parts);
  if (freshness === 'live') return value === undefined || value === null ? { ok: false, plan: refuse(`${what} is not known`) } : { ok: true, value };
  if (parts.every((part) => state.readAt[part] === null)) return { ok: false, plan: refuse(`the recorder's state is unknown (not read yet); not deciding a toggle from it`) };
  if (freshness === 'offline') return { ok: false, plan: refuse(`the recorder is offline (${offlineReason(state)}); not deciding a toggle from old data`) };
  return { ok: false, plan: refuse(`the recorder's state is stale (${staleness(state, now, parts)}); not deciding a toggle from it`) };
}

/**
 * How old the parts are against how long they stay live, in the words of a refusal: "read 0.9 s ago, live
 * for 0.75 s after a read". Tenths below 10 s: at the usual polls the limit is under a second, and "read 0 s
 * ago" (whole seconds) read as nonsense beside a refusal for staleness (seen in a test's trail under load).
 */
function staleness(state: RecorderState, now: number, parts: StatePart[]): string {
  const oldest = oldestReadAt(state, parts);
  const until = liveUntil(state, parts);
  if (oldest === null || until === null) return 'not read yet';
  return `read ${seconds(now - oldest)} s ago, live for ${seconds(until - oldest)} s after a read`;
}

/** ms as seconds: to the hundredth below 10 s (0.75, 0.9, 2.5), whole above. */
const seconds = (ms: number): string => String(ms < 10_000 ? Math.round(Math.max(0, ms) / 10) / 100 : Math.round(ms / 1000));

/** A channel's (1-based) confirmed state, for a toggle that decides from it. */
export function liveChannel(inputs: PlanInputs, channel: number): Decision<Channel> {
  return decideFromLive(inputs, `channel ${channel}`, ['channels'], inputs.state.channels?.[channel - 1]);
}

/** A write body with only the fields the action names (the rest keep their value on the recorder). */
export function definedFields<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as T;
}

/** Sends a planned call (the single place a command reaches the client). */
export function sendCall(client: RecorderClient, call: ClientCall): Promise<unknown> {
  const method = client[call.method] as (...args: unknown[]) => Promise<unknown>;
  return method.apply(client, call.args);
}

/** The request a call makes, as "METHOD /path" (names percent-encoded), for the audit log. */
export function describeCall(call: ClientCall): string {
  const operation = operations[call.method];
  const names = [...operation.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
  const params = Object.fromEntries(names.map((name, i) => [name, call.args[i] as string | number]));
  return `${operation.method} ${expandPath(operation.path, params)}`;
}
