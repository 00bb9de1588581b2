// The simulated recorder: the project plus what runs on it (recordings, the sync group, the dialog,
// the schedule and the live counters). Every method either does all it says or throws SimError and
// changes nothing. Choices where the interface is silent are noted at each method.
import type { Dialog, Schedule, ScheduleWrite, Settings, SettingsWrite, SyncState } from '../api/app.js';
import { YES_NO } from '../api/app.js';
import type { Channel, GridSize } from '../api/channel.js';
import type { DestinationWrite } from '../api/destination.js';
import type { SourceWrite } from '../api/source.js';
import { framesPerSecond } from './catalogue.js';
import { advanceCounters, audioMeters, measuredFps, type Counters } from './live.js';
import { MAX_CHANNELS, Project, type ChannelConfig } from './project.js';
import type { Random } from './random.js';
import { timeCrossed } from './schedule-clock.js';
import { SimError } from './sim-error.js';

interface ChannelRun extends Counters {
  recording: boolean;
  paused: boolean;
  inSyncRec: boolean;
  /** Recorded time before the current segment. */
  accumulatedMs: number;
  /** When the running segment began; null while paused or stopped. */
  segmentStartedAt: number | null;
  wrong: boolean;
}

interface PendingDialog {
  content: string;
  buttons: typeof YES_NO | 'OK';
  /** What "ok" carries out; cancel drops it. */
  confirm?: () => void;
}

export interface RecorderOptions {
  now: () => number;
  random: Random;
  project: Project;
  settings: Settings;
}

const idleRun = (): ChannelRun => ({
  recording: false,
  paused: false,
  inSyncRec: false,
  accumulatedMs: 0,
  segmentStartedAt: null,
  wrong: false,
  breaks: 0,
  drops: 0,
  buffered: 0,
});

export class SimulatedRecorder {
  project: Project;
  settings: Settings;
  private runs: ChannelRun[] = Array.from({ length: MAX_CHANNELS }, idleRun);
  private syncPaused = false;
  /** Time written by takes that have ended, summed over channels (a simulated disk fills from it). */
  private endedTakesMs = 0;
  private dialog: PendingDialog | null = null;
  private lastTickAt: number;
  private readonly now: () => number;
  private readonly random: Random;

  constructor(options: RecorderOptions) {
    this.now = options.now;
    this.random = options.random;
    this.project = options.project;
    this.settings = options.settings;
    this.lastTickAt = this.now();
  }

  // Reading ----------------------------------------------------------------------------------------

  channels(): Channel[] {
    return Array.from({ length: this.project.grid }, (_, i) => this.channelView(i));
  }

  channelView(index: number): Channel {
    const config = this.project.channel(index);
    const run = this.run(index);
    const source = config.SourceName === null ? null : this.project.sourceByName(config.SourceName);
    const running = run.recording && !run.paused;
    const elapsed = this.recordedInTake(run);
    return {
      Index: index,
      SourceName: config.SourceName,
      Destinations: [...config.Destinations],
      IsRecording: run.recording,
      IsSomethingWrong: run.wrong,
      IsRecordingPause: run.paused,
      IsInSync: config.IsInSync,
      IsInSyncRec: run.inSyncRec,
      IsAudioPreview: index === 0 && source !== null,
      RecordingDuration: run.recording ? Math.floor(elapsed / 1000) : 0,
      RecordingFPS: running && source ? measuredFps(framesPerSecond(source.VideoFormat), this.random) : 0,
      RecordingBreaks: run.breaks,
      RecordingDrops: run.drops,
      RecordingBuffered: run.recording ? run.buffered : 0,
    };
  }

  syncState(): SyncState {
    const running = this.runs.some((r) => r.inSyncRec);
    return { IsSyncRecording: running, IsSyncRecordingPause: running && this.syncPaused };
  }

  dialogState(): Dialog {
    return this.dialog
      ? { IsDialog: true, DialogContent: this.dialog.content, Buttons: this.dialog.buttons }
      : { IsDialog: false, DialogContent: '', Buttons: '' };
  }

  schedule(): Schedule {
    const { schedule } = this.project;
    const withSeconds = (t: string | null) => (t === null ? null : `${t}:00`);
    return { ...schedule, StartTime: withSeconds(schedule.StartTime), StopTime: withSeconds(schedule.StopTime) };
  }

  /** Meters of a source: moving while a channel in the grid uses it, following its gain. */
  sourceMeters(index: number): number[] {
    const source = this.project.source(index);
    const inUse = this.project.channels.slice(0, this.project.grid).some((c) => c.SourceName === source.Name);
    return audioMeters(inUse, source.AudioGain, this.now(), index);
  }

  isRecording(index: number): boolean {
    return this.run(index).recording;
  }

