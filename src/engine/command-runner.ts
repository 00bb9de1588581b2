// Carries out one recorder command from a control: plan it from the last confirmed state, refuse it
// visibly with the reason, or send it exactly once, then have the state it touched read again at once.
// Every outcome goes to the audit trail.
import type { Binding, RecorderAction } from '../profiles/schema.js';
import { describeCall, planCommand, sendCall } from './command-plan.js';
import type { CommandRecord, Logger } from './log.js';
import { freshnessOf } from './recorder-state.js';
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
  selectedChannel: number;
  recorders: ReadonlyMap<string, RecorderHandle>;
  defaultRecorder: string;
  now: () => number;
  log: Logger;
  audit: (record: CommandRecord) => void;
  /** Marks the control: refused (state unknown or stale, or no such recorder) or failed (the recorder said no). */
  flash: (kind: 'failed' | 'refused') => void;
}

/** True when the recorder carried the command out. */
export async function runCommand(action: RecorderAction, context: CommandContext): Promise<boolean> {
  const { at, control, log } = context;
  const name = action.recorder ?? context.binding.recorder ?? context.defaultRecorder;
  const handle = context.recorders.get(name);
  const where = `${context.surface}: ${control}`;
  let requestAfterMs: number | null = null;
  const record = (result: CommandRecord['result'], request: string | null, message: string | null) =>
    context.audit({ at: at.wall, surface: context.surface, control, action: action.action, recorder: handle ? name : null, request, result, message, requestAfterMs, latencyMs: performance.now() - at.precise });
  if (!handle) {
    log.warn(`${where}: ${action.action}: no recorder named "${name}"`);
    context.flash('refused');
    record('refused', null, `no recorder named "${name}"`);
    return false;
  }
  const state = handle.poller.state;
  const plan = planCommand(action, {
    state,
    live: freshnessOf(state, context.now()) === 'live',
    selectedChannel: context.selectedChannel,
    amount: context.input.amount,
    position: context.input.position,
    knownGain: (index) => handle.extras.knownGain(index),
  });
  if (plan.kind === 'refuse') {
    log.warn(`${where}: ${action.action} refused: ${plan.reason}`);
    context.flash('refused');
    record('refused', null, plan.reason);
    return false;
  }
  const request = describeCall(plan.call);
  if (plan.gain) handle.extras.noteGain(plan.gain.sourceIndex, plan.gain.db);
  try {
    requestAfterMs = performance.now() - at.precise;
    await sendCall(handle.poller.client, plan.call);
    record('ok', request, null);
    return true;
  } catch (error) {
    const message = (error as { serviceMessage?: string }).serviceMessage ?? (error as Error).message;
    log.warn(`${where}: ${action.action} failed: ${request}: ${message}`);
    context.flash('failed');
    record('failed', request, message);
    return false;
  } finally {
    handle.poller.refresh(plan.touchesSlowState);
  }
}
