// The simulated recorder's configuration (its "project"): sources, destinations, presets, channel
// assignments, grid, schedule and conversion. Every write is checked against the interface's rules
// on a copy and only then stored, so a refused request changes nothing.
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { ScheduleType, ScheduleWrite } from '../api/app.js';
import type { GridSize } from '../api/channel.js';
import type { ConversionWrite } from '../api/conversion.js';
import type { DestinationWrite } from '../api/destination.js';
import type { DeviceEntry, DeviceRef } from '../api/device.js';
import type { PresetWrite, Timecode } from '../api/preset.js';
import type { SourceWrite } from '../api/source.js';
import {
  AUDIO_DEVICES,
  AUDIO_TYPE,
  CONTAINERS,
  EMBEDDED_AUDIO_NAME,
  STREAM_SCHEMES,
  TIMECODES,
  VIDEO_DEVICES,
  VIDEO_TYPE,
  audioFormats,
  type VideoDeviceSpec,
} from './catalogue.js';
import { SimError } from './sim-error.js';

export const MAX_CHANNELS = 16;

export interface SourceState {
  Name: string;
  VideoDevice: DeviceEntry;
  VideoLine: string | null;
  VideoFormat: string | null;
  AudioDevice: DeviceEntry | null;
  AudioFormat: string | null;
  LTCTimecode: DeviceEntry | null;
  StreamBuffer: number;
  StreamURL: string | null;
  /** dB. */
  AudioGain: number;
}

export type DestinationState = Required<DestinationWrite>;
export type PresetState = Required<PresetWrite>;

export interface ChannelConfig {
  SourceName: string | null;
  Destinations: string[];
  IsInSync: boolean;
}

export interface ScheduleState {
  IsEnabled: boolean;
  /** hh:mm, or null. */
  StartTime: string | null;
  StopTime: string | null;
  ScheduleType: ScheduleType;
}

export type ConversionState = Required<ConversionWrite>;

export const DEFAULT_CONVERSION: ConversionState = {
  IsEnabled: false,
  VideoFormat: 'Original',
  FrameRate: 'Original',
  Interlace: 'Default',
  AudioSampleRate: 'Original',
  AudioChannel: 'Original',
  AudioBit: 'Original',
};

export const DEFAULT_SCHEDULE: ScheduleState = { IsEnabled: false, StartTime: null, StopTime: null, ScheduleType: 'All channels' };

const sameDevice = (a: { Type: number; Index?: number; Name: string }, b: DeviceEntry) =>
  a.Type === b.Type && a.Name === b.Name && (a.Index === undefined || a.Index === b.Index);

function findVideoDevice(ref: DeviceRef): VideoDeviceSpec {
  const found = VIDEO_DEVICES.find((d) => sameDevice(ref, d));
  if (!found) throw new SimError(`VideoDevice: no video device ${JSON.stringify(ref)}; take one from GET /api/devices/video`);
  return found;
}

function findAudioDevice(field: string, ref: DeviceRef): DeviceEntry {
  const found = AUDIO_DEVICES.find((d) => sameDevice(ref, d));
  if (!found) throw new SimError(`${field}: no audio device ${JSON.stringify(ref)}; take one from GET /api/devices/audio`);
  return { Type: found.Type, Index: found.Index, Name: found.Name };
}

function deviceEntry(spec: VideoDeviceSpec): DeviceEntry {
  return { Type: spec.Type, Index: spec.Index, Name: spec.Name };
}

function checkStreamUrl(field: string, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SimError(`${field}: expected a URL such as srt://host:port, got ${JSON.stringify(url)}`);
  }
  if (!(STREAM_SCHEMES as readonly string[]).includes(parsed.protocol)) {
    throw new SimError(`${field}: expected a URL with one of ${STREAM_SCHEMES.join(' ')}, got ${JSON.stringify(url)}`);
  }
}

function uniqueName(taken: readonly { Name: string }[], base: string): string {
  for (let n = taken.length + 1; ; n++) {
    const name = `${base} ${n}`;
    if (!taken.some((t) => t.Name === name)) return name;
  }
}

