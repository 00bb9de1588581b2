// A simulated recording disk: it fills as the channels write, at a set rate per recording channel, on the
// simulator's clock (a paused channel writes nothing), so a test can know the true time left and check
// an estimate made from the used percentage the recorder reports.
import type { Resources } from '../api/app.js';
import type { SimulatedRecorder } from './recorder.js';

export interface SimulatedDiskOptions {
  /** The disk's label in DiskInfo (a drive or mount point). */
  label: string;
  sizeMb: number;
  /** Used when the simulator starts. */
  usedMb: number;
  /** What one recording channel writes each second. */
  mbPerSecondPerChannel: number;
}

export class SimulatedDisk {
  constructor(private readonly options: SimulatedDiskOptions) {}

  /** MB used now: what was used at start and what the channels have written since (never past full). */
  usedMb(recorder: SimulatedRecorder): number {
    const { sizeMb, usedMb, mbPerSecondPerChannel } = this.options;
    return Math.min(sizeMb, usedMb + (recorder.recordedMs() / 1000) * mbPerSecondPerChannel);
  }

  /** Seconds until full at the rate the channels write now (null when none writes): the truth an estimate is checked against. */
  secondsLeft(recorder: SimulatedRecorder): number | null {
    const writing = recorder.channels().filter((c) => c.IsRecording && !c.IsRecordingPause).length;
    return writing === 0 ? null : (this.options.sizeMb - this.usedMb(recorder)) / (writing * this.options.mbPerSecondPerChannel);
  }

  /** As the recorder reports it: the used share in whole percent, as df rounds it. */
  reading(recorder: SimulatedRecorder): Resources['DiskInfo'][number] {
    return { Key: this.options.label, Value: Math.round((this.usedMb(recorder) / this.options.sizeMb) * 100) };
  }
}
