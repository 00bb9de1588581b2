// What a control shows, derived from the recorder's state: a pure function of its inputs, so equal
// inputs give equal pictures and a key is redrawn only when what it shows really changed.
import type { Channel } from '../api/channel.js';
import { dialogOffersCancel } from '../api/app.js';
import type { Binding, Page, Show } from '../profiles/schema.js';
import { defaultShowOf } from './actions/index.js';
import { channelOf } from './actions/parameters.js';
import type { ChannelPicture, ChannelState, DialogPicture, Freshness, Picture, ResourcesPicture, SyncGroupState, SyncKeyAction } from './picture.js';
import type { DiskTimeLeft } from './disk-time.js';
import { alarmsPicture, type AlarmReading } from './alarms/alarm-picture.js';
import { bindingActions } from './binding-actions.js';
import { takeDuration } from './duration-clock.js';
import type { GainTruth } from './gain-truth.js';
import type { ShownPreview } from './recorder-extras.js';
import { NextChange, endOf, stepAfter } from './next-change.js';
import { FAST_PARTS, ageSeconds, freshnessOf, liveUntil, oldestReadAt, type RecorderState, type StatePart } from './recorder-state.js';
import type { ControlDefinition, KeyControl } from './surface.js';

/**
 * A show spec with the shorthand strings expanded, and the kinds the engine adds: a sync key with what
 * it does on press, a grid key with the size it sets, and inferred labels.
 */
export type ResolvedShow =
  | Exclude<Show, 'sync' | 'grid'>
  | { sync: SyncKeyAction | null }
  | { grid: number | null }
  | { inferred: Picture }
  /** One of the keys that together show the dialog's question: its place among them, in reading order. */
  | { question: { slot: number; slots: number } };

/** How long each page of a long dialog message stays up. */
export const DIALOG_PAGE_MS = 3000;
/** Dialog keys alternate bright and dim each half second while a dialog is up. */
export const FLASH_PHASE_MS = 500;
/**
 * A failure's reason on a key is paged when long; beyond this it is cut (the whole is in the log and the
 * audit trail): 240 characters are eight pages on a small key, all a flash should hold up.
 */
const REASON_CHARS = 240;

export interface ShowInputs {
  /** The binding's recorder, or undefined when the name is not configured. */
  recorder: RecorderState | undefined;
  recorderName: string;
  now: number;
  /** Interpolated durations by 0-based channel index; when the one read next changes is noted in `changes`. */
  durationOf: (index: number, changes: NextChange) => number | null;
  /** Time left on the recorder's recording disks (asked only by a resources key). */
  diskTimesLeft: () => readonly DiskTimeLeft[];
  /** Thumbnail store keys by 0-based channel index. */
  /** A channel's preview as it may be shown now (its age when past its time as live), or null when none has come. */
  thumbnailOf: (index: number) => ShownPreview | null;
  /** A source's gain and levels by name, each as current as its own reads and writes (gain-truth.ts). */
  meterOf: (sourceName: string) => GainTruth | null;
  selectedChannel: number;
  /** The profile selects channels (select-channel or "selected"), so the selected one is framed. */
  marksSelection: boolean;
  page: { name: string; number: number; count: number };
  /** Keys of the page in front show the dialog's question, so the answer keys need show only their word. */
  questionShown: boolean;
  /** The alarm engine's book as it is now (an alarms key); absent or null where recdeck runs none. */
  alarms?: () => AlarmReading | null;
  /**
   * Where the picture notes when what it shows next changes by time alone (meterOf notes its own as it
   * is read).
   */
  changes: NextChange;
}

export function channelStateOf(channel: Channel, freshness: Freshness): ChannelState {
  if (freshness !== 'live') return freshness;
  // A fault while recording keeps the take in view (REC with a FAULT warning, see channelPicture).
  if (channel.IsSomethingWrong && !channel.IsRecording) return 'wrong';
  if (channel.IsRecording && channel.IsInSyncRec) return channel.IsRecordingPause ? 'sync-paused' : 'sync-recording';
  if (channel.IsRecording && channel.IsRecordingPause) return 'paused';
  if (channel.IsRecording) return 'recording';
  if (channel.IsInSync) return 'armed';
  if (channel.SourceName === null) return 'no-source';
  return 'idle';
}

