// Encoding presets. The read shapes are not described by the interface; we choose the write body's
// fields plus Index. StartTimecode is one entry of the preset's timecode list ({ Type, Name }).
import * as z from 'zod';
import { DESTINATION_TYPES } from './destination.js';
import { indexNumber } from './scalars.js';

export const Timecode = z.looseObject({ Type: z.number().int(), Name: z.string() });
export type Timecode = z.output<typeof Timecode>;
export const TimecodeList = z.array(Timecode);

const digits = (what: string) => z.string().regex(/^\d+$/, { error: `expected ${what} as whole-number text` });

export const PresetWrite = z.strictObject({
  Name: z.string().trim().min(1, { error: 'expected a non-empty name' }).optional(),
  Type: z.enum(DESTINATION_TYPES).optional(),
  Format: z.string().optional(),
  VideoCodec: z.string().optional(),
  AudioCodec: z.string().optional(),
  /** kbit/s as text. */
  VideoBitrate: digits('a bitrate in kbit/s').optional(),
  /** Frames (GOP size) as text. */
  KeyFrameInterval: digits('a key-frame interval in frames').optional(),
  StartTimecode: z.strictObject({ Type: z.number().int(), Name: z.string() }).optional(),
  ManualTimecode: z
    .string()
    .regex(/^\d{2}:[0-5]\d:[0-5]\d[:;]\d{2}$/, { error: 'expected a timecode as hh:mm:ss:ff' })
    .optional(),
  Config: z.string().optional(),
});
export type PresetWrite = z.output<typeof PresetWrite>;

export const Preset = z.looseObject({
  Index: indexNumber.optional(),
  Name: z.string(),
  Type: z.string().optional(),
  Format: z.string().optional(),
  VideoCodec: z.string().optional(),
  AudioCodec: z.string().optional(),
  VideoBitrate: z.string().optional(),
  KeyFrameInterval: z.string().optional(),
  StartTimecode: Timecode.nullable().optional(),
  ManualTimecode: z.string().optional(),
  Config: z.string().optional(),
});
export type Preset = z.output<typeof Preset>;
export const PresetList = z.array(Preset);

export const NameList = z.array(z.string());
