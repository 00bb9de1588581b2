// Round trips of sources, destinations, presets, devices and application settings; live values.
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecorderError } from '../../src/api/errors.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

let f: SimulatorFixture;
beforeEach(async () => {
  f = await startFixture();
});
afterEach(() => f.close());

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('expected a refusal'), (e: unknown) => e as RecorderError);

describe('sources', () => {
  it('POST fills defaults; PUT changes only what it names', async () => {
    await f.client.addSource({ Name: 'Studio B' });
    const sources = await f.client.listSources();
    const index = sources.length - 1;
    expect(sources[index]).toEqual({ Index: index, Name: 'Studio B', Device: 'DeckLink Quad 2 (1)' });
    const created = await f.client.getSource(index);
    expect(created).toMatchObject({
      Name: 'Studio B',
      VideoDevice: { Type: 0, Index: 0, Name: 'DeckLink Quad 2 (1)' },
      VideoLine: 'SDI',
      VideoFormat: 'HD 1080i 50',
      AudioDevice: { Type: 0, Index: 0, Name: 'Embedded audio (video device only)' },
      StreamBuffer: 0,
      StreamURL: null,
      LTCTimecode: null,
      AudioGain: 0,
    });
    expect(created.VideoFormats).toContain('HD 720p 50');

    await f.client.updateSource(index, { AudioGain: -4.5, StreamBuffer: 3 });
    const updated = await f.client.getSource(index);
    expect(updated).toMatchObject({ Name: 'Studio B', AudioGain: -4.5, StreamBuffer: 3, VideoFormat: 'HD 1080i 50' });
    expect(JSON.parse(f.sim.log.list().at(-2)?.body ?? '')).toEqual({ AudioGain: '-4.5', StreamBuffer: 3 });
  });

  it('a POST with no name gets a unique one', async () => {
    await f.client.addSource({});
    await f.client.addSource({});
    const names = (await f.client.listSources()).map((s) => s.Name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.at(-1)).toMatch(/^Source \d+$/);
  });

  it('a network stream source takes a URL and shows it as its device', async () => {
    const stage = (await f.client.listSources()).find((s) => s.Name === 'Stage Stream');
    expect(stage?.Device).toBe('Network Stream (srt://127.0.0.1:9710)');
    const config = await f.client.getSource(stage?.Index ?? -1);
    expect(config).toMatchObject({ VideoLines: [], VideoLine: null, VideoFormats: ['Auto'], StreamURL: 'srt://127.0.0.1:9710', StreamBuffer: 3 });
  });

  it('renaming follows into channels; deleting empties them; in use while recording it is kept', async () => {
    await f.client.updateSource(0, { Name: 'Wide' });
    expect((await f.client.getChannel(0)).SourceName).toBe('Wide');
    await f.client.recStart(0);
    expect((await failure(f.client.deleteSource(0))).serviceMessage).toBe('index: source "Wide" is in use by recording channel 1; stop it before changing it');
    expect((await failure(f.client.updateSource(0, { VideoFormat: 'HD 720p 50' }))).status).toBe(400);
    await f.client.updateSource(0, { AudioGain: 3 }); // gain may move while recording
    await f.client.recStop(0);
    await f.client.deleteSource(0);
    expect((await f.client.getChannel(0)).SourceName).toBeNull();
    expect((await f.client.listSources())[0]?.Name).toBe('Cam 2');
  });

  it('meters move while a channel uses the source, and follow its gain', async () => {
    const a = (await f.client.getSource(0)).AudioMeters;
    f.clock.advance(370);
    const b = (await f.client.getSource(0)).AudioMeters;
    expect(a).toHaveLength(2);
    expect(a).not.toEqual(b);
    await f.client.updateSource(0, { AudioGain: -20 });
    const quieter = (await f.client.getSource(0)).AudioMeters;
    expect(quieter[0]).toBeCloseTo((b[0] as number) - 20, 0);
    const unused = (await f.client.listSources()).findIndex((s) => s.Name === 'Stage Stream');
    expect((await f.client.getSource(unused)).AudioMeters).toEqual([-90, -90]);
  });
});