/** Each picture is as fresh as the oldest part it shows; its age is that part's. */
function freshOf(recorder: RecorderState, inputs: ShowInputs, parts: readonly StatePart[]): { freshness: Freshness; ageS: number | null } {
  const freshness = freshnessShown(recorder, inputs, parts);
  if (freshness === 'live') return { freshness, ageS: null };
  const ageS = ageSeconds(recorder, inputs.now, parts);
  const since = oldestReadAt(recorder, parts);
  if (ageS !== null && since !== null) inputs.changes.at(stepAfter(since, 1000, ageS));
  return { freshness, ageS };
}

/** How fresh the parts are, for a picture that shows no age: live parts turn stale with time alone. */
function freshnessShown(recorder: RecorderState, inputs: ShowInputs, parts: readonly StatePart[]): Freshness {
  const freshness = freshnessOf(recorder, inputs.now, parts);
  const until = liveUntil(recorder, parts);
  if (freshness === 'live' && until !== null) inputs.changes.at(endOf(until));
  return freshness;
}

export function pictureFor(show: ResolvedShow, inputs: ShowInputs): Picture {
  if (typeof show === 'object' && 'inferred' in show) return show.inferred;
  // The alarms key is about every recorder, not the binding's: drawn from the alarm engine's book.
  if (show === 'alarms') return alarmsPicture(inputs.alarms?.() ?? null, inputs.now, inputs.changes, FLASH_PHASE_MS);
  const { recorder } = inputs;
  if (recorder === undefined) return { kind: 'label', text: `NO RECORDER\n${inputs.recorderName}`, icon: null, color: '#000000', active: null };

  if (typeof show === 'string') {
    switch (show) {
      case 'dialog':
        return dialogPicture('message', { slot: 0, slots: 1 }, recorder, inputs);
      case 'dialog-ok':
        return dialogPicture('ok', null, recorder, inputs);
      case 'dialog-cancel':
        return dialogPicture('cancel', null, recorder, inputs);
      case 'resources': {
        const r = recorder.resources;
        const ram = r && r.TotalRAM > 0 ? Math.round((r.CurrentRAM / r.TotalRAM) * 100) : null;
        const fullest = r?.DiskInfo.reduce<{ label: string; used: number } | null>((top, d) => (top === null || d.Value > top.used ? { label: d.Key, used: d.Value } : top), null) ?? null;
        const cpu = r ? Math.round(r.TotalCPU) : null;
        const resources = freshnessShown(recorder, inputs, ['resources']);
        // Time left is shown only from live reads: an estimate from old ones would count down a guess.
        const timeLeft = resources === 'live' ? soonestFull(inputs.diskTimesLeft(), inputs) : null;
        return { kind: 'resources', cpu, ram, disk: fullest, timeLeft, warning: [cpu, ram, fullest?.used].some((v) => v !== null && v !== undefined && v > 90), freshness: resources };
      }
      case 'schedule': {
        const s = recorder.schedule;
        return { kind: 'schedule', enabled: s?.IsEnabled ?? false, start: s?.StartTime ?? null, stop: s?.StopTime ?? null, type: s?.ScheduleType ?? '', freshness: freshnessShown(recorder, inputs, ['schedule']) };
      }
      case 'page':
        return { kind: 'page', ...inputs.page };
      case 'status': {
        const { freshness, ageS } = freshOf(recorder, inputs, FAST_PARTS);
        return {
          kind: 'status',
          recorder: inputs.recorderName,
          freshness,
          ageS,
          recording: freshness === 'live' ? (recorder.channels ?? []).filter((c) => c.IsRecording).length : 0,
          dialog: freshness === 'live' && recorder.dialog?.IsDialog === true,
          page: inputs.page,
        };
      }
      case 'blank':
        return { kind: 'blank' };
    }
  }
  if ('question' in show) return dialogPicture('message', show.question, recorder, inputs);
  if ('sync' in show) {
    const sync = freshOf(recorder, inputs, ['channels', 'sync']);
    return syncPicture(recorder, sync.freshness, sync.ageS, show.sync, inputs);
  }
  if ('grid' in show) {
    const freshness = freshnessShown(recorder, inputs, ['channels']);
    const live = freshness === 'live' && recorder.channels !== null;
    return { kind: 'grid', channels: live ? (recorder.channels?.length ?? null) : null, target: show.grid, freshness };
  }
  if ('channel' in show) {
    const channels = freshOf(recorder, inputs, ['channels']);
    return channelPicture(channelOf(show.channel, inputs.selectedChannel), show.thumbnail, recorder, channels.freshness, channels.ageS, inputs);
  }
  if ('meter' in show) {
    const number = channelOf(show.meter, inputs.selectedChannel);
    const source = recorder.channels?.[number - 1]?.SourceName ?? null;
    const meter = source === null ? null : inputs.meterOf(source);
    // The meter is as current as its own reads (and the gain as this bridge's writes): a channel list
    // read a moment ago says nothing of a gain read long ago. With no source there is no meter: the
    // channel's own data says so, with its age.
    if (meter === null) {
      const channels = freshOf(recorder, inputs, ['channels']);
      return { kind: 'meter', channel: number, source, levels: null, gainDb: null, freshness: channels.freshness, ageS: channels.ageS };
    }
    return { kind: 'meter', channel: number, source, levels: meter.levels, gainDb: meter.db, freshness: meter.freshness, ageS: meter.ageS };
  }
  return { kind: 'label', text: show.label, icon: show.icon ?? null, color: show.color ?? null, active: null };
}

