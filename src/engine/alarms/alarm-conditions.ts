// Which alarm conditions hold now, derived from the recorders' states (each part with its age), what
// recdeck itself has sent them, their disks' time left and the recorder groups. Pure: the memory it needs
// between evaluations (the last channel reads, drop counts over the last minute, when a dialog came up) is
// a value passed in and returned, owned by the caller (alarm-decision.ts).
//
// A condition that cannot be judged because the data behind it is not live (the recorder is stale or
// offline) is "unknown", not false: its alarm neither clears nor is raised on old data; the recorder's
// own stale or offline alarm says why.
import type { Channel } from '../../api/channel.js';
import type { DiskTimeLeft } from '../disk-time.js';
import { memberLabel, type RecorderGroups } from '../recorder-group.js';
import { freshnessOf, type RecorderState } from '../recorder-state.js';
import { alarmId, type AlarmKind, type AlarmSubject, type Severity } from './alarm.js';
import type { AlarmSettings } from './alarm-settings.js';

/**
 * What recdeck's own writes to a recorder are doing, per channel they are about (null: about the whole
 * recorder, such as sync-rec or a project load, which covers every channel).
 */
export interface CommandActivity {
  /** The channel index of each write under way. */
  inFlight: readonly (number | null)[];
  /** When the last write about each channel index (or the whole recorder, null) was answered. */
  lastAnsweredAt: ReadonlyMap<number | null, number>;
  /**
   * The number of the first channels read begun after that answer (its link's nextReadNumber then).
   * Absent: not known, the time alone decides.
   */
  firstReadAfterAnswer?: ReadonlyMap<number | null, number>;
}

/**
 * Whether a stop of the channel shown by channels read number `read`, read at `at`, is recdeck's: a write
 * about it under way, or answered within the settle time, or answered before one of the first
 * `settlePolls` reads after it. The reads count too because the time alone assumes the reads come on
 * time: a machine stalled for longer than the settle time after the answer (a loaded host, a second
 * suite beside this one at load 15) reads the stop late, and recdeck's own stop raised a critical
 * unexpected-stop.
 */
function commandedStop(commands: CommandActivity, index: number, stop: { at: number; read: number }, settle: { ms: number; polls: number }): boolean {
  const about = (channel: number | null) => channel === null || channel === index;
  if (commands.inFlight.some(about)) return true;
  return [index, null].some((key) => (commands.lastAnsweredAt.get(key) ?? -Infinity) >= stop.at - settle.ms || stop.read < (commands.firstReadAfterAnswer?.get(key) ?? -Infinity) + settle.polls);
}

export interface RecorderObservation {
  state: RecorderState;
  commands: CommandActivity;
  /** Its recording disks' time left now (disk-time.ts); empty while nothing records. */
  disks: readonly DiskTimeLeft[];
}

export interface AlarmObservation {
  now: number;
  recorders: readonly RecorderObservation[];
  /** Every recorder group in use (the command line's and the profiles'). */
  groups: RecorderGroups;
}

/** A condition holding now: what the alarm it would raise is about and says. */
export type Condition = AlarmSubject;

interface Sample {
  at: number;
  value: number;
}

/**
 * A counter's reads over a window, kept as the reads where its value changed (the first read of each run
 * of equal values; the newest read's time is the recorder's channels read time). Judging needs only the
 * oldest kept value and time (the baseline) and the newest value, and a run's first read stands for all
 * of it, so a counter that does not move is judged as if every read were kept; a read that changes
 * nothing keeps the same array (no copy of a minute of reads per channel per read, issue 35 (d)).
 */
type Changes = readonly Sample[];
const NO_CHANGES: Changes = [];

interface ChannelMemory {
  recording: boolean;
  /** Drops plus breaks of this take, over the last minute. */
  losses: Changes;
  /** Buffered frames, over the growth window. */
  buffered: Changes;
  /** When the read came that showed this take stopped with no command of recdeck's around it; null otherwise. */
  stoppedAt: number | null;
}

interface RecorderMemory {
  /** The channels read the memory was last brought up to (read numbers, poller's), and when it was read (null: none yet). */
  channelsRead: number;
  channelsReadAt: number | null;
  channels: ReadonlyMap<number, ChannelMemory>;
  dialog: { content: string; since: number } | null;
}

export type ConditionMemory = ReadonlyMap<string, RecorderMemory>;
export const NO_CONDITION_MEMORY: ConditionMemory = new Map();

export interface ConditionsNow {
  memory: ConditionMemory;
  holding: Condition[];
  /** `kind:recorder` pairs that cannot be judged now (their data is not live). */
  unknown: Set<string>;
}

const LOSS_WINDOW_MS = 60_000;

export const scopeOf = (kind: AlarmKind, recorder: string) => `${kind}:${recorder}`;