  // Recording --------------------------------------------------------------------------------------

  /**
   * Starts, or resumes when paused; a channel already recording is left as it is (200). A channel in
   * InSync mode records only with its group, so a single start is refused. A channel that cannot
   * record raises an OK dialog, is marked IsSomethingWrong, and the request answers 400.
   */
  recStart(index: number): void {
    const config = this.project.channel(index);
    const run = this.run(index);
    if (config.IsInSync) {
      throw new SimError(`Channel ${index + 1} is in InSync mode: start it with sync-rec-start, or turn InSync off`);
    }
    if (run.recording) {
      if (run.paused) this.resume(run);
      return;
    }
    this.refuseIfBlocked([index]);
    this.begin(run, false);
  }

  /** Pausing a channel that is not recording is refused: there is nothing to pause. Pausing twice is harmless. */
  recPause(index: number): void {
    this.project.channel(index);
    const run = this.run(index);
    if (!run.recording) throw new SimError(`Channel ${index + 1} is not recording; there is nothing to pause`);
    if (run.inSyncRec) throw new SimError(`Channel ${index + 1} records with the sync group; pause it with sync-rec-pause`);
    if (!run.paused) this.pause(run);
  }

  /** Stopping is always honoured: a stopped channel answers 200, and a channel of the sync group leaves the take. */
  recStop(index: number): void {
    this.project.channel(index);
    this.end(this.run(index));
  }

  syncOn(index: number): void {
    const config = this.project.channel(index);
    if (this.run(index).recording && !config.IsInSync) {
      throw new SimError(`Channel ${index + 1} is recording on its own; stop it before turning InSync on`);
    }
    config.IsInSync = true;
  }

  syncOff(index: number): void {
    const config = this.project.channel(index);
    if (this.run(index).inSyncRec) {
      throw new SimError(`Channel ${index + 1} is recording with the sync group; stop synchronous recording first`);
    }
    config.IsInSync = false;
  }

  /**
   * Starts every InSync channel of the grid together, or resumes a paused group. All or nothing: when
   * one of them cannot record, none starts, an OK dialog names them, and they are marked wrong.
   */
  syncRecStart(): void {
    const group = this.inSyncChannels();
    if (group.length === 0) throw new SimError('No channel is in InSync mode; turn sync on for at least one channel');
    const sync = this.syncState();
    if (sync.IsSyncRecording) {
      if (sync.IsSyncRecordingPause) {
        for (const run of this.runs) if (run.inSyncRec) this.resume(run);
        this.syncPaused = false;
      }
      return;
    }
    this.refuseIfBlocked(group);
    for (const index of group) this.begin(this.run(index), true);
    this.syncPaused = false;
  }

  syncRecPause(): void {
    if (!this.syncState().IsSyncRecording) throw new SimError('Synchronous recording is not running; there is nothing to pause');
    for (const run of this.runs) if (run.inSyncRec && !run.paused) this.pause(run);
    this.syncPaused = true;
  }

  /** Stopping a group that is not recording answers 200, like rec-stop. */
  syncRecStop(): void {
    for (const run of this.runs) if (run.inSyncRec) this.end(run);
    this.syncPaused = false;
  }

  // Channel configuration --------------------------------------------------------------------------

  setSource(index: number, name: string): void {
    this.refuseWhileRecording(index, 'changing its source');
    const source = this.project.sourceByName(name);
    this.project.channel(index).SourceName = source.Name;
    this.run(index).wrong = false;
  }

  unsetSource(index: number): void {
    this.refuseWhileRecording(index, 'removing its source');
    this.project.channel(index).SourceName = null;
  }

  /** Adding a destination the channel already has changes nothing (200). */
  addDestinationTo(index: number, name: string): void {
    this.refuseWhileRecording(index, 'changing its destinations');
    const destination = this.project.destinationByName(name);
    const config = this.project.channel(index);
    if (!config.Destinations.includes(destination.Name)) config.Destinations.push(destination.Name);
    this.run(index).wrong = false;
  }

  /** Removing a destination the channel does not have changes nothing (200); the name must exist. */
  removeDestinationFrom(index: number, name: string): void {
    this.refuseWhileRecording(index, 'changing its destinations');
    this.project.destinationByName(name);
    const config = this.project.channel(index);
    config.Destinations = config.Destinations.filter((d) => d !== name);
  }

  /**
   * Growing the grid is immediate. Shrinking it over recording channels asks first (Yes_No); ok stops
   * them and shrinks. Hidden channels keep their source and destinations for when the grid grows.
   */
  setGrid(size: GridSize): void {
    const cut = this.recordingIndexes().filter((i) => i >= size);
    if (cut.length === 0) {
      this.project.grid = size;
      return;
    }
    this.ask(
      `${listChannels(cut)} ${cut.length === 1 ? 'is' : 'are'} recording. Stop ${cut.length === 1 ? 'it' : 'them'} and change the grid to ${size} channel${size === 1 ? '' : 's'}?`,
      () => {
        for (const i of cut) this.end(this.run(i));
        this.project.grid = size;
      },
    );
  }