/**
 * The disk that fills first, in whole minutes (a key redrawn once a minute, not each frame), while its
 * estimate is steady. Both the minutes and the level count down by time alone, between reads: their next
 * steps are noted. (Every disk counts down at the same pace, so the soonest stays the soonest.)
 */
function soonestFull(disks: readonly DiskTimeLeft[], inputs: Pick<ShowInputs, 'changes'>): ResourcesPicture['timeLeft'] {
  let soonest: DiskTimeLeft | null = null;
  for (const d of disks) if (d.secondsLeft !== null && (soonest === null || d.secondsLeft < (soonest.secondsLeft as number))) soonest = d;
  if (soonest === null || soonest.secondsLeft === null || soonest.fullAt === null || soonest.level === null) return null;
  const minutes = Math.floor(soonest.secondsLeft / 60);
  // A minute is shown while the time left is at least that many minutes: one less the first whole ms after.
  inputs.changes.at(endOf(soonest.fullAt - minutes * 60_000));
  inputs.changes.at(soonest.levelChangesAt);
  return { disk: soonest.disk, minutes, level: soonest.level };
}

/**
 * A dialog key. The last known dialog stays on its keys when the data gets old, marked with its age and
 * not flashing: "no dialog" would be a claim the bridge cannot make.
 */
function dialogPicture(role: DialogPicture['role'], place: { slot: number; slots: number } | null, recorder: RecorderState, inputs: ShowInputs): Picture {
  const { now, changes } = inputs;
  const dialog = recorder.dialog;
  const seen = freshOf(recorder, inputs, ['dialog']);
  const active = dialog?.IsDialog === true;
  // An answer key shows the question's start only where no key shows the question.
  const text = active && (role === 'message' || !inputs.questionShown) ? (dialog?.DialogContent ?? '') : '';
  const flashing = active && seen.freshness === 'live';
  const phase = Math.floor(now / FLASH_PHASE_MS);
  if (flashing) changes.at(stepAfter(0, FLASH_PHASE_MS, phase));
  const textPage = active ? Math.floor(now / DIALOG_PAGE_MS) : 0;
  if (active) changes.at(stepAfter(0, DIALOG_PAGE_MS, textPage));
  return {
    kind: 'dialog',
    role,
    active,
    flashPhase: flashing && phase % 2 === 0,
    text,
    textPage,
    offersCancel: active && dialog !== null && dialogOffersCancel(dialog),
    slot: place?.slot ?? 0,
    slots: place?.slots ?? 1,
    ageS: seen.ageS,
  };
}