function checkNameFree(kind: string, items: readonly { Name: string }[], name: string, except?: number): void {
  const clash = items.findIndex((item, i) => i !== except && item.Name === name);
  if (clash >= 0) throw new SimError(`Name: a ${kind} named ${JSON.stringify(name)} already exists (index ${clash})`);
}

function checkIndex(kind: string, items: readonly unknown[], index: number): void {
  if (index >= items.length) {
    throw new SimError(
      items.length === 0 ? `index: there is no ${kind} (the list is empty), got ${index}` : `index: expected a ${kind} index from 0 to ${items.length - 1}, got ${index}`,
    );
  }
}

export class Project {
  grid: GridSize = 4;
  sources: SourceState[] = [];
  destinations: DestinationState[] = [];
  presets: PresetState[] = [];
  /** All sixteen slots are kept; the grid shows the first `grid` of them. */
  channels: ChannelConfig[] = Array.from({ length: MAX_CHANNELS }, () => ({ SourceName: null, Destinations: [], IsInSync: false }));
  schedule: ScheduleState = { ...DEFAULT_SCHEDULE };
  conversion: ConversionState = { ...DEFAULT_CONVERSION };

  constructor(readonly defaultLocation: string) {}

  // Sources ----------------------------------------------------------------------------------------

  source(index: number): SourceState {
    checkIndex('source', this.sources, index);
    return this.sources[index] as SourceState;
  }

  sourceByName(name: string): SourceState {
    const found = this.sources.find((s) => s.Name === name);
    if (!found) throw new SimError(`source_name: no source named ${JSON.stringify(name)}`);
    return found;
  }

  /** POST: omitted fields get defaults (first capture input, its first line and format, embedded audio). */
  addSource(write: SourceWrite): number {
    const firstCapture = VIDEO_DEVICES[0] as VideoDeviceSpec;
    const base: SourceState = {
      Name: write.Name ?? uniqueName(this.sources, 'Source'),
      VideoDevice: deviceEntry(firstCapture),
      VideoLine: firstCapture.lines[0] ?? null,
      VideoFormat: firstCapture.formats[0] ?? null,
      AudioDevice: AUDIO_DEVICES[0] as DeviceEntry,
      AudioFormat: null,
      LTCTimecode: null,
      StreamBuffer: 0,
      StreamURL: null,
      AudioGain: 0,
    };
    const next = this.mergeSource(base, write, undefined);
    this.sources.push(next);
    return this.sources.length - 1;
  }

  /** PUT: a partial update; renaming follows into every channel that uses the source. */
  updateSource(index: number, write: SourceWrite): void {
    const current = this.source(index);
    const next = this.mergeSource(current, write, index);
    if (next.Name !== current.Name) {
      for (const channel of this.channels) if (channel.SourceName === current.Name) channel.SourceName = next.Name;
    }
    this.sources[index] = next;
  }

