// Carries out one recorder command from a control: plan it from the last confirmed state, refuse it
// visibly with the reason, or send it exactly once, then have the state it touched read again at once.
// Every outcome goes to the audit trail.
import type { Binding, RecorderAction } from '../profiles/schema.js';
import { describeCall, planCommand, sendCall } from './command-plan.js';
import type { EngineTime } from './engine-time.js';
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
  time: EngineTime;
  log: Logger;
  audit: (record: CommandRecord) => void;
}

/**
 * ok: the recorder carried it out; failed: the recorder said no (or could not be reached); refused:
 * not sent (state unknown or stale, no such recorder). The session marks the key from this.
 */
export type CommandOutcome = 'ok' | 'failed' | 'refused';

export async function runCommand(action: RecorderAction, context: CommandContext): Promise<CommandOutcome> {
  const { at, control, log, time } = context;
  const name = action.recorder ?? context.binding.recorder ?? context.defaultRecorder;
  const handle = context.recorders.get(name);
  const where = `${context.surface}: ${control}`;
  let requestAfterMs: number | null = null;
  const record = (result: CommandRecord['result'], request: string | null, message: string | null) =>
    context.audit({ at: at.wall, surface: context.surface, control, action: action.action, recorder: handle ? name : null, request, result, message, requestAfterMs, latencyMs: time.precise() - at.precise });
  if (!handle) {
    log.warn(`${where}: ${action.action}: no recorder named "${name}"`);
    record('refused', null, `no recorder named "${name}"`);
    return 'refused';
  }
  const state = handle.poller.state;
  const plan = planCommand(action, {
    state,
    live: freshnessOf(state, time.now()) === 'live',
    selectedChannel: context.selectedChannel,
    amount: context.input.amount,
    position: context.input.position,
    knownGain: (index) => handle.extras.knownGain(index),
  });
  if (plan.kind === 'refuse') {
    log.warn(`${where}: ${action.action} refused: ${plan.reason}`);
    record('refused', null, plan.reason);
    return 'refused';
  }
  const request = describeCall(plan.call);
  const send = () => {
    requestAfterMs = time.precise() - at.precise;
    return sendCall(handle.poller.client, plan.call);
  };
  try {
    // A gain goes through the extras, which own it until a later read and keep writes to one source in order.
    await (plan.gain ? handle.extras.writeGain(plan.gain.sourceIndex, plan.gain.db, send) : send());
    record('ok', request, null);
    return 'ok';
  } catch (error) {
    const message = (error as { serviceMessage?: string }).serviceMessage ?? (error as Error).message;
    log.warn(`${where}: ${action.action} failed: ${request}: ${message}`);
    record('failed', request, message);
    return 'failed';
  } finally {
    handle.poller.refresh(plan.touchesSlowState);
  }
}