function channelPicture(number: number, thumbnail: boolean, recorder: RecorderState, freshness: Freshness, ageS: number | null, inputs: ShowInputs): Picture {
  const index = number - 1;
  const channel = recorder.channels?.[index];
  if (recorder.channels !== null && channel === undefined) {
    return { kind: 'label', text: `CH ${number}\nNOT IN GRID`, icon: null, color: null, active: null };
  }
  const state = channel ? channelStateOf(channel, freshness) : freshness === 'live' ? 'stale' : freshness;
  const recording = channel?.IsRecording === true;
  // A preview shows only over a live state; past its own time as live it is shown marked stale.
  const preview = thumbnail && freshness === 'live' ? inputs.thumbnailOf(index) : null;
  const picture: ChannelPicture = {
    kind: 'channel',
    channel: number,
    state,
    lastSeen: state === 'stale' && channel ? (channelStateOf(channel, 'live') as Exclude<ChannelState, 'stale' | 'offline'>) : null,
    source: channel?.SourceName ?? null,
    durationS: channel ? takeDuration(channel, freshness, (at) => inputs.durationOf(at, inputs.changes)) : null,
    fps: recording && channel && !channel.IsRecordingPause ? shownFps(channel.RecordingFPS) : null,
    drops: channel?.RecordingDrops ?? 0,
    warning: recording && channel ? problemsOf(channel) : null,
    buffered: recording && channel ? backlogOf(channel) : 0,
    audioPreview: channel?.IsAudioPreview ?? false,
    thumbnail: preview?.key ?? null,
    ageS,
  };
  // Set after, not spread in: a spread makes an object for nothing on every key without a stale preview.
  if (preview?.ageS != null) picture.previewAgeS = preview.ageS;
  return inputs.marksSelection && inputs.selectedChannel === number ? { ...picture, overlay: { selected: true } } : picture;
}

/**
 * What is wrong with a take, as its key warns of it, or null: most recording keys have nothing, and are
 * derived at every refresh, so nothing is made for them.
 */
function problemsOf(channel: Channel): string | null {
  let warning: string | null = channel.IsSomethingWrong ? 'FAULT' : null;
  if (channel.RecordingDrops > 0) warning = warning === null ? `DROP ${channel.RecordingDrops}` : `${warning} DROP ${channel.RecordingDrops}`;
  if (channel.RecordingBreaks > 0) warning = warning === null ? `BRK ${channel.RecordingBreaks}` : `${warning} BRK ${channel.RecordingBreaks}`;
  return warning;
}

/**
 * Frames waiting to be written, when more than a second of video is: the disk is not keeping up. A few
 * frames always wait in the buffer; shown as they jitter they would say nothing and redraw every key.
 */
function backlogOf(channel: Channel): number {
  const secondOfVideo = Math.max(25, Math.round(channel.RecordingFPS));
  return channel.RecordingBuffered > secondOfVideo ? channel.RecordingBuffered : 0;
}

/**
 * The measured rate jitters by hundredths from one poll to the next (24.96, 25.01, …). Shown as it
 * comes, every recording key would be redrawn, and re-sent to the device, at every poll for nothing; to
 * the nearest half frame it stays put while it is steady and still shows a real drop.
 */
export function shownFps(measured: number): number {
  return Math.round(measured * 2) / 2;
}