  private mergeSource(current: SourceState, write: SourceWrite, index: number | undefined): SourceState {
    const next: SourceState = { ...current };
    if (write.Name !== undefined) {
      checkNameFree('source', this.sources, write.Name, index);
      next.Name = write.Name;
    }
    const deviceChanged = write.VideoDevice !== undefined;
    const device = deviceChanged ? findVideoDevice(write.VideoDevice as DeviceRef) : findVideoDevice(current.VideoDevice);
    next.VideoDevice = deviceEntry(device);
    const line = write.VideoLine ?? (deviceChanged || index === undefined ? (device.lines[0] ?? null) : current.VideoLine);
    if (line !== null && !device.lines.includes(line)) {
      throw new SimError(`VideoLine: expected one of ${device.lines.map((l) => JSON.stringify(l)).join(', ') || '(none)'} for ${device.Name}, got ${JSON.stringify(line)}`);
    }
    next.VideoLine = device.lines.length === 0 ? null : line;
    const format = write.VideoFormat ?? (deviceChanged || index === undefined ? (device.formats[0] ?? null) : current.VideoFormat);
    if (format !== null && !device.formats.includes(format)) {
      throw new SimError(`VideoFormat: expected one of ${device.formats.map((f) => JSON.stringify(f)).join(', ')} for ${device.Name}, got ${JSON.stringify(format)}`);
    }
    next.VideoFormat = format;

    if (write.StreamURL !== undefined) next.StreamURL = write.StreamURL === '' ? null : write.StreamURL;
    if (device.Type === VIDEO_TYPE.network) {
      if (next.StreamURL === null) throw new SimError('StreamURL: a network stream source needs a URL such as srt://host:port');
      checkStreamUrl('StreamURL', next.StreamURL);
    } else if (write.StreamURL) {
      throw new SimError(`StreamURL: only a network stream source takes a URL; ${device.Name} is a capture input`);
    } else {
      next.StreamURL = null;
    }

    if (write.AudioDevice !== undefined) {
      next.AudioDevice = write.AudioDevice === null ? null : findAudioDevice('AudioDevice', write.AudioDevice);
    }
    const formats = audioFormats(next.AudioDevice);
    next.AudioFormat = next.AudioFormat !== null && formats.includes(next.AudioFormat) ? next.AudioFormat : (formats[0] ?? null);

    if (write.LTCTimecode !== undefined) {
      const ltc = write.LTCTimecode === null ? null : findAudioDevice('LTCTimecode', write.LTCTimecode);
      if (ltc?.Type === AUDIO_TYPE.embedded) {
        throw new SimError(`LTCTimecode: "${EMBEDDED_AUDIO_NAME}" carries no LTC; choose an audio input`);
      }
      next.LTCTimecode = ltc;
    }
    if (write.StreamBuffer !== undefined) next.StreamBuffer = write.StreamBuffer;
    if (write.AudioGain !== undefined) next.AudioGain = write.AudioGain;
    return next;
  }

  deleteSource(index: number): void {
    const { Name } = this.source(index);
    for (const channel of this.channels) if (channel.SourceName === Name) channel.SourceName = null;
    this.sources.splice(index, 1);
  }

  // Destinations -----------------------------------------------------------------------------------

  destination(index: number): DestinationState {
    checkIndex('destination', this.destinations, index);
    return this.destinations[index] as DestinationState;
  }

  destinationByName(name: string): DestinationState {
    const found = this.destinations.find((d) => d.Name === name);
    if (!found) throw new SimError(`destination_name: no destination named ${JSON.stringify(name)}`);
    return found;
  }

  /** POST: a local file destination in the simulator's recordings folder, with the first fitting preset. */
  addDestination(write: DestinationWrite): number {
    const type = write.Type ?? 'Local File Recording';
    const preset = write.PresetName ?? this.presets.find((p) => p.Type === type)?.Name;
    if (preset === undefined) throw new SimError(`PresetName: no preset of type "${type}" exists; add one first or name one`);
    const base: DestinationState = {
      Name: write.Name ?? uniqueName(this.destinations, 'Destination'),
      Location: type === 'Local File Recording' ? this.defaultLocation : '',
      Type: type,
      URL: '',
      StreamKey: '',
      NamingTemplate: '%source%_%date%_%time%',
      OverwriteExistingFiles: false,
      SplitIntervalString: '',
      PresetName: preset,
      PostCapturingAction: 'Do Nothing',
      PostCapturingActionTarget: '',
    };
    const next = this.mergeDestination(base, write, undefined);
    this.destinations.push(next);
    return this.destinations.length - 1;
  }

  updateDestination(index: number, write: DestinationWrite): void {
    const current = this.destination(index);
    const next = this.mergeDestination(current, write, index);
    if (next.Name !== current.Name) {
      for (const channel of this.channels) channel.Destinations = channel.Destinations.map((d) => (d === current.Name ? next.Name : d));
    }
    this.destinations[index] = next;
  }

