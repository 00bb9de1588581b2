// Every field of the interface's tables, written out here from the document (not taken from the
// code): the simulator must send each one in the type the document gives, and the client must decode
// each one to the value that wire text stands for. Both sides agreeing with the document is what
// makes them agree with each other. Each answer is read once and decoded with the operation table's
// schema, exactly as the client decodes it (live values move between two reads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationId } from '../../src/api/operations.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

/** How the document describes one field on the wire, and what a program should read from it. */
interface Field {
  readonly wire: string;
  /** true when the wire value has the document's type. */
  readonly is: (value: unknown) => boolean;
  /** The value the client should give for this wire value. */
  readonly read: (value: unknown) => unknown;
}

const same = (value: unknown) => value;
const integer: Field = { wire: 'integer', is: Number.isInteger, read: same };
const number: Field = { wire: 'number', is: (v) => typeof v === 'number', read: same };
const boolean: Field = { wire: 'boolean', is: (v) => typeof v === 'boolean', read: same };
const string: Field = { wire: 'string', is: (v) => typeof v === 'string', read: same };
const stringOrNull: Field = { wire: 'string or null', is: (v) => v === null || typeof v === 'string', read: same };
const stringArray: Field = { wire: 'array of string', is: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'), read: same };
const numberArray: Field = { wire: 'array of number', is: (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'), read: same };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const device: Field = { wire: 'object (Type, Index, Name)', is: (v) => isObject(v) && Number.isInteger(v.Type) && Number.isInteger(v.Index) && typeof v.Name === 'string', read: same };
const deviceOrNull: Field = { ...device, wire: 'object or null', is: (v) => v === null || device.is(v) };
const oneOf = (values: readonly string[]): Field => ({ wire: `one of ${values.join(', ')}`, is: (v) => typeof v === 'string' && values.includes(v), read: same });
/** "hh:mm:ss" is read as seconds. */
const duration: Field = {
  wire: 'string hh:mm:ss',
  is: (v) => typeof v === 'string' && /^\d{2,}:[0-5]\d:[0-5]\d$/.test(v),
  read: (v) => (v as string).split(':').reduce((total, part) => total * 60 + Number(part), 0),
};
const decimal2: Field = { wire: 'string, two fraction digits', is: (v) => typeof v === 'string' && /^\d+\.\d{2}$/.test(v), read: (v) => Number(v) };
const integerText: Field = { wire: 'integer as text', is: (v) => typeof v === 'string' && /^\d+$/.test(v), read: (v) => Number(v) };
/** The text "Not Specified" means no source. */
const sourceName: Field = { wire: 'string', is: (v) => typeof v === 'string', read: (v) => (v === 'Not Specified' ? null : v) };
const timeRead: Field = { wire: 'string hh:mm:ss, or null', is: (v) => v === null || (typeof v === 'string' && /^\d{2}:\d{2}:\d{2}$/.test(v)), read: same };

type Table = Readonly<Record<string, Field>>;

/** Channel (as returned in the channel list). */
const CHANNEL: Table = {
  Index: integer,
  SourceName: sourceName,
  Destinations: stringArray,
  IsRecording: boolean,
  IsSomethingWrong: boolean,
  IsRecordingPause: boolean,
  IsInSync: boolean,
  IsInSyncRec: boolean,
  IsAudioPreview: boolean,
  RecordingDuration: duration,
  RecordingFPS: decimal2,
  RecordingBreaks: integerText,
  RecordingDrops: integerText,
  RecordingBuffered: integerText,
};
const SOURCE_LIST_ENTRY: Table = { Index: integer, Name: string, Device: string };
/** Source configuration (returned when one source is read). */
const SOURCE: Table = {
  Name: string,
  VideoDevice: { wire: 'object (Type, Name)', is: (v) => isObject(v) && Number.isInteger(v.Type) && typeof v.Name === 'string', read: same },
  AudioMeters: numberArray,
  VideoLines: stringArray,
  VideoLine: stringOrNull,
  VideoFormats: stringArray,
  VideoFormat: stringOrNull,
  AudioDevice: deviceOrNull,
  AudioFormats: stringArray,
  AudioFormat: stringOrNull,
  StreamBuffer: { wire: 'integer 0 to 9', is: (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 9, read: same },
  StreamURL: stringOrNull,
  LTCTimecode: deviceOrNull,
  AudioGain: number,
};
/** The destination write body's fields; a read shows them all but the stream key (never echoed). */
const DESTINATION: Table = {
  Name: string,
  Location: string,
  Type: oneOf(['Local File Recording', 'Network Streaming']),
  URL: string,
  NamingTemplate: string,
  OverwriteExistingFiles: boolean,
  SplitIntervalString: string,
  PresetName: string,
  PostCapturingAction: oneOf(['Do Nothing', 'Move after recording to', 'Copy after recording to']),
  PostCapturingActionTarget: string,
};
const PRESET: Table = {
  Name: string,
  Type: oneOf(['Local File Recording', 'Network Streaming']),
  Format: string,
  VideoCodec: string,
  AudioCodec: string,
  VideoBitrate: string,
  KeyFrameInterval: string,
  StartTimecode: { wire: 'object', is: isObject, read: same },
  ManualTimecode: string,
  Config: string,
};
const CONVERSION_LISTS = {
  VideoFormats: ['Original', 'PAL', 'NTSC', 'HD720', 'FullHD', 'UHD'],
  FrameRates: ['Original', '23.98', '24', '25', '29.97', '30', '50', '59.94', '60'],
  Interlaces: ['Default', 'Field1First', 'Field2First', 'Progressive', 'Inverse', 'OneField', 'DeinterlaceF1', 'DeinterlaceF2'],
  AudioSampleRates: ['Original', '48000', '44100'],
  AudioChannels: ['Original', '1', '2', '4', '8', '16'],
  AudioBits: ['Original', '16', '32'],
};
const CONVERSION: Table = {
  IsEnabled: boolean,
  VideoFormat: oneOf(CONVERSION_LISTS.VideoFormats),
  FrameRate: oneOf(CONVERSION_LISTS.FrameRates),
  Interlace: oneOf(CONVERSION_LISTS.Interlaces),
  AudioSampleRate: oneOf(CONVERSION_LISTS.AudioSampleRates),
  AudioChannel: oneOf(CONVERSION_LISTS.AudioChannels),
  AudioBit: oneOf(CONVERSION_LISTS.AudioBits),
};
const PREFERENCES: Table = {
  LogFolder: string,
  PreviewRefresh: integer,
  LoadLastSession: boolean,
  PreviewStretch: boolean,
  AlwaysShowStatistics: boolean,
  AlwaysShowAudioMeters: boolean,
  StartAtStartup: boolean,
  OpenAsync: boolean,
  IsNotificationAdmin: boolean,
};
const SCHEDULE: Table = { IsEnabled: boolean, StartTime: timeRead, StopTime: timeRead, ScheduleType: oneOf(['All channels', 'In-sync only']) };
const SYNC: Table = { IsSyncRecording: boolean, IsSyncRecordingPause: boolean };
const DIALOG: Table = { IsDialog: boolean, DialogContent: string, Buttons: string };
const AUDIO_DEVICE: Table = { Type: integer, Index: integer, Name: string };
const DISK: Table = { Key: string, Value: { wire: 'percentage text', is: (v) => typeof v === 'string' && /^\d+(\.\d+)?\s*%$/.test(v), read: (v) => Number.parseFloat(v as string) } };

/** Checks one wire object against its table, and the client's decoded object against the wire. */
function agree(what: string, table: Table, wire: unknown, decoded: unknown): void {
  expect(isObject(wire), `${what}: the simulator sends an object`).toBe(true);
  expect(isObject(decoded), `${what}: the client gives an object`).toBe(true);
  const sent = wire as Record<string, unknown>;
  const read = decoded as Record<string, unknown>;
  for (const [name, field] of Object.entries(table)) {
    expect(name in sent, `${what}.${name}: sent by the simulator`).toBe(true);
    expect(field.is(sent[name]), `${what}.${name}: expected ${field.wire}, the simulator sent ${JSON.stringify(sent[name])}`).toBe(true);
    expect(read[name], `${what}.${name}: the client's value for ${JSON.stringify(sent[name])}`).toEqual(field.read(sent[name]));
  }
}

function agreeEach(what: string, table: Table, wire: unknown, decoded: unknown): void {
  expect(Array.isArray(wire), `${what}: the simulator sends an array`).toBe(true);
  const sent = wire as unknown[];
  expect(sent.length, `${what}: not empty`).toBeGreaterThan(0);
  expect((decoded as unknown[]).length).toBe(sent.length);
  sent.forEach((item, i) => agree(`${what}[${i}]`, table, item, (decoded as unknown[])[i]));
}

describe('the simulator and the client agree on every field of the interface', () => {
  let f: SimulatorFixture;
  /** One answer of the simulator: as sent, and as the client decodes it. */
  const read = async (id: OperationId, path: string): Promise<{ wire: unknown; decoded: unknown }> => {
    const answer = await f.raw('GET', path);
    expect(answer.status, `GET ${path}`).toBe(200);
    const decoded = operations[id].response.safeParse(answer.json);
    expect(decoded.error, `GET ${path}: the client's decoding`).toBeUndefined();
    return { wire: answer.json, decoded: decoded.data };
  };
  beforeAll(async () => {
    f = await startFixture();
    // Live values that are not all zero: a take running for 65 s, a gain off 0, a schedule set.
    await f.client.updateSource(0, { AudioGain: -6.5 });
    await f.client.recStart(0);
    f.clock.advance(65_000);
    f.sim.tick();
    await f.client.setSchedule({ IsEnabled: true, StartTime: '08:30', StopTime: '09:45', ScheduleType: 'In-sync only' });
  });
  afterAll(() => f.close());

  it('channels, in the list and one by one', async () => {
    const list = await read('listChannels', '/api/channels');
    agreeEach('channel', CHANNEL, list.wire, list.decoded);
    const one = await read('getChannel', '/api/channels/0');
    agree('channel 0', CHANNEL, one.wire, one.decoded);
    expect(one.decoded).toMatchObject({ RecordingDuration: 65, IsRecording: true });
  });

  it('sources: list entries and the configuration, AudioGain a number', async () => {
    const list = await read('listSources', '/api/sources');
    agreeEach('source list', SOURCE_LIST_ENTRY, list.wire, list.decoded);
    const one = await read('getSource', '/api/sources/0');
    agree('source 0', SOURCE, one.wire, one.decoded);
    expect((one.wire as { AudioGain: unknown }).AudioGain).toBe(-6.5);
  });

  it('destinations and presets (never the stream key)', async () => {
    const destinations = await read('listDestinations', '/api/destinations');
    agreeEach('destination', DESTINATION, destinations.wire, destinations.decoded);
    for (const destination of destinations.wire as Record<string, unknown>[]) expect(destination).not.toHaveProperty('StreamKey');
    const destination = await read('getDestination', '/api/destinations/0');
    agree('destination 0', DESTINATION, destination.wire, destination.decoded);
    const presets = await read('listPresets', '/api/presets/');
    agreeEach('preset', PRESET, presets.wire, presets.decoded);
    const preset = await read('getPreset', '/api/presets/0');
    agree('preset 0', PRESET, preset.wire, preset.decoded);
  });

  it('devices', async () => {
    const { wire, decoded } = await read('getAudioDevices', '/api/devices/audio');
    expect(isObject(wire) && Array.isArray(wire.Audio)).toBe(true);
    agreeEach('audio device', AUDIO_DEVICE, (wire as { Audio: unknown }).Audio, (decoded as { Audio: unknown }).Audio);
  });

  it('conversion lists (a flat alternating array) and the conversion settings', async () => {
    const lists = await read('getConversionLists', '/api/app/conversion-lists');
    expect(lists.wire).toEqual(Object.entries(CONVERSION_LISTS).flat());
    expect(lists.decoded).toEqual(CONVERSION_LISTS);
    const conversion = await read('getConversionConfig', '/api/app/conversion-config');
    agree('conversion', CONVERSION, conversion.wire, conversion.decoded);
  });

  it('preferences, schedule, sync state and dialog', async () => {
    const settings = await read('getSettings', '/api/app/settings');
    agree('preferences', PREFERENCES, settings.wire, settings.decoded);
    const schedule = await read('getSchedule', '/api/app/schedule');
    agree('schedule', SCHEDULE, schedule.wire, schedule.decoded);
    expect(schedule.wire).toMatchObject({ StartTime: '08:30:00', StopTime: '09:45:00' });
    const sync = await read('getSyncState', '/api/app/sync');
    agree('sync', SYNC, sync.wire, sync.decoded);
    const dialog = await read('getDialog', '/api/app/dialog');
    agree('dialog', DIALOG, dialog.wire, dialog.decoded);
  });

  it('resources: a flat array alternating names and values', async () => {
    const { wire, decoded } = await read('getResources', '/api/app/resources');
    const items = wire as unknown[];
    expect(items.filter((_, i) => i % 2 === 0)).toEqual(['CurrentCPU', 'TotalCPU', 'CurrentRAM', 'TotalRAM', 'DiskInfo']);
    const values = Object.fromEntries(Array.from({ length: items.length / 2 }, (_, i) => [items[2 * i], items[2 * i + 1]]));
    for (const name of ['CurrentCPU', 'TotalCPU', 'CurrentRAM', 'TotalRAM'] as const) {
      expect(typeof values[name], name).toBe('number');
      expect((decoded as Record<string, unknown>)[name], name).toBe(values[name]);
    }
    agreeEach('disk', DISK, values.DiskInfo, (decoded as { DiskInfo: unknown }).DiskInfo);
  });

  it('the full application state holds the four arrays in the shapes above', async () => {
    const { wire, decoded } = (await read('getAppState', '/api/app/state')) as { wire: Record<string, unknown>; decoded: Record<string, unknown> };
    agreeEach('state.Sources', SOURCE_LIST_ENTRY, wire.Sources, decoded.Sources);
    agreeEach('state.Destinations', DESTINATION, wire.Destinations, decoded.Destinations);
    agreeEach('state.Channels', CHANNEL, wire.Channels, decoded.Channels);
    agreeEach('state.EncodingPresets', PRESET, wire.EncodingPresets, decoded.EncodingPresets);
  });

  it('write bodies: AudioGain is text, the other source fields as the table gives them', async () => {
    f.sim.log.clear();
    const [embedded] = (await f.client.getAudioDevices()).Audio;
    await f.client.addSource({ Name: 'Written', AudioGain: -3, StreamBuffer: 2, AudioDevice: embedded ?? null });
    const body = JSON.parse(f.sim.log.list().at(-1)?.body ?? '') as Record<string, unknown>;
    expect(body).toEqual({ Name: 'Written', AudioGain: '-3.0', StreamBuffer: 2, AudioDevice: embedded });
    const index = (await f.client.listSources()).length - 1;
    const added = await read('getSource', `/api/sources/${index}`);
    agree('added source', SOURCE, added.wire, added.decoded);
    expect(added.wire).toMatchObject({ AudioGain: -3, StreamBuffer: 2 });
    // The typed client reads the same source the same way.
    expect(await f.client.getSource(index)).toMatchObject({ Name: 'Written', AudioGain: -3, StreamBuffer: 2 });

    // DELETE removes it: the list is as before the POST, and its index answers 400 naming it.
    await f.client.deleteSource(index);
    expect((await f.client.listSources()).map((s) => s.Name)).not.toContain('Written');
    const gone = await f.raw('GET', `/api/sources/${index}`);
    expect(gone.status).toBe(400);
    expect(JSON.stringify(gone.json)).toMatch(/source/);
  });
});

describe('the client reads AudioGain as a number or as text', () => {
  it('both shapes decode to the same dB', async () => {
    const { SourceConfig } = await import('../../src/api/source.js');
    expect(SourceConfig.shape.AudioGain.parse(-6)).toBe(-6);
    expect(SourceConfig.shape.AudioGain.parse('-6.0')).toBe(-6);
    expect(SourceConfig.shape.AudioGain.safeParse('loud').success).toBe(false);
  });
});