function syncPicture(recorder: RecorderState, freshness: Freshness, ageS: number | null, action: SyncKeyAction | null, inputs: ShowInputs): Picture {
  const channels = recorder.channels ?? [];
  const members = channels.filter((c) => c.IsInSync).map((c) => c.Index + 1);
  const running = recorder.sync?.IsSyncRecording === true;
  let state: SyncGroupState;
  if (freshness !== 'live') state = freshness;
  else if (members.length === 0 && !running) state = 'none';
  else if (running) state = recorder.sync?.IsSyncRecordingPause ? 'paused' : 'recording';
  else state = 'armed';
  const takers = channels.filter((c) => c.IsInSyncRec);
  const outOfSync = running ? channels.filter((c) => c.IsInSync && !c.IsInSyncRec).map((c) => c.Index + 1) : [];
  const durationS = running ? longestTake(takers, freshness, inputs) : null;
  return { kind: 'sync', state, action, members, outOfSync, durationS, ageS };
}

/**
 * The group's clock: its longest take. It steps when one of the longest does; a shorter take catching up
 * with it changes nothing shown, so only the longest takes' next seconds are noted.
 */
function longestTake(takers: readonly Channel[], freshness: Freshness, inputs: ShowInputs): number | null {
  const takes = takers.map((channel) => {
    const changes = new NextChange(inputs.now);
    return { seconds: takeDuration(channel, freshness, (at) => inputs.durationOf(at, changes)), changes };
  });
  let longest: number | null = null;
  for (const { seconds } of takes) if (seconds !== null && (longest === null || seconds > longest)) longest = seconds;
  for (const { seconds, changes } of takes) if (seconds === longest) inputs.changes.at(changes.moment);
  return longest;
}

/**
 * What a binding shows when its profile does not say: what its first action's table entry shows (its
 * channel, the sync group, the dialog, a label naming it, …). A `sync` or `grid` show takes from the
 * action what a press does (start, stop, …) or the size it sets.
 */
export function showOf(binding: Binding): ResolvedShow {
  // Asked for every control at every refresh, and by the demand and the question's keys: worked out once
  // per binding. A binding is never changed (a reloaded profile is new objects), so what is kept for it
  // cannot go out of date, and goes with it.
  let show = SHOWS.get(binding);
  if (show === undefined) {
    show = resolveShow(binding);
    SHOWS.set(binding, show);
  }
  return show;
}

const SHOWS = new WeakMap<Binding, ResolvedShow>();

function resolveShow(binding: Binding): ResolvedShow {
  if (binding.show !== undefined && binding.show !== 'sync' && binding.show !== 'grid') return binding.show;
  const action = bindingActions(binding)[0]?.action;
  const own = action === undefined ? null : defaultShowOf(action);
  if (binding.show === 'sync') return { sync: typeof own === 'object' && own !== null && 'sync' in own ? own.sync : null };
  if (binding.show === 'grid') return { grid: typeof own === 'object' && own !== null && 'grid' in own ? own.grid : null };
  return own ?? 'blank';
}

/**
 * A failure's reason as a key shows it: the recorder's message whole, on one line of words (the key pages
 * it); only a message longer than a flash should hold up is cut, and the log has it whole.
 */
export function flashReason(message: string): string {
  const whole = message.replace(/\s+/g, ' ').trim();
  return whole.length <= REASON_CHARS ? whole : `${whole.slice(0, REASON_CHARS - 1).trimEnd()}…`;
}

/**
 * The keys of a page that together show the dialog's question, in reading order: those that show the
 * dialog, and on the dialog overlay every key with no binding there (the overlay's free keys), so the
 * question is read whole at once, each key a run of its words.
 */
export function questionKeys(page: Page, controls: readonly ControlDefinition[], overlay: boolean): string[] {
  const keys = controls.filter((control): control is KeyControl => control.kind === 'key');
  const shows = (control: KeyControl) => {
    const binding = page.controls[control.id];
    return binding === undefined ? overlay : showOf(binding) === 'dialog';
  };
  return keys
    .filter(shows)
    .sort((a, b) => a.row - b.row || a.column - b.column)
    .map((control) => control.id);
}
