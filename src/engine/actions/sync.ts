// A channel in or out of InSync mode (the group that records together with sync-rec).
import { channelEffect, type ExpectedEffect } from '../command-effect.js';
import { liveChannel, send, type ClientCall } from '../command-plan.js';
import { channelShow, recorderAction } from './entry.js';
import { channelAction } from './parameters.js';

/** What the sync call sent must show on the channel. */
function syncEffect(action: { channel: number }, call: ClientCall): ExpectedEffect | null {
  switch (call.method) {
    case 'syncOn':
      return channelEffect(action.channel, (c) => c.IsInSync, 'is not in sync mode');
    case 'syncOff':
      return channelEffect(action.channel, (c) => !c.IsInSync, 'is still in sync mode');
    default:
      return null;
  }
}

export const SYNC = [
  recorderAction({
    schema: channelAction('sync-on', 'Put the channel in InSync mode'),
    example: { action: 'sync-on', channel: 3 },
    plan: (action) => send({ method: 'syncOn', args: [action.channel - 1] }),
    expectedEffect: syncEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('sync-off', 'Take the channel out of InSync mode'),
    example: { action: 'sync-off', channel: 3 },
    plan: (action) => send({ method: 'syncOff', args: [action.channel - 1] }),
    expectedEffect: syncEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: channelAction('sync-toggle', 'Toggle InSync mode'),
    example: { action: 'sync-toggle', channel: 'selected' },
    plan: (action, inputs) => {
      const known = liveChannel(inputs, action.channel);
      return known.ok ? send({ method: known.value.IsInSync ? 'syncOff' : 'syncOn', args: [action.channel - 1] }) : known.plan;
    },
    expectedEffect: syncEffect,
    show: channelShow,
  }),
];