describe('destinations', () => {
  it('POST fills defaults; the read has every field but the stream key', async () => {
    await f.client.addDestination({ Name: 'Twitch', Type: 'Network Streaming', URL: 'rtmp://live.example.invalid/app', StreamKey: 'sk_live_123', PresetName: 'RTMP 6 Mbps' });
    const list = await f.client.listDestinations();
    const twitch = list.at(-1);
    expect(twitch).toMatchObject({ Index: 3, Name: 'Twitch', Type: 'Network Streaming', URL: 'rtmp://live.example.invalid/app', PresetName: 'RTMP 6 Mbps', PostCapturingAction: 'Do Nothing' });
    expect(JSON.stringify(list)).not.toContain('sk_live_123');
    expect(JSON.stringify(await f.client.getDestination(3))).not.toContain('sk_live_123');
    expect(JSON.stringify(await f.client.getAppState())).not.toContain('sk_live_123');
  });

  it('PUT is partial and renaming follows into channels', async () => {
    await f.client.updateDestination(0, { Name: 'Disk A', OverwriteExistingFiles: true });
    expect(await f.client.getDestination(0)).toMatchObject({ Name: 'Disk A', OverwriteExistingFiles: true, PresetName: 'H.264 8 Mbps' });
    expect((await f.client.getChannel(1)).Destinations).toEqual(['Disk A']);
  });

  it('cannot change or go while a recording channel uses it', async () => {
    await f.client.recStart(1);
    expect((await failure(f.client.deleteDestination(0))).serviceMessage).toMatch(/in use by recording channel 2/);
    expect((await failure(f.client.updateDestination(0, { NamingTemplate: 'x' }))).status).toBe(400);
    await f.client.recStop(1);
    await f.client.deleteDestination(0);
    expect((await f.client.getChannel(1)).Destinations).toEqual([]);
  });
});

describe('presets', () => {
  it('POST defaults, partial PUT, and the lists that depend on Type and Format', async () => {
    await f.client.addPreset({ Name: 'Edit MXF', Format: 'MXF' });
    const presets = await f.client.listPresets();
    const index = presets.length - 1;
    expect(presets[index]).toMatchObject({ Index: index, Name: 'Edit MXF', Type: 'Local File Recording', Format: 'MXF', VideoCodec: 'XDCAM HD422', AudioCodec: 'PCM' });
    expect(await f.client.getPresetFormats(index)).toEqual(['MP4', 'MOV', 'MXF', 'TS']);
    expect(await f.client.getPresetVideoCodecs(index)).toEqual(['XDCAM HD422', 'DNxHD']);
    expect(await f.client.getPresetAudioCodecs(index)).toEqual(['PCM']);
    expect((await f.client.getPresetTimecodes(index)).map((t) => t.Name)).toEqual(['System Time', 'Source Timecode', 'LTC', 'Manual']);

    await f.client.updatePreset(index, { Format: 'MOV' });
    expect(await f.client.getPreset(index)).toMatchObject({ Format: 'MOV', VideoCodec: 'ProRes 422', AudioCodec: 'PCM' });
    expect(await f.client.getPresetVideoCodecs(index)).toEqual(['ProRes 422', 'ProRes 422 HQ', 'H.264']);
    await f.client.deletePreset(index);
    expect(await f.client.listPresets()).toHaveLength(index);
  });

  it('renaming follows into destinations; a type change that breaks one is refused', async () => {
    await f.client.updatePreset(0, { Name: 'H264' });
    expect((await f.client.getDestination(0)).PresetName).toBe('H264');
    expect((await failure(f.client.updatePreset(0, { Type: 'Network Streaming' }))).serviceMessage).toBe(
      'Type: destination "Local Disk" uses this preset and is "Local File Recording"',
    );
  });
});

describe('devices', () => {
  it('lists audio devices with one for embedded audio only, and capture cards plus a network stream', async () => {
    const audio = await f.client.getAudioDevices();
    expect(audio.Audio.filter((d) => /embedded audio/i.test(d.Name))).toHaveLength(1);
    const video = await f.client.getVideoDevices();
    expect(video.filter((d) => d.Type === 0).length).toBeGreaterThanOrEqual(16);
    expect(video.find((d) => d.Type === 1)?.Name).toBe('Network Stream');
  });

  it('device entries are usable as they come in a source write', async () => {
    const video = (await f.client.getVideoDevices()).find((d) => d.Name === 'Magewell Pro Capture HDMI');
    const audio = (await f.client.getAudioDevices()).Audio.find((d) => d.Name.startsWith('LTC In'));
    if (!video || !audio) throw new Error('catalogue changed');
    await f.client.addSource({ Name: 'HDMI', VideoDevice: { Type: video.Type, Index: video.Index, Name: video.Name }, LTCTimecode: { Type: audio.Type, Index: audio.Index, Name: audio.Name } });
    const index = (await f.client.listSources()).length - 1;
    expect(await f.client.getSource(index)).toMatchObject({ VideoLine: 'HDMI', LTCTimecode: { Name: audio.Name } });
  });
});

