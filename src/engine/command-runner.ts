// Carries out one recorder command from a control: plan it from the confirmed state (toggles of the
// slow group read their value at the press first), refuse it visibly with the reason, or send it exactly
// once; then have the state it touched read again at once, and check in those reads that the recorder
// did what it answered OK to. Every outcome goes to the audit trail.
import { distinctUntilChanged, filter, firstValueFrom, last, map, merge, take, takeWhile, timer } from 'rxjs';
import { messageOf } from '../api/errors.js';
import type { Binding } from '../profiles/schema.js';
import { expectedEffect, planCommand, pressReadOf, type RecorderCommand } from './actions/index.js';
import type { PressRead } from './actions/entry.js';
import type { ExpectedEffect } from './command-effect.js';
import { describeCall, type CommandPlan } from './command-plan.js';
import type { EngineTime } from './engine-time.js';
import type { CommandRecord, Logger } from './log.js';
import { decideGroup, groupOutcome, type MemberPlan, type RecorderGroups } from './recorder-group.js';
import { isFastPart, liveForMs, type RecorderState } from './recorder-state.js';
import type { RecorderHandle } from './session-services.js';

/** When an input happened: wall clock for the audit log, a monotonic sub-ms clock for latencies. */
export interface InputMoment {
  wall: number;
  precise: number;
}

export interface CommandContext {
  surface: string;
  control: string;
  binding: Binding;
  at: InputMoment;
  /** Signed detents of a turn (1 for a press) and a fader's position. */
  input: { amount: number; position: number | null };
  recorders: ReadonlyMap<string, RecorderHandle>;
  /** Names that stand for several recorders (the profile's and the command line's). */
  groups: RecorderGroups;
  defaultRecorder: string;
  time: EngineTime;
  log: Logger;
  audit: (record: CommandRecord) => void;
}

/**
 * ok: the recorder carried it out; failed: the recorder said no, could not be reached, or answered OK
 * and did not do it; refused: not sent (state unknown, stale or offline, no such recorder). The
 * session marks the key from this, with `message` as the reason.
 */
export interface CommandOutcome {
  result: 'ok' | 'failed' | 'refused';
  message: string | null;
}

/** State polls a write's effect must show up within, before it counts as not done. */
const CONFIRM_WITHIN_POLLS = 3;

export function runCommand(action: RecorderCommand, context: CommandContext): Promise<CommandOutcome> {
  const name = action.recorder ?? context.binding.recorder ?? context.defaultRecorder;
  const members = context.groups.get(name);
  return members === undefined ? runOnRecorder(action, context, name) : runOnGroup(action, context, name, members);
}

function runOnRecorder(action: RecorderCommand, context: CommandContext, name: string): Promise<CommandOutcome> {
  const audited = auditedRun(action, context, name);
  const handle = context.recorders.get(name);
  if (!handle) return Promise.resolve(audited.outcome('refused', null, `no recorder named "${name}"`));
  const run = (prepared: Prepared): CommandOutcome | Promise<CommandOutcome> => {
    if (prepared.kind === 'outcome') return audited.outcome(prepared.result, null, prepared.message);
    return carryOut(action, handle, prepared.plan, context, audited.timing).then((done) => audited.outcome(done.result, done.request, done.message));
  };
  const prepared = prepare(action, handle, context);
  // Planning from the state at hand waits for nothing: a refusal is audited, and a request sent, within the press.
  return Promise.resolve(prepared instanceof Promise ? prepared.then(run) : run(prepared));
}

/**
 * A command to a group: planned on every member (each from its own live state, read at the press where
 * the action asks), decided once for all (recorder-group.ts), then sent to every member at once, each
 * answer audited as that member's. Nothing is sent unless every member would be sent the same.
 */
