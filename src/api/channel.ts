// A channel as listed. The single-channel read is not described by the interface; we choose the same
// object as a list entry, which is what a careful service would return for one item of the list.
import * as z from 'zod';
import { decimalText, durationText, indexNumber, integerText, sourceNameText } from './scalars.js';

export const Channel = z.looseObject({
  Index: indexNumber,
  /** null when the service says "Not Specified". */
  SourceName: sourceNameText,
  Destinations: z.array(z.string()),
  IsRecording: z.boolean(),
  IsSomethingWrong: z.boolean(),
  IsRecordingPause: z.boolean(),
  IsInSync: z.boolean(),
  IsInSyncRec: z.boolean(),
  IsAudioPreview: z.boolean(),
  /** Seconds. */
  RecordingDuration: durationText,
  RecordingFPS: decimalText(2),
  RecordingBreaks: integerText,
  RecordingDrops: integerText,
  RecordingBuffered: integerText,
});
export type Channel = z.output<typeof Channel>;

export const ChannelList = z.array(Channel);

/** Channel grid sizes the service accepts. */
export const GRID_SIZES = [1, 4, 9, 16] as const;
export type GridSize = (typeof GRID_SIZES)[number];
export function isGridSize(n: number): n is GridSize {
  return (GRID_SIZES as readonly number[]).includes(n);
}
