// What the simulated recorder's machine has, described as data: capture inputs, a network-stream
// entry, audio inputs (one for embedded audio only) and the encoders a preset can choose from.
import type { DeviceEntry } from '../api/device.js';
import type { Timecode } from '../api/preset.js';

export const VIDEO_TYPE = { capture: 0, network: 1 } as const;
export const AUDIO_TYPE = { embedded: 0, input: 1 } as const;

export interface VideoDeviceSpec extends DeviceEntry {
  lines: readonly string[];
  formats: readonly string[];
}

const SDI_FORMATS = ['HD 1080i 50', 'HD 1080p 25', 'HD 1080p 50', 'HD 1080i 59.94', 'HD 720p 50'] as const;
const HDMI_FORMATS = [...SDI_FORMATS, 'UHD 2160p 25'] as const;

function cards(name: string, inputs: number, first: number, lines: readonly string[], formats: readonly string[]): VideoDeviceSpec[] {
  return Array.from({ length: inputs }, (_, i) => ({
    Type: VIDEO_TYPE.capture,
    Index: first + i,
    Name: `${name} (${i + 1})`,
    lines,
    formats,
  }));
}

/** Sixteen SDI inputs, one HDMI input, and the network-stream entry. */
export const VIDEO_DEVICES: readonly VideoDeviceSpec[] = [
  ...cards('DeckLink Quad 2', 8, 0, ['SDI'], SDI_FORMATS),
  ...cards('DeckLink Duo 2', 4, 8, ['SDI'], SDI_FORMATS),
  ...cards('DeckLink 8K Pro', 4, 12, ['SDI', 'HDMI'], HDMI_FORMATS),
  { Type: VIDEO_TYPE.capture, Index: 16, Name: 'Magewell Pro Capture HDMI', lines: ['HDMI'], formats: HDMI_FORMATS },
  { Type: VIDEO_TYPE.network, Index: 0, Name: 'Network Stream', lines: [], formats: ['Auto'] },
];

/** Frames per second of a video format; network streams are taken as 25. */
export function framesPerSecond(format: string | null): number {
  if (format === null || format === 'Auto') return 25;
  const match = /(\d+)([ip]) ([\d.]+)$/.exec(format);
  if (!match) return 25;
  const rate = Number(match[3]);
  return match[2] === 'i' ? rate / 2 : rate;
}

export const EMBEDDED_AUDIO_NAME = 'Embedded audio (video device only)';

export const AUDIO_DEVICES: readonly DeviceEntry[] = [
  { Type: AUDIO_TYPE.embedded, Index: 0, Name: EMBEDDED_AUDIO_NAME },
  { Type: AUDIO_TYPE.input, Index: 0, Name: 'Line In (Focusrite Scarlett 2i2)' },
  { Type: AUDIO_TYPE.input, Index: 1, Name: 'Microphone (USB Audio Device)' },
  { Type: AUDIO_TYPE.input, Index: 2, Name: 'LTC In (Scarlett 2i2 input 2)' },
];

export function audioFormats(device: DeviceEntry | null): string[] {
  if (device === null) return [];
  if (device.Type === AUDIO_TYPE.embedded) return ['48000 Hz, 16 channels, 24 bit', '48000 Hz, 2 channels, 24 bit'];
  return ['48000 Hz, 2 channels, 24 bit', '44100 Hz, 2 channels, 16 bit'];
}

interface ContainerSpec {
  videoCodecs: readonly string[];
  audioCodecs: readonly string[];
}

/** Containers per destination type, and the codecs each container takes. */
export const CONTAINERS: Readonly<Record<string, Readonly<Record<string, ContainerSpec>>>> = {
  'Local File Recording': {
    MP4: { videoCodecs: ['H.264', 'H.265'], audioCodecs: ['AAC'] },
    MOV: { videoCodecs: ['ProRes 422', 'ProRes 422 HQ', 'H.264'], audioCodecs: ['PCM', 'AAC'] },
    MXF: { videoCodecs: ['XDCAM HD422', 'DNxHD'], audioCodecs: ['PCM'] },
    TS: { videoCodecs: ['H.264', 'H.265'], audioCodecs: ['AAC', 'MP2'] },
  },
  'Network Streaming': {
    'FLV (RTMP)': { videoCodecs: ['H.264'], audioCodecs: ['AAC'] },
    'MPEG-TS (SRT)': { videoCodecs: ['H.264', 'H.265'], audioCodecs: ['AAC', 'MP2'] },
    HLS: { videoCodecs: ['H.264'], audioCodecs: ['AAC'] },
  },
};

export const TIMECODES: readonly Timecode[] = [
  { Type: 0, Name: 'System Time' },
  { Type: 1, Name: 'Source Timecode' },
  { Type: 2, Name: 'LTC' },
  { Type: 3, Name: 'Manual' },
];

/** URL schemes accepted for network sources and streaming destinations. */
export const STREAM_SCHEMES = ['rtmp:', 'rtmps:', 'srt:', 'rtsp:', 'udp:', 'rtp:', 'http:', 'https:'] as const;