  // Sources and destinations in use ----------------------------------------------------------------

  /** Gain and audio may change while recording; the picture's device, line, format and URL may not. */
  updateSource(index: number, write: SourceWrite): void {
    const { Name } = this.project.source(index);
    const touchesVideo = ['VideoDevice', 'VideoLine', 'VideoFormat', 'StreamURL'].some((k) => k in write);
    if (touchesVideo) this.refuseIfUsedWhileRecording((c) => c.SourceName === Name, `source "${Name}"`, 'its video settings');
    this.project.updateSource(index, write);
  }

  deleteSource(index: number): void {
    const { Name } = this.project.source(index);
    this.refuseIfUsedWhileRecording((c) => c.SourceName === Name, `source "${Name}"`, 'it');
    this.project.deleteSource(index);
  }

  updateDestination(index: number, write: DestinationWrite): void {
    const { Name } = this.project.destination(index);
    this.refuseIfUsedWhileRecording((c) => c.Destinations.includes(Name), `destination "${Name}"`, 'it');
    this.project.updateDestination(index, write);
  }

  deleteDestination(index: number): void {
    const { Name } = this.project.destination(index);
    this.refuseIfUsedWhileRecording((c) => c.Destinations.includes(Name), `destination "${Name}"`, 'it');
    this.project.deleteDestination(index);
  }

  // Session ----------------------------------------------------------------------------------------

  /** Replaces the project (new session or load); while channels record it asks first and ok stops them. */
  replaceProject(next: Project, what: string): void {
    const recording = this.recordingIndexes();
    const apply = () => {
      for (const run of this.runs) this.end(run);
      this.runs = Array.from({ length: MAX_CHANNELS }, idleRun);
      this.project = next;
    };
    if (recording.length === 0) return apply();
    this.ask(`${listChannels(recording)} ${recording.length === 1 ? 'is' : 'are'} recording. Stop recording and ${what}?`, apply);
  }

  setSchedule(write: ScheduleWrite): void {
    this.project.setSchedule(write);
  }

  updateSettings(write: SettingsWrite): void {
    this.settings = { ...this.settings, ...write };
  }

  // Dialogs ----------------------------------------------------------------------------------------

  /** Shows a message with only OK (the simulator's control API and failed starts use it). */
  notify(content: string, buttons: PendingDialog['buttons'] = 'OK', confirm?: () => void): void {
    if (this.dialog) return;
    this.dialog = { content, buttons, ...(confirm ? { confirm } : {}) };
  }

  /** "ok" confirms or continues; any other action cancels. */
  answerDialog(action: string): void {
    const dialog = this.dialog;
    if (!dialog) throw new SimError('action: no dialog is shown');
    this.dialog = null;
    if (action === 'ok') dialog.confirm?.();
  }

  setWrong(index: number, wrong: boolean): void {
    this.project.channel(index);
    this.run(index).wrong = wrong;
  }

  /**
   * Frames lost on a recording channel, as a failing source or disk loses them (a fault the simulator is
   * told to show): drops and breaks are added to the take's counters, the buffer set. A channel not
   * recording has no take to lose frames from.
   */
  loseFrames(index: number, loss: { drops: number; breaks: number; buffered: number | null }): void {
    this.project.channel(index);
    const run = this.run(index);
    if (!run.recording) throw new SimError(`Channel ${index + 1} is not recording; it has no frames to lose`);
    run.drops += loss.drops;
    run.breaks += loss.breaks;
    if (loss.buffered !== null) run.buffered = loss.buffered;
  }

  /** The take ends at the recorder by itself (a disk error, someone at its console): no request asked for it. */
  stopByItself(index: number): void {
    this.project.channel(index);
    const run = this.run(index);
    if (!run.recording) throw new SimError(`Channel ${index + 1} is not recording; there is no take to stop`);
    this.end(run);
  }

  // Time -------------------------------------------------------------------------------------------

  /** Called about once a second: counters advance on running channels, and the schedule acts. */
  tick(): void {
    const now = this.now();
    const seconds = Math.floor((now - this.lastTickAt) / 1000);
    this.runs.forEach((run, i) => {
      if (!run.recording || run.paused) return;
      const source = this.project.channels[i]?.SourceName;
      const buffer = source ? (this.project.sources.find((s) => s.Name === source)?.StreamBuffer ?? 0) : 0;
      for (let s = 0; s < seconds; s++) Object.assign(run, advanceCounters(run, buffer, this.random));
    });
    this.runSchedule(this.lastTickAt, now);
    this.lastTickAt = now;
  }

