// The bridge's own actions: they change the surface's state (its page, selected channel, brightness)
// and send nothing to a recorder.
import * as z from 'zod';
import { bridgeAction, channelShow, labelShow, type BridgeInputs, type BridgeOutcome } from './entry.js';
import { MAX_CHANNEL, recorder } from './parameters.js';

/** The next or previous page of the cycle, wrapping; a dial turned back goes the other way. */
const stepPage =
  (direction: 1 | -1) =>
  (_action: unknown, { pages, page, amount }: BridgeInputs): BridgeOutcome => {
    const at = Math.max(0, pages.indexOf(page));
    const step = direction * Math.sign(amount || 1);
    return { page: pages[(((at + step) % pages.length) + pages.length) % pages.length] as string };
  };

export const BRIDGE_OWN = [
  bridgeAction({
    schema: z.strictObject({ action: z.literal('page-next') }).describe('Next page (wraps)'),
    example: { action: 'page-next' },
    perform: stepPage(1),
    icon: 'next',
  }),
  bridgeAction({
    schema: z.strictObject({ action: z.literal('page-previous') }).describe('Previous page (wraps)'),
    example: { action: 'page-previous' },
    perform: stepPage(-1),
    icon: 'previous',
  }),
  bridgeAction({
    schema: z
      .strictObject({ action: z.literal('page'), page: z.union([z.string().min(1), z.number().int().min(1)]).describe('Page name, or its place among the pages (from 1)') })
      .describe('Go to a page by name or number'),
    example: { action: 'page', page: 'Tools' },
    perform: (action, { pages, dialogPage }) => {
      const target = typeof action.page === 'number' ? pages[action.page - 1] : pages.find((name) => name === action.page);
      if (target !== undefined) return { page: target };
      if (action.page === dialogPage) return { refused: 'dialog overlay', warning: `page "${action.page}" is the dialog overlay, shown only while a dialog is up` };
      return { refused: 'no such page', warning: `no page ${JSON.stringify(action.page)}` };
    },
    show: (action) => labelShow(String(action.page)),
  }),
  bridgeAction({
    schema: z
      .strictObject({ action: z.literal('select-channel'), channel: z.number().int().min(1).max(MAX_CHANNEL).describe('Channel number 1–16 as shown on the recorder'), recorder })
      .describe('Choose the channel that "selected" refers to'),
    example: { action: 'select-channel', channel: 5 },
    perform: (action) => ({ selectedChannel: action.channel }),
    show: channelShow,
  }),
  bridgeAction({
    schema: z
      .strictObject({
        action: z.literal('brightness'),
        set: z.number().int().min(0).max(100).optional().describe('Brightness to set, in percent'),
        step: z.number().int().min(-100).max(100).optional().describe('Percent to add (negative: darker); a dial multiplies it by the turn'),
      })
      .refine((v) => (v.set === undefined) !== (v.step === undefined), { error: 'expected exactly one of set or step' })
      .describe('Surface brightness in percent'),
    example: { action: 'brightness', step: 10 },
    perform: (action, { brightness, amount }) => ({ brightness: Math.min(100, Math.max(0, Math.round(action.set ?? brightness + (action.step ?? 0) * amount))) }),
    icon: 'brightness',
  }),
  bridgeAction({
    schema: z
      .strictObject({ action: z.literal('alarm-ack') })
      .describe('Acknowledge every active alarm (hands-free from a key or pedal): the alarms stop flashing; each acknowledgement is audited and sent to the webhooks'),
    example: { action: 'alarm-ack' },
    perform: (_action, { alarmEngine }) => (alarmEngine ? { acknowledgeAlarms: true } : { refused: 'no alarms', warning: 'alarm-ack: this recdeck runs no alarm engine' }),
    // The key shows what it acknowledges: the count and the worst alarm, flashing until acknowledged.
    show: () => 'alarms',
  }),
];