  private mergeDestination(current: DestinationState, write: DestinationWrite, index: number | undefined): DestinationState {
    const next: DestinationState = { ...current, ...write };
    if (write.Name !== undefined) checkNameFree('destination', this.destinations, write.Name, index);
    if (next.Type === 'Local File Recording') {
      if (!isAbsolute(next.Location)) throw new SimError(`Location: a file recording needs an absolute folder path, got ${JSON.stringify(next.Location)}`);
    } else {
      if (next.URL === '') throw new SimError('URL: a network streaming destination needs a URL such as rtmp://host/app');
      checkStreamUrl('URL', next.URL);
    }
    const preset = this.presets.find((p) => p.Name === next.PresetName);
    if (!preset) throw new SimError(`PresetName: no preset named ${JSON.stringify(next.PresetName)}`);
    if (preset.Type !== next.Type) {
      throw new SimError(`PresetName: preset ${JSON.stringify(preset.Name)} is for "${preset.Type}", not "${next.Type}"`);
    }
    if (next.PostCapturingAction !== 'Do Nothing' && !isAbsolute(next.PostCapturingActionTarget)) {
      throw new SimError(`PostCapturingActionTarget: "${next.PostCapturingAction}" needs an absolute folder path, got ${JSON.stringify(next.PostCapturingActionTarget)}`);
    }
    return next;
  }

  deleteDestination(index: number): void {
    const { Name } = this.destination(index);
    for (const channel of this.channels) channel.Destinations = channel.Destinations.filter((d) => d !== Name);
    this.destinations.splice(index, 1);
  }

  // Presets ----------------------------------------------------------------------------------------

  preset(index: number): PresetState {
    checkIndex('preset', this.presets, index);
    return this.presets[index] as PresetState;
  }

  addPreset(write: PresetWrite): number {
    const type = write.Type ?? 'Local File Recording';
    const containers = CONTAINERS[type] ?? {};
    const format = write.Format ?? (Object.keys(containers)[0] as string);
    const container = containers[format];
    const base: PresetState = {
      Name: write.Name ?? uniqueName(this.presets, 'Preset'),
      Type: type,
      Format: format,
      VideoCodec: container?.videoCodecs[0] ?? '',
      AudioCodec: container?.audioCodecs[0] ?? '',
      VideoBitrate: '8000',
      KeyFrameInterval: '50',
      StartTimecode: { ...(TIMECODES[0] as Timecode) },
      ManualTimecode: '00:00:00:00',
      Config: '',
    };
    const next = this.mergePreset(base, write, undefined);
    this.presets.push(next);
    return this.presets.length - 1;
  }

  updatePreset(index: number, write: PresetWrite): void {
    const current = this.preset(index);
    const next = this.mergePreset(current, write, index);
    const users = this.destinations.filter((d) => d.PresetName === current.Name);
    const mismatched = users.find((d) => d.Type !== next.Type);
    if (mismatched) throw new SimError(`Type: destination ${JSON.stringify(mismatched.Name)} uses this preset and is "${mismatched.Type}"`);
    for (const destination of users) destination.PresetName = next.Name;
    this.presets[index] = next;
  }