async function runOnGroup(action: RecorderCommand, context: CommandContext, group: string, members: readonly string[]): Promise<CommandOutcome> {
  const missing = members.filter((member) => !context.recorders.has(member));
  if (missing.length > 0) return auditedRun(action, context, group).outcome('refused', null, `${missing.map((m) => `no recorder named "${m}"`).join(', ')} (a member of ${group}); nothing sent`);
  const handles = members.map((member) => context.recorders.get(member) as RecorderHandle);
  const planned = await Promise.all(
    handles.map(async (handle): Promise<MemberPlan> => {
      const prepared = await prepare(action, handle, context);
      return prepared.kind === 'plan' ? { member: handle.name, plan: prepared.plan } : { member: handle.name, failed: prepared.message };
    }),
  );
  const decision = decideGroup(group, planned);
  if (decision.kind === 'refuse') return auditedRun(action, context, group).outcome('refused', null, decision.reason);
  const outcomes = await Promise.all(
    decision.plans.map(async ({ member, plan }) => {
      const handle = context.recorders.get(member) as RecorderHandle;
      const audited = auditedRun(action, context, member);
      const done = await carryOut(action, handle, plan, context, audited.timing);
      return { member, ...audited.outcome(done.result, done.request, done.message) };
    }),
  );
  return groupOutcome(outcomes);
}

/** One command's audit record and log line for one recorder (or a group refused whole), made once at its outcome. */
interface AuditedRun {
  outcome(result: CommandOutcome['result'], request: string | null, message: string | null): CommandOutcome;
  /** When the request left and when its answer came, from the input. */
  timing: { requestAfterMs: number | null; latencyMs: number | null };
}

function auditedRun(action: RecorderCommand, context: CommandContext, recorder: string): AuditedRun {
  const { at, control, log, time } = context;
  const timing: AuditedRun['timing'] = { requestAfterMs: null, latencyMs: null };
  const known = context.recorders.has(recorder) || context.groups.has(recorder);
  return {
    timing,
    outcome: (result, request, message) => {
      context.audit({ at: at.wall, surface: context.surface, control, action: action.action, recorder: known ? recorder : null, request, result, message, requestAfterMs: timing.requestAfterMs, latencyMs: timing.latencyMs ?? time.precise() - at.precise });
      if (result !== 'ok') log.warn(`${context.surface}: ${control}: ${action.action} ${result}${request ? `: ${request}` : ''}: ${message ?? ''}`);
      return { result, message };
    },
  };
}

type Prepared = { kind: 'plan'; plan: Extract<CommandPlan, { kind: 'send' }> } | { kind: 'outcome'; result: 'failed' | 'refused'; message: string };

/** Plans a command on one recorder: from its state, with what the action reads at the press read first (only then is there anything to wait for). */
function prepare(action: RecorderCommand, handle: RecorderHandle, context: CommandContext): Prepared | Promise<Prepared> {
  const readFirst = pressReadOf(action);
  return readFirst ? readThenPlan(action, handle, context, readFirst) : planFrom(action, handle, context, handle.link.state);
}

/** Toggles of the slow group decide from a value read at the press, never from the last slow poll. */
async function readThenPlan(action: RecorderCommand, handle: RecorderHandle, context: CommandContext, part: PressRead): Promise<Prepared> {
  const state = handle.link.state;
  const sentAt = context.time.now();
  const read = part === 'schedule' ? handle.link.call({ method: 'getSchedule', args: [] }) : handle.link.call({ method: 'getConversionConfig', args: [] });
  let value: Awaited<typeof read>;
  try {
    value = await read;
  } catch (error) {
    return { kind: 'outcome', result: 'failed', message: `could not read the ${part} to toggle it: ${reasonOf(error)}` };
  }
  return planFrom(action, handle, context, { ...state, [part]: value, readAt: { ...state.readAt, [part]: sentAt } });
}

function planFrom(action: RecorderCommand, handle: RecorderHandle, context: CommandContext, state: RecorderState): Prepared | Promise<Prepared> {
  const planNow = () =>
    planCommand(action, {
      state,
      now: context.time.now(),
      amount: context.input.amount,
      position: context.input.position,
      liveGain: (source) => handle.extras.liveGain(source),
    });
  const plan = planNow();
  if (plan.kind === 'read-gain-first') return readGainThenPlan(handle, plan.sourceName, planNow);
  return plan.kind === 'refuse' ? { kind: 'outcome', result: 'refused', message: plan.reason } : { kind: 'plan', plan };
}

/**
 * No live gain to step from (nothing shows it, or its reads are old or failing): read it now, and step
 * from it; a step never starts from a gain past its age.
 */
