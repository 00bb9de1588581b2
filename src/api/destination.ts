// Destinations. The read shape is not described by the interface; we choose the write body's fields
// plus Index, with StreamKey left out: it is a secret and a read never needs to echo it. The client
// keeps any extra field a real service returns.
import * as z from 'zod';
import { indexNumber } from './scalars.js';

export const DESTINATION_TYPES = ['Local File Recording', 'Network Streaming'] as const;
export const POST_CAPTURING_ACTIONS = ['Do Nothing', 'Move after recording to', 'Copy after recording to'] as const;

const splitInterval = z
  .string()
  .regex(/^(|\d{2}:[0-5]\d:[0-5]\d)$/, { error: 'expected an interval as hh:mm:ss, or "" for no split' });

export const DestinationWrite = z.strictObject({
  Name: z.string().trim().min(1, { error: 'expected a non-empty name' }).optional(),
  Location: z.string().optional(),
  Type: z.enum(DESTINATION_TYPES).optional(),
  URL: z.string().optional(),
  StreamKey: z.string().optional(),
  NamingTemplate: z.string().optional(),
  OverwriteExistingFiles: z.boolean().optional(),
  SplitIntervalString: splitInterval.optional(),
  PresetName: z.string().optional(),
  PostCapturingAction: z.enum(POST_CAPTURING_ACTIONS).optional(),
  PostCapturingActionTarget: z.string().optional(),
});
export type DestinationWrite = z.output<typeof DestinationWrite>;

export const Destination = z.looseObject({
  Index: indexNumber.optional(),
  Name: z.string(),
  Location: z.string().optional(),
  Type: z.string().optional(),
  URL: z.string().optional(),
  NamingTemplate: z.string().optional(),
  OverwriteExistingFiles: z.boolean().optional(),
  SplitIntervalString: z.string().optional(),
  PresetName: z.string().optional(),
  PostCapturingAction: z.string().optional(),
  PostCapturingActionTarget: z.string().optional(),
});
export type Destination = z.output<typeof Destination>;
export const DestinationList = z.array(Destination);