describe('application', () => {
  it('conversion: lists as the document gives them; config is a partial update', async () => {
    expect(await f.client.getConversionLists()).toEqual({
      VideoFormats: ['Original', 'PAL', 'NTSC', 'HD720', 'FullHD', 'UHD'],
      FrameRates: ['Original', '23.98', '24', '25', '29.97', '30', '50', '59.94', '60'],
      Interlaces: ['Default', 'Field1First', 'Field2First', 'Progressive', 'Inverse', 'OneField', 'DeinterlaceF1', 'DeinterlaceF2'],
      AudioSampleRates: ['Original', '48000', '44100'],
      AudioChannels: ['Original', '1', '2', '4', '8', '16'],
      AudioBits: ['Original', '16', '32'],
    });
    await f.client.setConversionConfig({ IsEnabled: true, FrameRate: '50' });
    expect(await f.client.getConversionConfig()).toEqual({
      IsEnabled: true,
      VideoFormat: 'Original',
      FrameRate: '50',
      Interlace: 'Default',
      AudioSampleRate: 'Original',
      AudioChannel: 'Original',
      AudioBit: 'Original',
    });
  });

  it('settings: a partial update of the writable ones', async () => {
    const before = await f.client.getSettings();
    await f.client.updateSettings({ AlwaysShowStatistics: false, PreviewRefresh: 10 });
    expect(await f.client.getSettings()).toEqual({ ...before, AlwaysShowStatistics: false, PreviewRefresh: 10 });
  });

  it('schedule: written hh:mm, read hh:mm:ss; both times null disables', async () => {
    await f.client.setSchedule({ IsEnabled: true, StartTime: '08:30', StopTime: '09:45', ScheduleType: 'In-sync only' });
    expect(await f.client.getSchedule()).toEqual({ IsEnabled: true, StartTime: '08:30:00', StopTime: '09:45:00', ScheduleType: 'In-sync only' });
    await f.client.setSchedule({ StartTime: null, StopTime: null });
    expect(await f.client.getSchedule()).toEqual({ IsEnabled: false, StartTime: null, StopTime: null, ScheduleType: 'In-sync only' });
  });

  it('resources: this host\'s memory and the disk behind the recordings folder', async () => {
    const resources = await f.client.getResources();
    expect(resources.TotalRAM).toBeGreaterThan(100);
    expect(resources.CurrentRAM).toBeGreaterThan(10);
    expect(resources.TotalCPU).toBeGreaterThanOrEqual(0);
    expect(resources.DiskInfo.length).toBeGreaterThanOrEqual(1);
    for (const disk of resources.DiskInfo) expect(disk.Value).toBeGreaterThanOrEqual(0);
  });
});

describe('live values', () => {
  it('counters advance on ticks while recording and stay until the next start', async () => {
    await f.client.recStart(0);
    for (let s = 0; s < 600; s++) {
      f.clock.advance(1000);
      f.sim.tick();
    }
    const after = await f.client.getChannel(0);
    expect(after.RecordingDuration).toBe(600);
    expect(after.RecordingDrops).toBeGreaterThan(0);
    await f.client.recStop(0);
    expect((await f.client.getChannel(0)).RecordingDrops).toBe(after.RecordingDrops);
    await f.client.recStart(0);
    expect((await f.client.getChannel(0)).RecordingDrops).toBe(0);
  });
});

describe('preview', () => {
  it('is a PNG of at most 640x360, distinct per channel and over time', async () => {
    const one = Buffer.from(await f.client.getChannelPreview(0));
    const two = Buffer.from(await f.client.getChannelPreview(1));
    const meta = await sharp(one).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBeLessThanOrEqual(640);
    expect(meta.height).toBeLessThanOrEqual(360);
    expect(one.equals(two)).toBe(false);
    f.clock.advance(1000);
    expect(Buffer.from(await f.client.getChannelPreview(0)).equals(one)).toBe(false);
  });
});
