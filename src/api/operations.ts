// Every operation of the Recording Control Service, described as data: method, path template, the
// request body's schema and the answer's schema. The client sends through this table and the
// simulator routes through it, so the two cannot drift apart.
import * as z from 'zod';
import { AppState, Dialog, ProjectPath, ResourcesWire, Schedule, ScheduleWrite, Settings, SettingsWrite, SyncState } from './app.js';
import { Channel, ChannelList } from './channel.js';
import { ConversionConfig, ConversionListsWire, ConversionWrite } from './conversion.js';
import { Destination, DestinationList, DestinationWrite } from './destination.js';
import { AudioDevices, VideoDevices } from './device.js';
import { NameList, Preset, PresetList, PresetWrite, TimecodeList } from './preset.js';
import { base64Png } from './scalars.js';
import { SourceConfig, SourceList, SourceWrite } from './source.js';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * The answer to a write. The interface does not describe it; the simulator sends `{}` and the client
 * accepts any JSON (or nothing) and gives back nothing, so no caller relies on an undocumented body.
 */
export const Ack = z.unknown();

export interface Operation<
  M extends HttpMethod = HttpMethod,
  P extends string = string,
  Req extends z.ZodType | undefined = z.ZodType | undefined,
  Res extends z.ZodType = z.ZodType,
> {
  readonly method: M;
  readonly path: P;
  readonly request: Req;
  readonly response: Res;
}

function op<M extends HttpMethod, P extends string, Res extends z.ZodType, Req extends z.ZodType | undefined = undefined>(
  method: M,
  path: P,
  response: Res,
  request?: Req,
): Operation<M, P, Req, Res> {
  return { method, path, response, request: request as Req };
}

export const operations = {
  // Channels (16)
  listChannels: op('GET', '/api/channels', ChannelList),
  getChannel: op('GET', '/api/channels/{index}', Channel),
  setChannelCount: op('PUT', '/api/channels/count/{grid_size}', Ack),
  getChannelPreview: op('GET', '/api/channels/{index}/preview', base64Png),
  setChannelSource: op('PUT', '/api/channels/{index}/set-source/{source_name}', Ack),
  unsetChannelSource: op('PUT', '/api/channels/{index}/unset-source', Ack),
  addChannelDestination: op('PUT', '/api/channels/{index}/add-dest/{destination_name}', Ack),
  deleteChannelDestination: op('PUT', '/api/channels/{index}/delete-dest/{destination_name}', Ack),
  syncOn: op('PUT', '/api/channels/{index}/sync-on', Ack),
  syncOff: op('PUT', '/api/channels/{index}/sync-off', Ack),
  recStart: op('PUT', '/api/channels/{index}/rec-start', Ack),
  recPause: op('PUT', '/api/channels/{index}/rec-pause', Ack),
  recStop: op('PUT', '/api/channels/{index}/rec-stop', Ack),
  syncRecStart: op('PUT', '/api/channels/sync-rec-start', Ack),
  syncRecPause: op('PUT', '/api/channels/sync-rec-pause', Ack),
  syncRecStop: op('PUT', '/api/channels/sync-rec-stop', Ack),
  // Sources (5)
  addSource: op('POST', '/api/sources', Ack, SourceWrite),
  updateSource: op('PUT', '/api/sources/{index}', Ack, SourceWrite),
  getSource: op('GET', '/api/sources/{index}', SourceConfig),
  listSources: op('GET', '/api/sources', SourceList),
  deleteSource: op('DELETE', '/api/sources/{index}', Ack),
  // Destinations (5)
  addDestination: op('POST', '/api/destinations', Ack, DestinationWrite),
  updateDestination: op('PUT', '/api/destinations/{index}', Ack, DestinationWrite),
  getDestination: op('GET', '/api/destinations/{index}', Destination),
  listDestinations: op('GET', '/api/destinations', DestinationList),
  deleteDestination: op('DELETE', '/api/destinations/{index}', Ack),
  // Presets (9); the list's path keeps the interface's trailing slash.
  addPreset: op('POST', '/api/presets', Ack, PresetWrite),
  updatePreset: op('PUT', '/api/presets/{index}', Ack, PresetWrite),
  getPreset: op('GET', '/api/presets/{index}', Preset),
  getPresetFormats: op('GET', '/api/presets/{index}/formats', NameList),
  getPresetVideoCodecs: op('GET', '/api/presets/{index}/videoCodecs', NameList),
  getPresetAudioCodecs: op('GET', '/api/presets/{index}/audioCodecs', NameList),
  getPresetTimecodes: op('GET', '/api/presets/{index}/timecodes', TimecodeList),
  listPresets: op('GET', '/api/presets/', PresetList),
  deletePreset: op('DELETE', '/api/presets/{index}', Ack),
  // Devices (2)
  getAudioDevices: op('GET', '/api/devices/audio', AudioDevices),
  getVideoDevices: op('GET', '/api/devices/video', VideoDevices),
  // Application (15)
  getAppState: op('GET', '/api/app/state', AppState),
  getConversionLists: op('GET', '/api/app/conversion-lists', ConversionListsWire),
  setConversionConfig: op('PUT', '/api/app/conversion-config', Ack, ConversionWrite),
  getConversionConfig: op('GET', '/api/app/conversion-config', ConversionConfig),
  getSettings: op('GET', '/api/app/settings', Settings),
  updateSettings: op('PUT', '/api/app/settings', Ack, SettingsWrite),
  newSession: op('PUT', '/api/app/new', Ack),
  saveProject: op('PUT', '/api/app/save', Ack, ProjectPath),
  loadProject: op('PUT', '/api/app/load', Ack, ProjectPath),
  getResources: op('GET', '/api/app/resources', ResourcesWire),
  getSyncState: op('GET', '/api/app/sync', SyncState),
  getSchedule: op('GET', '/api/app/schedule', Schedule),
  setSchedule: op('PUT', '/api/app/schedule', Ack, ScheduleWrite),
  getDialog: op('GET', '/api/app/dialog', Dialog),
  answerDialog: op('PUT', '/api/app/dialog/{action}', Ack),
} as const;

export type Operations = typeof operations;
export type OperationId = keyof Operations;

/** Names of the `{…}` parameters in a path template. */
export type PathParamName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamName<Rest> : never;

/** Values for a path's parameters: positions are numbers, names are strings. */
export type PathParams<P extends string> = { [K in PathParamName<P>]: K extends 'index' | 'grid_size' ? number : string };

export type RequestBody<O extends Operation> = O['request'] extends z.ZodType ? z.output<O['request']> : undefined;
export type ResponseValue<O extends Operation> = z.output<O['response']>;

const PARAM = /\{([a-z_]+)\}/g;

/** The `{…}` parameter names of a path template, in order. */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(PARAM)].map((match) => match[1] as string);
}

/** Fills a path template; names are percent-encoded (spaces and non-ASCII included). */
export function expandPath(template: string, params: Readonly<Record<string, string | number>>): string {
  return template.replace(PARAM, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`path parameter ${name} is missing for ${template}`);
    if (typeof value === 'number' && !(Number.isInteger(value) && value >= 0)) {
      throw new TypeError(`path parameter ${name} must be a non-negative integer, got ${value}`);
    }
    return encodeURIComponent(String(value));
  });
}
