// Decides what one recorder action sends: exactly one request, or a refusal with the reason. Pure, so
// the rules are testable without a recorder: toggles decide from the last confirmed state and refuse
// when that state is unknown or stale; gain steps start from a live gain (gain-truth.ts) or read it first.
import type { RecorderClient } from '../api/client.js';
import { expandPath, operations, type OperationId } from '../api/operations.js';
import { GAIN_DB } from '../api/scalars.js';
import type { RecorderAction } from '../profiles/schema.js';
import { ageSeconds, freshnessOf, type RecorderState, type StatePart } from './recorder-state.js';

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

export interface PlanInputs {
  state: RecorderState;
  /** Now, to tell whether the parts a toggle decides from are young enough. */
  now: number;
  /** 1-based channel that "selected" stands for. */
  selectedChannel: number;
  /** Signed detents of a turn (1 for a press). */
  amount: number;
  /** Fader position 0..1, for gain-fader. */
  position: number | null;
  /** The gain (dB) a step may start from (see gain-truth.ts's stepBasis), or null when it must be read first. */
  liveGain: (sourceName: string) => number | null;
}

const send = (call: ClientCall, touchesSlowState = false): CommandPlan => ({ kind: 'send', call, touchesSlowState });
const refuse = (reason: string): CommandPlan => ({ kind: 'refuse', reason });

export function planCommand(action: RecorderAction, inputs: PlanInputs): CommandPlan {
  const { state } = inputs;
  const channelNumber = 'channel' in action && action.channel !== undefined ? (action.channel === 'selected' ? inputs.selectedChannel : action.channel) : null;
  const index = channelNumber === null ? -1 : channelNumber - 1;
  const channel = state.channels?.[index];
  /** A toggle decides from what it reads only while those parts are live: the value, or the refusal saying why not. */
  const decide = <T>(what: string, parts: StatePart[], value: T | null | undefined): { ok: true; value: T } | { ok: false; plan: CommandPlan } => {
    const freshness = freshnessOf(state, inputs.now, parts);
    if (freshness === 'live') return value === undefined || value === null ? { ok: false, plan: refuse(`${what} is not known`) } : { ok: true, value };
    if (parts.every((part) => state.readAt[part] === null)) return { ok: false, plan: refuse(`the recorder's state is unknown (not read yet); not deciding a toggle from it`) };
    if (freshness === 'offline') return { ok: false, plan: refuse(`the recorder is offline${state.lastError ? ` (${state.lastError})` : ''}; not deciding a toggle from old data`) };
    return { ok: false, plan: refuse(`the recorder's state is stale (read ${ageSeconds(state, inputs.now, parts) ?? '?'} s ago); not deciding a toggle from it`) };
  };

  switch (action.action) {
    case 'rec-start':
      return send({ method: 'recStart', args: [index] });
    case 'rec-pause':
      return send({ method: 'recPause', args: [index] });
    case 'rec-stop':
      return send({ method: 'recStop', args: [index] });
    case 'rec-toggle': {
      const known = decide(`channel ${channelNumber}`, ['channels'], channel);
      return known.ok ? send({ method: known.value.IsRecording ? 'recStop' : 'recStart', args: [index] }) : known.plan;
    }
    case 'pause-toggle': {
      const known = decide(`channel ${channelNumber}`, ['channels'], channel);
      if (!known.ok) return known.plan;
      if (!known.value.IsRecording) return refuse(`channel ${channelNumber} is not recording`);
      return send({ method: known.value.IsRecordingPause ? 'recStart' : 'recPause', args: [index] });
    }
    case 'sync-on':
      return send({ method: 'syncOn', args: [index] });
    case 'sync-off':
      return send({ method: 'syncOff', args: [index] });
    case 'sync-toggle': {
      const known = decide(`channel ${channelNumber}`, ['channels'], channel);
      return known.ok ? send({ method: known.value.IsInSync ? 'syncOff' : 'syncOn', args: [index] }) : known.plan;
    }
    case 'set-source':
      return send({ method: 'setChannelSource', args: [index, action.source] });
    case 'unset-source':
      return send({ method: 'unsetChannelSource', args: [index] });
    case 'add-dest':
      return send({ method: 'addChannelDestination', args: [index, action.destination] });
    case 'delete-dest':
      return send({ method: 'deleteChannelDestination', args: [index, action.destination] });
    case 'toggle-dest': {
      const known = decide(`channel ${channelNumber}`, ['channels'], channel);
      if (!known.ok) return known.plan;
      return send({ method: known.value.Destinations.includes(action.destination) ? 'deleteChannelDestination' : 'addChannelDestination', args: [index, action.destination] });
    }
    case 'sync-rec-start':
      return send({ method: 'syncRecStart', args: [] });
    case 'sync-rec-pause':
      return send({ method: 'syncRecPause', args: [] });
    case 'sync-rec-stop':
      return send({ method: 'syncRecStop', args: [] });
    case 'sync-rec-toggle': {
      const known = decide('synchronous recording', ['sync'], state.sync);
      return known.ok ? send({ method: known.value.IsSyncRecording ? 'syncRecStop' : 'syncRecStart', args: [] }) : known.plan;
    }
    case 'sync-rec-pause-toggle': {
      const known = decide('synchronous recording', ['sync'], state.sync);
      if (!known.ok) return known.plan;
      if (!known.value.IsSyncRecording) return refuse('synchronous recording is not running');
      return send({ method: known.value.IsSyncRecordingPause ? 'syncRecStart' : 'syncRecPause', args: [] });
    }
    case 'dialog-ok':
      return send({ method: 'answerDialog', args: ['ok'] });
    case 'dialog-cancel':
      return send({ method: 'answerDialog', args: ['cancel'] });
    case 'grid':
      return send({ method: 'setChannelCount', args: [action.size] });
    case 'new-session':
      return send({ method: 'newSession', args: [] }, true);
    case 'save-project':
      return send({ method: 'saveProject', args: [action.path] });
    case 'load-project':
      return send({ method: 'loadProject', args: [action.path] }, true);
    case 'schedule-on':
      return send({ method: 'setSchedule', args: [{ IsEnabled: true }] }, true);
    case 'schedule-off':
      return send({ method: 'setSchedule', args: [{ IsEnabled: false }] }, true);
    case 'schedule-toggle': {
      const known = decide('the schedule', ['schedule'], state.schedule);
      return known.ok ? send({ method: 'setSchedule', args: [{ IsEnabled: !known.value.IsEnabled }] }, true) : known.plan;
    }
    case 'conversion-on':
      return send({ method: 'setConversionConfig', args: [{ IsEnabled: true }] }, true);
    case 'conversion-off':
      return send({ method: 'setConversionConfig', args: [{ IsEnabled: false }] }, true);
    case 'conversion-toggle': {
      const known = decide('conversion', ['conversion'], state.conversion);
      return known.ok ? send({ method: 'setConversionConfig', args: [{ IsEnabled: !known.value.IsEnabled }] }, true) : known.plan;
    }
    case 'schedule-set':
      return send({ method: 'setSchedule', args: [defined({ StartTime: action.start, StopTime: action.stop, ScheduleType: action.type, IsEnabled: action.enabled })] }, true);
    case 'conversion-set':
      return send(
        {
          method: 'setConversionConfig',
          args: [
            defined({
              IsEnabled: action.enabled,
              VideoFormat: action['video-format'],
              FrameRate: action['frame-rate'],
              Interlace: action.interlace,
              AudioSampleRate: action['audio-sample-rate'],
              AudioChannel: action['audio-channel'],
              AudioBit: action['audio-bit'],
            }),
          ],
        },
        true,
      );
    case 'settings-set':
      return send({
        method: 'updateSettings',
        args: [
          defined({
            LogFolder: action['log-folder'],
            PreviewRefresh: action['preview-refresh'],
            LoadLastSession: action['load-last-session'],
            PreviewStretch: action['preview-stretch'],
            AlwaysShowStatistics: action['always-show-statistics'],
            AlwaysShowAudioMeters: action['always-show-audio-meters'],
            StartAtStartup: action['start-at-startup'],
            OpenAsync: action['open-async'],
          }),
        ],
      });
    case 'gain-set':
    case 'gain-step':
    case 'gain-fader':
      return planGain(action, inputs, channelNumber);
  }
}

