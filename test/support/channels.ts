// A channel as the recorder's interface gives it, for tests that build recorder states by hand.
import type { Channel } from '../../src/api/channel.js';

/** Channel `index` (0-based) with a source named after it, idle, recording to the local disk. */
export const channelOf = (index: number, over: Partial<Channel> = {}): Channel => ({
  Index: index,
  SourceName: `Cam ${index + 1}`,
  Destinations: ['Local Disk'],
  IsRecording: false,
  IsSomethingWrong: false,
  IsRecordingPause: false,
  IsInSync: false,
  IsInSyncRec: false,
  IsAudioPreview: false,
  RecordingDuration: 0,
  RecordingFPS: 0,
  RecordingBreaks: 0,
  RecordingDrops: 0,
  RecordingBuffered: 0,
  ...over,
});
