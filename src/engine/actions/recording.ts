// Recording one channel: start, pause, stop, and the toggles and the resume that decide from its live state.
import { channelEffect, type ExpectedEffect } from '../command-effect.js';
import { liveChannel, refuse, send, type ClientCall } from '../command-plan.js';
import { channelShow, recorderAction } from './entry.js';
import { channelAction } from './parameters.js';

/** What the take call sent must show on the channel. */
function takeEffect(action: { channel: number }, call: ClientCall): ExpectedEffect | null {
  switch (call.method) {
    case 'recStart':
      return channelEffect(action.channel, (c) => c.IsRecording && !c.IsRecordingPause, 'is not recording');
    case 'recPause':
      return channelEffect(action.channel, (c) => !c.IsRecording || c.IsRecordingPause, 'is not paused');
    case 'recStop':
      return channelEffect(action.channel, (c) => !c.IsRecording, 'is still recording');
    default:
      return null;
  }
}

export const RECORDING = [
  recorderAction({
    schema: channelAction('rec-start', 'Start recording the channel, or resume it when paused'),
    example: { action: 'rec-start', channel: 1 },
    plan: (action) => send({ method: 'recStart', args: [action.channel - 1] }),
    expectedEffect: takeEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('rec-pause', 'Pause the channel'),
    example: { action: 'rec-pause', channel: 1 },
    plan: (action) => send({ method: 'recPause', args: [action.channel - 1] }),
    expectedEffect: takeEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('rec-stop', 'Stop recording the channel'),
    example: { action: 'rec-stop', channel: 'selected' },
    plan: (action) => send({ method: 'recStop', args: [action.channel - 1] }),
    expectedEffect: takeEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('rec-toggle', 'Start when stopped, stop when recording (decided from the last confirmed state)'),
    example: { action: 'rec-toggle', channel: 2 },
    plan: (action, inputs) => {
      const known = liveChannel(inputs, action.channel);
      return known.ok ? send({ method: known.value.IsRecording ? 'recStop' : 'recStart', args: [action.channel - 1] }) : known.plan;
    },
    expectedEffect: takeEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('pause-toggle', 'Pause when recording, resume when paused'),
    example: { action: 'pause-toggle', channel: 2 },
    plan: (action, inputs) => {
      const known = liveChannel(inputs, action.channel);
      if (!known.ok) return known.plan;
      if (!known.value.IsRecording) return refuse(`channel ${action.channel} is not recording`);
      return send({ method: known.value.IsRecordingPause ? 'recStart' : 'recPause', args: [action.channel - 1] });
    },
    expectedEffect: takeEffect,
    show: channelShow,
  }),
  recorderAction({
    // rec-start resumes a paused take but also starts a new one on a stopped channel: a foot on the
    // wrong pedal after a stop would record. This one only ever resumes.
    schema: channelAction('rec-resume', 'Resume the channel when paused; never starts a stopped channel'),
    example: { action: 'rec-resume', channel: 2 },
    plan: (action, inputs) => {
      const known = liveChannel(inputs, action.channel);
      if (!known.ok) return known.plan;
      if (!known.value.IsRecording) return refuse(`channel ${action.channel} is not recording`);
      if (!known.value.IsRecordingPause) return refuse(`channel ${action.channel} is not paused`);
      return send({ method: 'recStart', args: [action.channel - 1] });
    },
    expectedEffect: takeEffect,
    show: channelShow,
  }),
];
