import * as z from 'zod';
import { Channel } from './channel.js';
import { Destination } from './destination.js';
import { Preset } from './preset.js';
import { clockMinutesText, clockSecondsText, percentText } from './scalars.js';
import { SourceListEntry } from './source.js';

export const Settings = z.looseObject({
  LogFolder: z.string(),
  PreviewRefresh: z.number().int(),
  LoadLastSession: z.boolean(),
  PreviewStretch: z.boolean(),
  AlwaysShowStatistics: z.boolean(),
  AlwaysShowAudioMeters: z.boolean(),
  StartAtStartup: z.boolean(),
  OpenAsync: z.boolean(),
  IsNotificationAdmin: z.boolean(),
});
export type Settings = z.output<typeof Settings>;

/** Writable preferences; IsNotificationAdmin is read-only and refused here. */
export const SettingsWrite = z.strictObject({
  LogFolder: z.string().min(1, { error: 'expected a folder path' }).optional(),
  /** Previews per second, 1 to 60 (the unit is ours: the interface does not give one). */
  PreviewRefresh: z
    .number()
    .int({ error: 'expected an integer from 1 to 60' })
    .min(1, { error: 'expected an integer from 1 to 60' })
    .max(60, { error: 'expected an integer from 1 to 60' })
    .optional(),
  LoadLastSession: z.boolean().optional(),
  PreviewStretch: z.boolean().optional(),
  AlwaysShowStatistics: z.boolean().optional(),
  AlwaysShowAudioMeters: z.boolean().optional(),
  StartAtStartup: z.boolean().optional(),
  OpenAsync: z.boolean().optional(),
});
export type SettingsWrite = z.output<typeof SettingsWrite>;

export const SCHEDULE_TYPES = ['All channels', 'In-sync only'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export const Schedule = z.looseObject({
  IsEnabled: z.boolean(),
  /** hh:mm:ss, or null when unset. */
  StartTime: clockSecondsText.nullable(),
  StopTime: clockSecondsText.nullable(),
  ScheduleType: z.string(),
});
export type Schedule = z.output<typeof Schedule>;

/** Schedule write: times as hh:mm; both times null disables the schedule. */
export const ScheduleWrite = z.strictObject({
  IsEnabled: z.boolean().optional(),
  StartTime: clockMinutesText.nullable().optional(),
  StopTime: clockMinutesText.nullable().optional(),
  ScheduleType: z.enum(SCHEDULE_TYPES).optional(),
});
export type ScheduleWrite = z.output<typeof ScheduleWrite>;

export const SyncState = z.looseObject({
  IsSyncRecording: z.boolean(),
  IsSyncRecordingPause: z.boolean(),
});
export type SyncState = z.output<typeof SyncState>;

/** Buttons "Yes_No" offers confirm and cancel; any other value offers only OK. */
export const YES_NO = 'Yes_No';
export const Dialog = z.looseObject({
  IsDialog: z.boolean(),
  DialogContent: z.string(),
  Buttons: z.string(),
});
export type Dialog = z.output<typeof Dialog>;
export function dialogOffersCancel(dialog: Dialog): boolean {
  return dialog.Buttons === YES_NO;
}

export const ProjectPath = z.strictObject({
  Path: z.string().min(1, { error: 'expected the path of a project file' }),
});
export type ProjectPath = z.output<typeof ProjectPath>;

const DiskUsage = z.looseObject({ Key: z.string(), Value: percentText });
const ResourcesObject = z.object({
  /** Percent of all cores used by the recorder (simulator: this process). */
  CurrentCPU: z.number(),
  /** Percent of all cores used on the host. */
  TotalCPU: z.number(),
  /** MB used by the recorder (simulator: this process's RSS). */
  CurrentRAM: z.number(),
  /** MB installed on the host. */
  TotalRAM: z.number(),
  /** One entry per disk behind the destinations' folders; Value is the used percentage. */
  DiskInfo: z.array(DiskUsage),
});
export type Resources = z.output<typeof ResourcesObject>;

const RESOURCE_KEYS = ['CurrentCPU', 'TotalCPU', 'CurrentRAM', 'TotalRAM', 'DiskInfo'] as const;

/** The flat alternating snapshot ["CurrentCPU", 12.5, ...] ⇄ { CurrentCPU: 12.5, ... }. */
export const ResourcesWire = z.codec(
  z.array(z.unknown()).refine((items) => items.length % 2 === 0, {
    error: 'expected a flat array alternating names and values',
  }),
  ResourcesObject,
  {
    // The object schema then checks every value and decodes DiskInfo's percentages.
    decode: (items) => Object.fromEntries(pairs(items)) as z.input<typeof ResourcesObject>,
    encode: (wire) => RESOURCE_KEYS.flatMap((key) => [key, wire[key]]),
  },
);

function* pairs(items: readonly unknown[]): Generator<[string, unknown]> {
  for (let i = 0; i < items.length; i += 2) yield [String(items[i]), items[i + 1]];
}

export const AppState = z.looseObject({
  Sources: z.array(SourceListEntry),
  Destinations: z.array(Destination),
  Channels: z.array(Channel),
  EncodingPresets: z.array(Preset),
});
export type AppState = z.output<typeof AppState>;
