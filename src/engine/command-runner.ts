// Carries out one recorder command from a control: plan it from the confirmed state (toggles of the
// slow group read their value at the press first), refuse it visibly with the reason, or send it exactly
// once; then have the state it touched read again at once, and check in those reads that the recorder
// did what it answered OK to. Every outcome goes to the audit trail.
import { distinctUntilChanged, filter, firstValueFrom, last, map, merge, take, takeWhile, timer } from 'rxjs';
import { messageOf } from '../api/errors.js';
import type { Binding } from '../profiles/schema.js';
import { expectedEffect, planCommand, pressReadOf, type RecorderCommand } from './actions/index.js';
import type { ExpectedEffect } from './command-effect.js';
import { describeCall } from './command-plan.js';
import type { EngineTime } from './engine-time.js';
import type { CommandRecord, Logger } from './log.js';
import { liveForMs, type RecorderState } from './recorder-state.js';
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

export async function runCommand(action: RecorderCommand, context: CommandContext): Promise<CommandOutcome> {
  const { at, control, log, time } = context;
  const name = action.recorder ?? context.binding.recorder ?? context.defaultRecorder;
  const handle = context.recorders.get(name);
  const where = `${context.surface}: ${control}`;
  let requestAfterMs: number | null = null;
  let latencyMs: number | null = null;
  const outcome = (result: CommandOutcome['result'], request: string | null, message: string | null): CommandOutcome => {
    context.audit({ at: at.wall, surface: context.surface, control, action: action.action, recorder: handle ? name : null, request, result, message, requestAfterMs, latencyMs: latencyMs ?? time.precise() - at.precise });
    if (result !== 'ok') log.warn(`${where}: ${action.action} ${result}${request ? `: ${request}` : ''}: ${message ?? ''}`);
    return { result, message };
  };
  if (!handle) return outcome('refused', null, `no recorder named "${name}"`);

  let state = handle.link.state;
  // Toggles of the slow group decide from a value read at the press, never from the last slow poll.
  const readFirst = pressReadOf(action);
  if (readFirst) {
    const sentAt = time.now();
    try {
      const value = readFirst === 'schedule' ? await handle.link.call({ method: 'getSchedule', args: [] }) : await handle.link.call({ method: 'getConversionConfig', args: [] });
      state = { ...state, [readFirst]: value, readAt: { ...state.readAt, [readFirst]: sentAt } };
    } catch (error) {
      return outcome('failed', null, `could not read the ${readFirst} to toggle it: ${reasonOf(error)}`);
    }
  }
  const planNow = () =>
    planCommand(action, {
      state,
      now: time.now(),
      amount: context.input.amount,
      position: context.input.position,
      liveGain: (source) => handle.extras.liveGain(source),
    });
  let plan = planNow();
  if (plan.kind === 'read-gain-first') {
    // No live gain to step from (nothing shows it, or its reads are old or failing): read it now, and
    // step from it; a step never starts from a gain past its age.
    const { sourceName } = plan;
    try {
      await handle.extras.readGain(sourceName);
    } catch (error) {
      return outcome('refused', null, `cannot read the gain of "${sourceName}"; a step never starts from an old gain: ${reasonOf(error)}`);
    }
    plan = planNow();
    if (plan.kind === 'read-gain-first') return outcome('refused', null, `the gain of "${sourceName}" is not live even as read at the press (the recorder is offline)`);
  }
  if (plan.kind === 'refuse') return outcome('refused', null, plan.reason);

  const request = describeCall(plan.call);
  const send = () => {
    requestAfterMs = time.precise() - at.precise;
    log.debug?.(`${where}: ${action.action}: sending ${request} to "${name}"`);
    return handle.link.call(plan.call);
  };
  try {
    // A gain goes through the extras, which own it for a while (gain-truth.ts) and keep writes to one source in order.
    await (plan.gain ? handle.extras.writeGain(plan.gain.sourceName, plan.gain.db, send) : send());
  } catch (error) {
    latencyMs = time.precise() - at.precise;
    handle.link.refresh(plan.touchesSlowState);
    // A link that knows the request never reached the recorder says so (see RecorderLink.call).
    if ((error as { notRun?: unknown }).notRun === true) return outcome('refused', null, reasonOf(error));
    return outcome('failed', request, reasonOf(error));
  }
  latencyMs = time.precise() - at.precise;
  log.debug?.(`${where}: ${request}: answered OK in ${Math.round(latencyMs)} ms`);
  const effect = expectedEffect(action, plan.call);
  // Only reads sent from now on can show the write's effect.
  const readsAfter = effect ? effect.parts.map((part) => handle.link.nextReadNumber(part)) : [];
  handle.link.refresh(plan.touchesSlowState);
  if (effect && (await confirmed(handle, effect, readsAfter, time)) === false) return outcome('failed', request, `the recorder answered OK, but ${effect.missing}`);
  return outcome('ok', request, null);
}

/**
 * Whether the effect shows in the reads sent after the answer: true at the first that shows it, false
 * when none of the next few does, null when nothing could be read in time (then it is not judged).
 */
function confirmed(handle: RecorderHandle, effect: ExpectedEffect, readsAfter: number[], time: EngineTime): Promise<boolean | null> {
  const state = handle.link.state;
  const readAfter = (s: RecorderState) => effect.parts.every((part, i) => s.readNumber[part] >= (readsAfter[i] as number));
  const slow = effect.parts.some((part) => liveForMs(state, part) > liveForMs(state, 'channels'));
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