export function conditionsNow(memory: ConditionMemory, observation: AlarmObservation, settings: AlarmSettings): ConditionsNow {
  const next = new Map<string, RecorderMemory>();
  const holding: Condition[] = [];
  const unknown = new Set<string>();
  const live = new Map<string, readonly Channel[]>();
  for (const recorder of observation.recorders) {
    const name = recorder.state.name;
    const judged = judgeRecorder(memory.get(name), recorder, observation.now, settings);
    next.set(name, judged.memory);
    holding.push(...judged.holding);
    for (const kind of judged.unknown) unknown.add(scopeOf(kind, name));
    if (judged.liveChannels) live.set(name, judged.liveChannels);
  }
  for (const [group, members] of observation.groups) {
    const found = groupDisagreement(group, members, live);
    if (found === null) unknown.add(scopeOf('group-disagree', group));
    else holding.push(...found);
  }
  if (settings.off.length === 0) return { memory: next, holding, unknown };
  const off = new Set(settings.off);
  return { memory: next, holding: holding.filter((c) => !off.has(c.kind)), unknown };
}

const CHANNEL_KINDS: readonly AlarmKind[] = ['channel-fault', 'drops-rising', 'buffer-growing', 'unexpected-stop', 'sync-channel-idle'];

function judgeRecorder(before: RecorderMemory | undefined, observed: RecorderObservation, now: number, settings: AlarmSettings) {
  const { state, commands } = observed;
  const name = state.name;
  const holding: Condition[] = [];
  const unknown: AlarmKind[] = [];
  const condition = (kind: AlarmKind, severity: Severity, text: string, channel: number | null = null, disk: string | null = null) =>
    holding.push({ id: alarmId(kind, name, channel, disk), kind, recorder: name, channel, disk, severity, text });

  // Reachability: offline needs failed reads (a recorder not yet asked is not offline); stale is data past its age.
  const freshness = freshnessOf(state, now);
  if (freshness === 'offline' && state.failures > 0) condition('recorder-offline', 'critical', `Recorder ${name} is offline: ${state.lastError ?? 'no answer'}`);
  if (freshness === 'stale') condition('recorder-stale', 'warning', `Recorder ${name}: its data is stale${state.lastError ? ` (${state.lastError})` : ''}`);

  const channelsLive = state.channels !== null && freshnessOf(state, now, ['channels']) === 'live';
  const memory = channelsLive ? rememberChannels(before, state, commands, settings) : (before ?? { channelsRead: 0, channelsReadAt: null, channels: new Map(), dialog: null });
  if (!channelsLive) unknown.push(...CHANNEL_KINDS);
  else {
    const syncLive = state.sync !== null && freshnessOf(state, now, ['sync']) === 'live';
    if (!syncLive) unknown.push('sync-channel-idle');
    for (const channel of state.channels ?? []) {
      const number = channel.Index + 1;
      // The label only for a condition that holds: a calm channel costs no text (it is judged at every poll).
      const label = () => channelLabel(name, channel);
      const remembered = memory.channels.get(channel.Index);
      if (channel.IsRecording && channel.IsSomethingWrong) condition('channel-fault', 'critical', `${label()}: the recorder reports a fault while recording`, number);
      const lost = rise(remembered?.losses ?? NO_CHANGES);
      if (channel.IsRecording && lost >= settings.dropsPerMinute) {
        condition('drops-rising', lost >= settings.dropsPerMinuteCritical ? 'critical' : 'warning', `${label()}: ${lost} frames dropped or broken in the last minute (${channel.RecordingDrops} drops, ${channel.RecordingBreaks} breaks this take)`, number);
      }
      if (channel.IsRecording && channel.RecordingBuffered >= settings.bufferedFrames && grewOver(remembered?.buffered ?? NO_CHANGES, memory.channelsReadAt, settings.bufferGrowingS * 1000 - state.pollMs)) {
        condition('buffer-growing', 'warning', `${label()}: ${channel.RecordingBuffered} frames buffered and growing (the recorder is not keeping up)`, number);
      }
      if (!channel.IsRecording && remembered?.stoppedAt != null) condition('unexpected-stop', 'critical', `${label()}: the take stopped without a command from recdeck`, number);
      if (syncLive && state.sync?.IsSyncRecording && channel.IsInSync && !channel.IsRecording) condition('sync-channel-idle', 'critical', `${label()}: in sync mode but not recording while sync-rec runs`, number);
    }
  }

  const dialogLive = state.dialog !== null && freshnessOf(state, now, ['dialog']) === 'live';
  let dialog = memory.dialog;
  if (!dialogLive) unknown.push('dialog-waiting');
  else if (state.dialog?.IsDialog) {
    if (dialog === null || dialog.content !== state.dialog.DialogContent) dialog = { content: state.dialog.DialogContent, since: state.readAt.dialog ?? now };
    const waitedS = Math.floor((now - dialog.since) / 1000);
    if (now - dialog.since >= settings.dialogWaitS * 1000) condition('dialog-waiting', 'warning', `Recorder ${name}: a dialog has waited ${waitedS} s for an answer: "${clip(dialog.content)}"`);
  } else dialog = null;

  for (const disk of observed.disks) {
    if (disk.level !== 'amber' && disk.level !== 'red') continue;
    const minutes = Math.floor((disk.secondsLeft ?? 0) / 60);
    condition('disk-time', disk.level === 'red' ? 'critical' : 'warning', `Recorder ${name}: disk ${disk.disk} is full in ${minutes} min at the rate it fills (${disk.used}% used)`, null, disk.disk);
  }
  return { memory: { ...memory, dialog }, holding, unknown, liveChannels: channelsLive ? state.channels : null };
}

