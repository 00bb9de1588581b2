// The simulated recorder's state as the interface's read bodies (before the wire codecs encode them).
import type { AppState } from '../api/app.js';
import type { Destination } from '../api/destination.js';
import type { Preset } from '../api/preset.js';
import type { SourceConfig, SourceListEntry } from '../api/source.js';
import { VIDEO_DEVICES, VIDEO_TYPE, audioFormats } from './catalogue.js';
import type { DestinationState, PresetState, SourceState } from './project.js';
import type { SimulatedRecorder } from './recorder.js';

export function sourceListEntry(source: SourceState, index: number): SourceListEntry {
  const device = source.VideoDevice.Type === VIDEO_TYPE.network ? `${source.VideoDevice.Name} (${source.StreamURL ?? 'no URL'})` : source.VideoDevice.Name;
  return { Index: index, Name: source.Name, Device: device };
}

export function sourceConfig(recorder: SimulatedRecorder, index: number): SourceConfig {
  const source = recorder.project.source(index);
  const device = VIDEO_DEVICES.find((d) => d.Type === source.VideoDevice.Type && d.Index === source.VideoDevice.Index);
  return {
    Name: source.Name,
    VideoDevice: { ...source.VideoDevice },
    AudioMeters: recorder.sourceMeters(index),
    VideoLines: [...(device?.lines ?? [])],
    VideoLine: source.VideoLine,
    VideoFormats: [...(device?.formats ?? [])],
    VideoFormat: source.VideoFormat,
    AudioDevice: source.AudioDevice,
    AudioFormats: audioFormats(source.AudioDevice),
    AudioFormat: source.AudioFormat,
    StreamBuffer: source.StreamBuffer,
    StreamURL: source.StreamURL,
    LTCTimecode: source.LTCTimecode,
    AudioGain: source.AudioGain,
  };
}

/** A destination as read: every written field and its Index, never the stream key. */
export function destinationView(destination: DestinationState, index: number): Destination {
  const { StreamKey: _secret, ...visible } = destination;
  return { Index: index, ...visible };
}

export function presetView(preset: PresetState, index: number): Preset {
  return { Index: index, ...preset, StartTimecode: { ...preset.StartTimecode } };
}

export function appState(recorder: SimulatedRecorder): AppState {
  const { project } = recorder;
  return {
    Sources: project.sources.map(sourceListEntry),
    Destinations: project.destinations.map(destinationView),
    Channels: recorder.channels(),
    EncodingPresets: project.presets.map(presetView),
  };
}
