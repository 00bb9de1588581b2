// Conversion: on, off, a toggle that reads it at the press, and its formats.
import * as z from 'zod';
import { ConversionWrite } from '../../api/conversion.js';
import { switchedEffect } from '../command-effect.js';
import { decideFromLive, definedFields, send } from '../command-plan.js';
import { recorderAction, uncheckable } from './entry.js';
import { plainAction, recorder, someField } from './parameters.js';

const conversionEffect = (enabled: boolean) => switchedEffect('conversion', 'conversion', enabled);
const fromLists = (what: string) => `${what}, a value of the recorder's conversion list`;

export const CONVERSION = [
  recorderAction({
    schema: plainAction('conversion-on', 'Enable conversion'),
    example: { action: 'conversion-on' },
    plan: () => send({ method: 'setConversionConfig', args: [{ IsEnabled: true }] }, true),
    expectedEffect: () => conversionEffect(true),
    icon: 'ok',
  }),
  recorderAction({
    schema: plainAction('conversion-off', 'Disable conversion'),
    example: { action: 'conversion-off' },
    plan: () => send({ method: 'setConversionConfig', args: [{ IsEnabled: false }] }, true),
    expectedEffect: () => conversionEffect(false),
    icon: 'cancel',
  }),
  recorderAction({
    schema: plainAction('conversion-toggle', 'Enable or disable conversion'),
    example: { action: 'conversion-toggle' },
    readsAtPress: 'conversion',
    plan: (_action, inputs) => {
      const known = decideFromLive(inputs, 'conversion', ['conversion'], inputs.state.conversion);
      return known.ok ? send({ method: 'setConversionConfig', args: [{ IsEnabled: !known.value.IsEnabled }] }, true) : known.plan;
    },
    expectedEffect: (_action, call) => (call.method === 'setConversionConfig' && call.args[0].IsEnabled !== undefined ? conversionEffect(call.args[0].IsEnabled) : null),
    icon: 'sync',
  }),
  // The fields reuse the interface's write schema, so a value is checked against the interface's
  // conversion lists as the recorder's write checks it. Its effect is not checked afterwards (only on,
  // off and toggle are).
  recorderAction({
    schema: z
      .strictObject({
        action: z.literal('conversion-set'),
        enabled: ConversionWrite.shape.IsEnabled.describe('Turn conversion on or off as well'),
        'video-format': ConversionWrite.shape.VideoFormat.describe(fromLists('Video format')),
        'frame-rate': ConversionWrite.shape.FrameRate.describe(fromLists('Frame rate')),
        interlace: ConversionWrite.shape.Interlace.describe(fromLists('Interlace')),
        'audio-sample-rate': ConversionWrite.shape.AudioSampleRate.describe(fromLists('Audio sample rate')),
        'audio-channel': ConversionWrite.shape.AudioChannel.describe(fromLists('Audio channels')),
        'audio-bit': ConversionWrite.shape.AudioBit.describe(fromLists('Audio bits per sample')),
        recorder,
      })
      .refine(...someField(['enabled', 'video-format', 'frame-rate', 'interlace', 'audio-sample-rate', 'audio-channel', 'audio-bit']))
      .describe('Set conversion: any of its fields, each value from the recorder\'s conversion lists (quoted in YAML: frame-rate: "25")'),
    example: { action: 'conversion-set', 'frame-rate': '25', interlace: 'Progressive' },
    plan: (action) =>
      send(
        {
          method: 'setConversionConfig',
          args: [
            definedFields({
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
      ),
    expectedEffect: uncheckable,
  }),
];