async function readGainThenPlan(handle: RecorderHandle, sourceName: string, planNow: () => CommandPlan): Promise<Prepared> {
  try {
    await handle.extras.readGain(sourceName);
  } catch (error) {
    return { kind: 'outcome', result: 'refused', message: `cannot read the gain of "${sourceName}"; a step never starts from an old gain: ${reasonOf(error)}` };
  }
  const plan = planNow();
  if (plan.kind === 'read-gain-first') return { kind: 'outcome', result: 'refused', message: `the gain of "${sourceName}" is not live even as read at the press (the recorder is offline)` };
  return plan.kind === 'refuse' ? { kind: 'outcome', result: 'refused', message: plan.reason } : { kind: 'plan', plan };
}

/** Sends a planned call exactly once, has what it touched read again, and checks its effect shows (the caller audits the outcome). */
async function carryOut(action: RecorderCommand, handle: RecorderHandle, plan: Extract<CommandPlan, { kind: 'send' }>, context: CommandContext, timing: AuditedRun['timing']): Promise<{ result: CommandOutcome['result']; request: string | null; message: string | null }> {
  const { at, time } = context;
  const request = describeCall(plan.call);
  const send = () => {
    timing.requestAfterMs = time.precise() - at.precise;
    context.log.debug?.(`${context.surface}: ${context.control}: ${action.action}: sending ${request} to "${handle.name}"`);
    return handle.link.call(plan.call);
  };
  try {
    // A gain goes through the extras, which own it for a while (gain-truth.ts) and keep writes to one source in order.
    await (plan.gain ? handle.extras.writeGain(plan.gain.sourceName, plan.gain.db, send) : send());
  } catch (error) {
    timing.latencyMs = time.precise() - at.precise;
    handle.link.refresh(plan.touchesSlowState);
    // A link that knows the request never reached the recorder says so (see RecorderLink.call).
    if ((error as { notRun?: unknown }).notRun === true) return { result: 'refused', request: null, message: reasonOf(error) };
    return { result: 'failed', request, message: reasonOf(error) };
  }
  timing.latencyMs = time.precise() - at.precise;
  context.log.debug?.(`${context.surface}: ${context.control}: ${request}: answered OK in ${Math.round(timing.latencyMs)} ms`);
  const effect = expectedEffect(action, plan.call);
  // Only reads sent from now on can show the write's effect.
  const readsAfter = effect ? effect.parts.map((part) => handle.link.nextReadNumber(part)) : [];
  handle.link.refresh(plan.touchesSlowState);
  if (effect && (await confirmed(handle, effect, readsAfter, time)) === false) return { result: 'failed', request, message: `the recorder answered OK, but ${effect.missing}` };
  return { result: 'ok', request, message: null };
}

/**
 * Whether the effect shows in the reads sent after the answer: true at the first that shows it, false
 * when none of the next few does, null when nothing could be read in time (then it is not judged).
 */
function confirmed(handle: RecorderHandle, effect: ExpectedEffect, readsAfter: number[], time: EngineTime): Promise<boolean | null> {
  const state = handle.link.state;
  const readAfter = (s: RecorderState) => effect.parts.every((part, i) => s.readNumber[part] >= (readsAfter[i] as number));
  const slow = effect.parts.some((part) => !isFastPart(part));
  const verdict$ = handle.link.state$.pipe(
    filter(readAfter),
    // Each new read of the parts counts once (the state changes whenever any part is read).
    distinctUntilChanged((a, b) => effect.parts.every((part) => a.readNumber[part] === b.readNumber[part])),
    // A slow-group part is read once after the command; state polls get a few chances (a recorder may
    // take a moment to start a take).
    take(slow ? 1 : CONFIRM_WITHIN_POLLS),
    map((s) => effect.holds(s)),
    takeWhile((holds) => !holds, true),
    last(undefined, null),
  );
  const giveUp$ = timer(Math.max(...effect.parts.map((part) => liveForMs(state, part))), time.scheduler).pipe(map(() => null));
  return firstValueFrom(merge(verdict$, giveUp$).pipe(take(1)));
}

function reasonOf(error: unknown): string {
  return (error as { serviceMessage?: string }).serviceMessage ?? messageOf(error);
}