/** A write body with only the fields the action names (the rest keep their value on the recorder). */
function defined<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as T;
}

function planGain(action: Extract<RecorderAction, { action: 'gain-set' | 'gain-step' | 'gain-fader' }>, inputs: PlanInputs, channelNumber: number | null): CommandPlan {
  const { state } = inputs;
  const sourceName = action.source ?? (channelNumber === null ? null : state.channels?.[channelNumber - 1]?.SourceName ?? null);
  if (sourceName === null) return refuse(channelNumber === null ? 'no source named' : `channel ${channelNumber} has no known source`);
  const sourceIndex = state.sources?.findIndex((s) => s.Name === sourceName) ?? -1;
  if (sourceIndex < 0) return refuse(`source "${sourceName}" is not known`);

  let db: number;
  if (action.action === 'gain-set') {
    db = action.db;
  } else if (action.action === 'gain-fader') {
    if (inputs.position === null) return refuse('gain-fader needs a fader');
    db = action.min + inputs.position * (action.max - action.min);
  } else {
    const live = inputs.liveGain(sourceName);
    if (live === null) return { kind: 'read-gain-first', sourceName };
    db = live + action.db * inputs.amount;
  }
  const clamped = Math.round(Math.min(GAIN_DB.max, Math.max(GAIN_DB.min, db)) * 10) / 10;
  return { kind: 'send', call: { method: 'updateSource', args: [sourceIndex, { AudioGain: clamped }] }, touchesSlowState: false, gain: { sourceName, db: clamped } };
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