  private mergePreset(current: PresetState, write: PresetWrite, index: number | undefined): PresetState {
    const next: PresetState = { ...current, ...write };
    if (write.Name !== undefined) checkNameFree('preset', this.presets, write.Name, index);
    const containers = CONTAINERS[next.Type] ?? {};
    if (write.Type !== undefined && write.Format === undefined && !(next.Format in containers)) next.Format = Object.keys(containers)[0] as string;
    const container = containers[next.Format];
    if (!container) throw new SimError(`Format: expected one of ${Object.keys(containers).map((f) => JSON.stringify(f)).join(', ')} for "${next.Type}", got ${JSON.stringify(next.Format)}`);
    // A new container drops codecs it cannot carry unless the same write names them.
    if (write.VideoCodec === undefined && !container.videoCodecs.includes(next.VideoCodec)) next.VideoCodec = container.videoCodecs[0] as string;
    if (write.AudioCodec === undefined && !container.audioCodecs.includes(next.AudioCodec)) next.AudioCodec = container.audioCodecs[0] as string;
    if (!container.videoCodecs.includes(next.VideoCodec)) {
      throw new SimError(`VideoCodec: expected one of ${container.videoCodecs.map((c) => JSON.stringify(c)).join(', ')} for ${next.Format}, got ${JSON.stringify(next.VideoCodec)}`);
    }
    if (!container.audioCodecs.includes(next.AudioCodec)) {
      throw new SimError(`AudioCodec: expected one of ${container.audioCodecs.map((c) => JSON.stringify(c)).join(', ')} for ${next.Format}, got ${JSON.stringify(next.AudioCodec)}`);
    }
    const bitrate = Number(next.VideoBitrate);
    if (bitrate < 100 || bitrate > 400_000) throw new SimError(`VideoBitrate: expected 100 to 400000 kbit/s, got ${next.VideoBitrate}`);
    const gop = Number(next.KeyFrameInterval);
    if (gop < 1 || gop > 600) throw new SimError(`KeyFrameInterval: expected 1 to 600 frames, got ${next.KeyFrameInterval}`);
    const timecode = TIMECODES.find((t) => t.Type === next.StartTimecode.Type && t.Name === next.StartTimecode.Name);
    if (!timecode) throw new SimError(`StartTimecode: expected one of ${TIMECODES.map((t) => JSON.stringify(t)).join(', ')}`);
    return next;
  }

  deletePreset(index: number): void {
    const { Name } = this.preset(index);
    const user = this.destinations.find((d) => d.PresetName === Name);
    if (user) throw new SimError(`index: preset ${JSON.stringify(Name)} is used by destination ${JSON.stringify(user.Name)}`);
    this.presets.splice(index, 1);
  }

  presetFormats(index: number): string[] {
    return Object.keys(CONTAINERS[this.preset(index).Type] ?? {});
  }

  presetContainer(index: number) {
    const preset = this.preset(index);
    const container = CONTAINERS[preset.Type]?.[preset.Format];
    if (!container) throw new SimError(`index: preset ${JSON.stringify(preset.Name)} has no known format`);
    return container;
  }

  // Channels ---------------------------------------------------------------------------------------

  channel(index: number): ChannelConfig {
    if (index >= this.grid) throw new SimError(`index: expected a channel index from 0 to ${this.grid - 1} (the grid has ${this.grid}), got ${index}`);
    return this.channels[index] as ChannelConfig;
  }

  /** Why a channel cannot record now, or null when it can. */
  recordBlocker(index: number): string | null {
    const channel = this.channel(index);
    if (channel.SourceName === null) return `Channel ${index + 1} cannot record: no source is assigned`;
    if (channel.Destinations.length === 0) return `Channel ${index + 1} cannot record: no destination is assigned`;
    for (const name of channel.Destinations) {
      const destination = this.destinationByName(name);
      if (destination.Type === 'Local File Recording' && !existsSync(destination.Location)) {
        return `Channel ${index + 1} cannot record: the folder ${destination.Location} of destination "${name}" does not exist`;
      }
    }
    return null;
  }

  // Schedule ---------------------------------------------------------------------------------------

  /** Partial update; both times null disables the schedule; enabling needs both times. */
  setSchedule(write: ScheduleWrite): void {
    const next: ScheduleState = { ...this.schedule, ...write };
    if (next.StartTime === null && next.StopTime === null) {
      next.IsEnabled = false;
    } else if (next.IsEnabled) {
      if (next.StartTime === null) throw new SimError('StartTime: expected hh:mm to enable the schedule, got null');
      if (next.StopTime === null) throw new SimError('StopTime: expected hh:mm to enable the schedule, got null');
      if (next.StartTime === next.StopTime) throw new SimError(`StopTime: expected a time other than the StartTime ${next.StartTime}`);
    }
    this.schedule = next;
  }
}