  private runSchedule(previous: number, now: number): void {
    const { IsEnabled, StartTime, StopTime, ScheduleType } = this.project.schedule;
    if (!IsEnabled || StartTime === null || StopTime === null) return;
    const allChannels = ScheduleType === 'All channels';
    if (timeCrossed(StopTime, previous, now)) {
      this.syncRecStop();
      if (allChannels) for (const run of this.runs) this.end(run);
    }
    if (timeCrossed(StartTime, previous, now)) {
      const failures: string[] = [];
      const attempt = (start: () => void) => {
        try {
          start();
        } catch (error) {
          if (!(error instanceof SimError)) throw error;
          failures.push(error.message);
        }
      };
      if (this.inSyncChannels().length > 0) attempt(() => this.syncRecStart());
      if (allChannels) {
        for (let i = 0; i < this.project.grid; i++) {
          if (!this.project.channel(i).IsInSync && !this.run(i).recording) attempt(() => this.recStart(i));
        }
      }
      if (failures.length > 0 && !this.dialog) this.dialog = { content: `Scheduled start: ${failures.join('; ')}`, buttons: 'OK' };
    }
  }

  // Internals --------------------------------------------------------------------------------------

  /**
   * Channel-time written since the recorder started, summed over channels (two channels recording for a
   * second write two seconds; a paused one writes nothing), on the recorder's clock.
   */
  recordedMs(): number {
    return this.endedTakesMs + this.runs.reduce((sum, run) => sum + (run.recording ? this.recordedInTake(run) : 0), 0);
  }

  private recordedInTake(run: ChannelRun): number {
    return run.accumulatedMs + (run.segmentStartedAt === null ? 0 : this.now() - run.segmentStartedAt);
  }

  private run(index: number): ChannelRun {
    return this.runs[index] as ChannelRun;
  }

  private begin(run: ChannelRun, inSync: boolean): void {
    Object.assign(run, idleRun(), { recording: true, inSyncRec: inSync, segmentStartedAt: this.now() });
  }

  private pause(run: ChannelRun): void {
    run.accumulatedMs += this.now() - (run.segmentStartedAt ?? this.now());
    run.segmentStartedAt = null;
    run.paused = true;
  }

  private resume(run: ChannelRun): void {
    run.paused = false;
    run.segmentStartedAt = this.now();
  }

  /** The take ends; its counters stay readable until the next start. */
  private end(run: ChannelRun): void {
    if (!run.recording) return;
    this.endedTakesMs += this.recordedInTake(run);
    Object.assign(run, { recording: false, paused: false, inSyncRec: false, accumulatedMs: 0, segmentStartedAt: null });
    if (!this.runs.some((r) => r.inSyncRec)) this.syncPaused = false;
  }

  private inSyncChannels(): number[] {
    return this.project.channels.slice(0, this.project.grid).flatMap((c, i) => (c.IsInSync ? [i] : []));
  }

  private recordingIndexes(): number[] {
    return this.runs.flatMap((r, i) => (r.recording ? [i] : []));
  }

  private refuseIfBlocked(indexes: readonly number[]): void {
    const blocked = indexes.flatMap((i) => {
      const reason = this.project.recordBlocker(i);
      return reason === null ? [] : [{ index: i, reason }];
    });
    if (blocked.length === 0) return;
    for (const { index } of blocked) this.run(index).wrong = true;
    const message = blocked.map((b) => b.reason).join('; ');
    this.notify(message);
    throw new SimError(message);
  }

  private refuseWhileRecording(index: number, doing: string): void {
    this.project.channel(index);
    if (this.run(index).recording) throw new SimError(`Channel ${index + 1} is recording; stop it before ${doing}`);
  }

  private refuseIfUsedWhileRecording(uses: (config: ChannelConfig) => boolean, what: string, change: string): void {
    const busy = this.project.channels.findIndex((config, i) => uses(config) && this.run(i).recording);
    if (busy >= 0) throw new SimError(`index: ${what} is in use by recording channel ${busy + 1}; stop it before changing ${change}`);
  }

  /** Raises a Yes_No dialog for a destructive request; a second one while a dialog waits is refused. */
  private ask(content: string, confirm: () => void): void {
    if (this.dialog) throw new SimError(`A dialog is waiting for an answer: "${this.dialog.content}"`);
    this.dialog = { content, buttons: YES_NO, confirm };
  }
}

function listChannels(indexes: readonly number[]): string {
  const numbers = indexes.map((i) => i + 1);
  return numbers.length === 1 ? `Channel ${numbers[0]}` : `Channels ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}