/**
 * The channel memory brought up to the latest channels read (once per read: ticks between reads change
 * nothing). A channel whose memory this read does not change keeps the same object, and when none
 * changes, the same map.
 */
function rememberChannels(before: RecorderMemory | undefined, state: RecorderState, commands: CommandActivity, settings: AlarmSettings): RecorderMemory {
  const read = state.readNumber.channels;
  const at = state.readAt.channels as number;
  if (before && before.channelsRead === read) return before;
  // A take that stops within the settle time of a write of recdeck's about it (or while one is under way) is recdeck's.
  const settle = { ms: settings.commandSettlePolls * state.pollMs, polls: settings.commandSettlePolls };
  const channels = new Map<number, ChannelMemory>();
  let same = before !== undefined && before.channels.size === (state.channels ?? []).length;
  for (const channel of state.channels ?? []) {
    const old = before?.channels.get(channel.Index);
    const stoppedNow = old !== undefined && old.recording && !channel.IsRecording;
    const stoppedAt = channel.IsRecording ? null : stoppedNow ? (commandedStop(commands, channel.Index, { at, read }, settle) ? null : at) : (old?.stoppedAt ?? null);
    const losses = channel.IsRecording ? windowed(old?.recording ? old.losses : NO_CHANGES, { at, value: channel.RecordingDrops + channel.RecordingBreaks }, LOSS_WINDOW_MS) : NO_CHANGES;
    const buffered = channel.IsRecording ? windowed(old?.recording ? old.buffered : NO_CHANGES, { at, value: channel.RecordingBuffered }, settings.bufferGrowingS * 1000) : NO_CHANGES;
    const kept = old !== undefined && old.recording === channel.IsRecording && old.losses === losses && old.buffered === buffered && old.stoppedAt === stoppedAt;
    if (!kept) same = false;
    channels.set(channel.Index, kept ? old : { recording: channel.IsRecording, losses, buffered, stoppedAt });
  }
  return { channelsRead: read, channelsReadAt: at, channels: same && before ? before.channels : channels, dialog: before?.dialog ?? null };
}

/**
 * The changes within the window before the newest read, plus the newest read when its value differs
 * from the last change; a counter that fell (a new take, a reset) starts afresh. The newest change at or
 * before the window's start is kept as the baseline the rise is measured from, so a rise just inside
 * counts. (The same value and, for the growth rule, the same "a read at or before the window's start"
 * as keeping every read: see Changes.) Nothing changed: the same array.
 */
function windowed(changes: Changes, sample: Sample, windowMs: number): Changes {
  const last = changes.at(-1);
  if (last !== undefined && sample.value < last.value) return [sample];
  const from = sample.at - windowMs;
  const firstInside = changes.findIndex((s) => s.at > from);
  const start = firstInside === -1 ? Math.max(0, changes.length - 1) : Math.max(0, firstInside - 1);
  const kept = start === 0 ? changes : changes.slice(start);
  return last !== undefined && sample.value === last.value ? kept : [...kept, sample];
}

function rise(changes: Changes): number {
  return changes.length < 2 ? 0 : (changes.at(-1) as Sample).value - (changes[0] as Sample).value;
}

/** Rose, over reads that span at least `spanMs` up to the newest (read at `newestAt`); a single step up is not growth. */
function grewOver(changes: Changes, newestAt: number | null, spanMs: number): boolean {
  const first = changes[0];
  const last = changes.at(-1);
  return first !== undefined && last !== undefined && newestAt !== null && last.value > first.value && newestAt - first.at >= spanMs;
}

/** Members of a group recording differently on a channel; null when any member's channels are not live (cannot tell). */
function groupDisagreement(group: string, members: readonly string[], live: ReadonlyMap<string, readonly Channel[]>): Condition[] | null {
  const channelsOf = members.map((member) => live.get(member));
  if (channelsOf.some((c) => c === undefined)) return null;
  const found: Condition[] = [];
  const indexes = new Set(channelsOf.flatMap((channels) => (channels ?? []).map((c) => c.Index)));
  for (const index of [...indexes].sort((a, b) => a - b)) {
    const recording = members.filter((_, i) => channelsOf[i]?.find((c) => c.Index === index)?.IsRecording === true);
    if (recording.length === 0 || recording.length === members.length) continue;
    const idle = members.filter((m) => !recording.includes(m));
    const number = index + 1;
    found.push({
      id: alarmId('group-disagree', group, number, null),
      kind: 'group-disagree',
      recorder: group,
      channel: number,
      disk: null,
      severity: 'critical',
      text: `Group ${group}, channel ${number}: records on ${recording.map(memberLabel).join(', ')} but not on ${idle.map(memberLabel).join(', ')}`,
    });
  }
  return found;
}

function channelLabel(recorder: string, channel: Channel): string {
  return `Recorder ${recorder}, channel ${channel.Index + 1}${channel.SourceName ? ` (${channel.SourceName})` : ''}`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
