// What a channel records: its source and its destinations, by name.
import * as z from 'zod';
import { channelEffect, type ExpectedEffect } from '../command-effect.js';
import { liveChannel, send, type ClientCall } from '../command-plan.js';
import { channelShow, recorderAction } from './entry.js';
import { ChannelRef, channelAction, recorder } from './parameters.js';

const destination = z.string().min(1).describe('Destination name, as the recorder lists it');
const destinationAction = <A extends string>(action: A, description: string) =>
  z.strictObject({ action: z.literal(action), channel: ChannelRef, destination, recorder }).describe(description);

/** What the routing call sent must show on the channel. */
function routingEffect(action: { channel: number }, call: ClientCall): ExpectedEffect | null {
  switch (call.method) {
    case 'setChannelSource': {
      const source = call.args[1];
      return channelEffect(action.channel, (c) => c.SourceName === source, `does not have source "${source}"`);
    }
    case 'unsetChannelSource':
      return channelEffect(action.channel, (c) => c.SourceName === null, 'still has a source');
    case 'addChannelDestination': {
      const added = call.args[1];
      return channelEffect(action.channel, (c) => c.Destinations.includes(added), `does not record to "${added}"`);
    }
    case 'deleteChannelDestination': {
      const removed = call.args[1];
      return channelEffect(action.channel, (c) => !c.Destinations.includes(removed), `still records to "${removed}"`);
    }
    default:
      return null;
  }
}

export const ROUTING = [
  recorderAction({
    schema: channelAction('unset-source', 'Remove the channel\'s source'),
    example: { action: 'unset-source', channel: 4 },
    plan: (action) => send({ method: 'unsetChannelSource', args: [action.channel - 1] }),
    expectedEffect: routingEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: z
      .strictObject({ action: z.literal('set-source'), channel: ChannelRef, source: z.string().min(1).describe('Source name, as the recorder lists it'), recorder })
      .describe('Assign a source by name'),
    example: { action: 'set-source', channel: 4, source: 'Cam 9' },
    plan: (action) => send({ method: 'setChannelSource', args: [action.channel - 1, action.source] }),
    expectedEffect: routingEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: destinationAction('add-dest', 'Add a destination by name'),
    example: { action: 'add-dest', channel: 1, destination: 'Archive' },
    plan: (action) => send({ method: 'addChannelDestination', args: [action.channel - 1, action.destination] }),
    expectedEffect: routingEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: destinationAction('delete-dest', 'Remove a destination by name'),
    example: { action: 'delete-dest', channel: 1, destination: 'Archive' },
    plan: (action) => send({ method: 'deleteChannelDestination', args: [action.channel - 1, action.destination] }),
    expectedEffect: routingEffect,
    show: channelShow,
  }),
  recorderAction({
    schema: destinationAction('toggle-dest', 'Add the destination when absent, remove it when present'),
    example: { action: 'toggle-dest', channel: 1, destination: 'Archive' },
    plan: (action, inputs) => {
      const known = liveChannel(inputs, action.channel);
      if (!known.ok) return known.plan;
      return send({ method: known.value.Destinations.includes(action.destination) ? 'deleteChannelDestination' : 'addChannelDestination', args: [action.channel - 1, action.destination] });
    },
    expectedEffect: routingEffect,
    show: channelShow,
  }),
];
