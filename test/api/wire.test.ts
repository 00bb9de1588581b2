// The odd wire shapes, decoded into friendly values and encoded back, in the one place they live.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ResourcesWire } from '../../src/api/app.js';
import { Channel } from '../../src/api/channel.js';
import { ConversionListsWire } from '../../src/api/conversion.js';
import { VideoDevices } from '../../src/api/device.js';
import { describeIssues } from '../../src/api/issues.js';
import { base64Png, durationText, formatClock, isBase64Text } from '../../src/api/scalars.js';
import { SourceConfig, SourceWrite } from '../../src/api/source.js';
import { seededRandom } from '../../src/simulator/random.js';

const wireChannel = {
  Index: 2,
  SourceName: 'Not Specified',
  Destinations: [],
  IsRecording: true,
  IsSomethingWrong: false,
  IsRecordingPause: false,
  IsInSync: false,
  IsInSyncRec: false,
  IsAudioPreview: false,
  RecordingDuration: '01:02:03',
  RecordingFPS: '24.98',
  RecordingBreaks: '1',
  RecordingDrops: '12',
  RecordingBuffered: '0',
};

describe('channel', () => {
  it('decodes durations, numbers as text and "Not Specified", keeping unknown fields', () => {
    const channel = Channel.parse({ ...wireChannel, FutureField: 'kept' });
    expect(channel).toMatchObject({ SourceName: null, RecordingDuration: 3723, RecordingFPS: 24.98, RecordingDrops: 12, RecordingBreaks: 1 });
    expect(channel.FutureField).toBe('kept');
  });

  it('encodes back to exactly the wire form', () => {
    expect(z.encode(Channel, Channel.parse(wireChannel))).toEqual(wireChannel);
  });

  it('names the field that does not match', () => {
    const result = Channel.safeParse({ ...wireChannel, RecordingDuration: '1:2' }, { reportInput: true });
    expect(result.success).toBe(false);
    expect(describeIssues((result as { error: z.ZodError }).error)).toBe('RecordingDuration: expected a duration as hh:mm:ss, got "1:2"');
  });

  it('counts hours past 99 on a long take', () => {
    expect(durationText.parse('100:00:01')).toBe(360001);
    expect(formatClock(360001)).toBe('100:00:01');
  });
});

describe('flat alternating arrays', () => {
  it('conversion lists become an object and back', () => {
    const wire = ['VideoFormats', ['Original', 'PAL'], 'FrameRates', ['25']];
    const lists = ConversionListsWire.parse(wire);
    expect(lists).toEqual({ VideoFormats: ['Original', 'PAL'], FrameRates: ['25'] });
    expect(z.encode(ConversionListsWire, lists)).toEqual(wire);
  });

  it('conversion lists out of step are refused', () => {
    expect(ConversionListsWire.safeParse(['VideoFormats', 'PAL']).success).toBe(false);
  });

  it('resources become an object with disk percentages as numbers, and back', () => {
    const wire = ['CurrentCPU', 3.5, 'TotalCPU', 20, 'CurrentRAM', 120, 'TotalRAM', 16000, 'DiskInfo', [{ Key: '/', Value: '45%' }]];
    const resources = ResourcesWire.parse(wire);
    expect(resources).toEqual({ CurrentCPU: 3.5, TotalCPU: 20, CurrentRAM: 120, TotalRAM: 16000, DiskInfo: [{ Key: '/', Value: 45 }] });
    expect(z.encode(ResourcesWire, resources)).toEqual(wire);
  });

  it('resources with a value of the wrong type name it', () => {
    const result = ResourcesWire.safeParse(['CurrentCPU', 'high', 'TotalCPU', 20, 'CurrentRAM', 1, 'TotalRAM', 2, 'DiskInfo', []], { reportInput: true });
    expect(result.success).toBe(false);
    expect(describeIssues((result as { error: z.ZodError }).error)).toMatch(/^CurrentCPU: expected a number, got "high"/);
  });
});

describe('sources', () => {
  it('gain is written as text and read as a number', () => {
    expect(z.encode(SourceWrite, { AudioGain: -6 })).toEqual({ AudioGain: '-6.0' });
    expect(SourceWrite.parse({ AudioGain: '-6.5' })).toEqual({ AudioGain: -6.5 });
    expect(SourceConfig.shape.AudioGain.parse('3.0')).toBe(3);
    expect(SourceConfig.shape.AudioGain.parse(3)).toBe(3);
  });

  it('refuses a stream buffer out of 0..9 and unknown fields, naming them', () => {
    const result = SourceWrite.safeParse({ StreamBuffer: 12, Nmae: 'x' }, { reportInput: true });
    expect(describeIssues((result as { error: z.ZodError }).error)).toBe(
      'StreamBuffer: expected an integer from 0 to 9, got 12; body: unknown field "Nmae"',
    );
  });
});

describe('video devices', () => {
  const entries = [{ Type: 0, Index: 0, Name: 'DeckLink' }];
  it('accept { Video: [...] } and a bare array alike', () => {
    expect(VideoDevices.parse({ Video: entries })).toEqual(entries);
    expect(VideoDevices.parse(entries)).toEqual(entries);
    expect(z.encode(VideoDevices, entries)).toEqual({ Video: entries });
  });
});

describe('preview', () => {
  it('Base64 of a PNG becomes its bytes; anything else is refused', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    expect(Buffer.from(base64Png.parse(png.toString('base64')))).toEqual(png);
    expect(base64Png.safeParse(Buffer.from('GIF89a').toString('base64')).success).toBe(false);
  });

  it('Base64 text is what /^[A-Za-z0-9+/]*={0,2}$/ accepts, and only that', () => {
    const pattern = /^[A-Za-z0-9+/]*={0,2}$/;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const texts = ['', '=', '==', '===', 'A', 'AB=', 'AB==', 'ABC===', 'A=B', '=AB', 'AB\n', 'A B', 'é', 'a-b', 'a_b', 'QUJD', '\u0100A'];
    const random = seededRandom(21);
    // Mostly Base64 with now and then a character from elsewhere (ASCII and beyond), at any place.
    for (let i = 0; i < 2000; i++) {
      let text = '';
      for (let n = Math.floor(random() * 12); n > 0; n--) text += random() < 0.93 ? alphabet[Math.floor(random() * 64)] : String.fromCharCode(Math.floor(random() * 300));
      texts.push(text + '='.repeat(Math.floor(random() * 4)));
    }
    for (const text of texts) expect(isBase64Text(text), JSON.stringify(text)).toBe(pattern.test(text));
    expect(texts.filter((text) => pattern.test(text)).length).toBeGreaterThan(500);
    expect(texts.filter((text) => !pattern.test(text)).length).toBeGreaterThan(500);
  });
});
