// What a surface session is given: the recorders (with their pipelines), the renderer, the log and the
// audit trail, and the profile it is bound to.
import type { Page } from '../profiles/schema.js';
import type { AlarmMonitor } from './alarms/alarm-monitor.js';
import type { DiskTimes } from './disk-time.js';
import type { DurationClock } from './duration-clock.js';
import type { EngineTime } from './engine-time.js';
import type { WorkScheduler } from './work-scheduler.js';
import type { CommandRecord, Logger } from './log.js';
import type { Picture } from './picture.js';
import type { RecorderExtras } from './recorder-extras.js';
import type { RecorderGroups } from './recorder-group.js';
import type { RecorderLink } from './recorder-link.js';
import type { DisplayImage } from './device-output.js';
import type { LedState, PixelSize } from './surface.js';

export interface RecorderHandle {
  name: string;
  /** Where its state comes from and its commands go: a poller here, or a bus. */
  link: RecorderLink;
  extras: RecorderExtras;
  durations: DurationClock;
  /** Time left on its recording disks, from its resources reads (disk-time.ts). */
  diskTimes: DiskTimes;
}

/** Turns pictures into what controls take; supplied by the render layer (raw pixels, or an encoded picture the device draws). */
export interface PictureRenderer {
  render(picture: Picture, size: PixelSize): Promise<DisplayImage>;
  led(picture: Picture): LedState;
  /** How many pages a failure's reason takes on a display of this size (the flash stays up to show them all). */
  reasonPages(reason: string, size: PixelSize): number;
  /** Work done so far, for metrics: image-making calls, answers from the cache, cheap repaints. */
  readonly stats?: { renders: number; cacheHits: number; fastPaths: number };
  /** Steps that make ready what a display of this size needs for a channel's first change of meaning (KeyRenderer.warmUps). */
  warmUps?(size: PixelSize): Array<() => Promise<void>>;
}

export interface SessionServices {
  recorders: ReadonlyMap<string, RecorderHandle>;
  /** Recorder groups given on the command line (a profile's own are in its BoundProfile). */
  groups: RecorderGroups;
  defaultRecorder: string;
  renderer: PictureRenderer;
  log: Logger;
  audit: (record: CommandRecord) => void;
  time: EngineTime;
  /** The alarm engine, owner of the alarms: alarms keys are drawn from it and alarm-ack acknowledges in it. Absent: none. */
  alarms?: AlarmMonitor;
  /** The bridge's one WorkScheduler: the order of input, state, pictures and page frames. */
  work: WorkScheduler;
}

export interface BoundProfile {
  name: string;
  file: string;
  pages: readonly Page[];
  /** The recorder groups the profile declares (`recorders: { studio: [main, backup] }`). */
  groups: RecorderGroups;
  brightness?: number;
  dialogPage?: string;
}
