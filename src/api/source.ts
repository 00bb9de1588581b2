import * as z from 'zod';
import { DeviceEntry, DeviceRef } from './device.js';
import { gainRead, gainWriteText, indexNumber } from './scalars.js';

export const STREAM_BUFFER = { min: 0, max: 9 } as const;

export const SourceListEntry = z.looseObject({
  Index: indexNumber,
  Name: z.string(),
  /** Device name, or a network-stream label. */
  Device: z.string(),
});
export type SourceListEntry = z.output<typeof SourceListEntry>;
export const SourceList = z.array(SourceListEntry);

const DeviceDefinition = z.looseObject({
  Type: z.number().int(),
  Name: z.string(),
  Index: z.number().int().optional(),
});

export const SourceConfig = z.looseObject({
  Name: z.string(),
  VideoDevice: DeviceDefinition.nullable(),
  /** Current level per audio channel, in dBFS (simulator: -90 is silence). */
  AudioMeters: z.array(z.number()),
  VideoLines: z.array(z.string()),
  VideoLine: z.string().nullable(),
  VideoFormats: z.array(z.string()),
  VideoFormat: z.string().nullable(),
  AudioDevice: DeviceEntry.nullable(),
  AudioFormats: z.array(z.string()),
  AudioFormat: z.string().nullable(),
  StreamBuffer: z.number().int(),
  StreamURL: z.string().nullable(),
  LTCTimecode: DeviceEntry.nullable(),
  /** dB. */
  AudioGain: gainRead,
});
export type SourceConfig = z.output<typeof SourceConfig>;

/**
 * Source write body (POST add, PUT partial update). Every field is optional: PUT keeps what is
 * omitted, POST fills it with a default. Unknown fields are refused so a typo cannot pass silently.
 */
export const SourceWrite = z.strictObject({
  Name: z.string().trim().min(1, { error: 'expected a non-empty name' }).optional(),
  VideoDevice: DeviceRef.optional(),
  VideoLine: z.string().optional(),
  VideoFormat: z.string().optional(),
  AudioDevice: DeviceRef.nullable().optional(),
  LTCTimecode: DeviceRef.nullable().optional(),
  StreamBuffer: z
    .number()
    .int({ error: 'expected an integer from 0 to 9' })
    .min(STREAM_BUFFER.min, { error: 'expected an integer from 0 to 9' })
    .max(STREAM_BUFFER.max, { error: 'expected an integer from 0 to 9' })
    .optional(),
  StreamURL: z.string().nullable().optional(),
  /** dB, sent as text. */
  AudioGain: gainWriteText.optional(),
});
export type SourceWrite = z.output<typeof SourceWrite>;
