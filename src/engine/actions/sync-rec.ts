// Synchronous recording: the InSync channels start, pause and stop together. Their keys show the group
// and what a press does to it.
import type { ExpectedEffect } from '../command-effect.js';
import { decideFromLive, refuse, send, type ClientCall, type PlanInputs } from '../command-plan.js';
import { recorderAction } from './entry.js';
import { plainAction } from './parameters.js';

/** What the group's call sent must show in the sync state. */
function groupEffect(_action: unknown, call: ClientCall): ExpectedEffect | null {
  switch (call.method) {
    case 'syncRecStart':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording === true && !s.sync.IsSyncRecordingPause, missing: 'synchronous recording is not running' };
    case 'syncRecPause':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording !== true || s.sync.IsSyncRecordingPause, missing: 'synchronous recording is not paused' };
    case 'syncRecStop':
      return { parts: ['sync'], holds: (s) => s.sync?.IsSyncRecording === false, missing: 'synchronous recording is still running' };
    default:
      return null;
  }
}

const liveGroup = (inputs: PlanInputs) => decideFromLive(inputs, 'synchronous recording', ['sync'], inputs.state.sync);

export const SYNC_REC = [
  recorderAction({
    schema: plainAction('sync-rec-start', 'Start (or resume) synchronous recording of the InSync channels'),
    example: { action: 'sync-rec-start' },
    plan: () => send({ method: 'syncRecStart', args: [] }),
    expectedEffect: groupEffect,
    show: () => ({ sync: 'start' }),
  }),
  recorderAction({
    schema: plainAction('sync-rec-pause', 'Pause synchronous recording'),
    example: { action: 'sync-rec-pause' },
    plan: () => send({ method: 'syncRecPause', args: [] }),
    expectedEffect: groupEffect,
    show: () => ({ sync: 'pause' }),
  }),
  recorderAction({
    schema: plainAction('sync-rec-stop', 'Stop synchronous recording'),
    example: { action: 'sync-rec-stop' },
    plan: () => send({ method: 'syncRecStop', args: [] }),
    expectedEffect: groupEffect,
    show: () => ({ sync: 'stop' }),
  }),
  recorderAction({
    schema: plainAction('sync-rec-toggle', 'Start synchronous recording when stopped, stop it when running'),
    example: { action: 'sync-rec-toggle' },
    plan: (_action, inputs) => {
      const known = liveGroup(inputs);
      return known.ok ? send({ method: known.value.IsSyncRecording ? 'syncRecStop' : 'syncRecStart', args: [] }) : known.plan;
    },
    expectedEffect: groupEffect,
    show: () => ({ sync: 'toggle' }),
  }),
  recorderAction({
    schema: plainAction('sync-rec-pause-toggle', 'Pause synchronous recording when running, resume it when paused'),
    example: { action: 'sync-rec-pause-toggle' },
    plan: (_action, inputs) => {
      const known = liveGroup(inputs);
      if (!known.ok) return known.plan;
      if (!known.value.IsSyncRecording) return refuse('synchronous recording is not running');
      return send({ method: known.value.IsSyncRecordingPause ? 'syncRecStart' : 'syncRecPause', args: [] });
    },
    expectedEffect: groupEffect,
    show: () => ({ sync: 'pause-toggle' }),
  }),
];
