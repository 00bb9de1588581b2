// The profile file format: which surfaces a profile fits, its pages of bindings, what each control shows
// and what it does. This schema is the single source of truth: the loader validates with it, the engine
// takes its types, and the JSON Schema shipped for editors is generated from it.
import * as z from 'zod';
import { ScheduleWrite, SettingsWrite } from '../api/app.js';
import { GRID_SIZES } from '../api/channel.js';
import { ConversionWrite } from '../api/conversion.js';

const MAX_CHANNEL = 16;

/** A channel as operators count it (1–16), or the channel currently selected on the surface. */
export const ChannelRef = z
  .union([z.number().int().min(1).max(MAX_CHANNEL), z.literal('selected')])
  .describe('Channel number 1–16 as shown on the recorder, or "selected" for the channel chosen with select-channel');
export type ChannelRef = z.output<typeof ChannelRef>;

const recorder = z.string().min(1).optional().describe('Name of the recorder this acts on (default: the binding\'s, else the first)');
const channelAction = <A extends string>(action: A, description: string) =>
  z.strictObject({ action: z.literal(action), channel: ChannelRef, recorder }).describe(description);
const plainAction = <A extends string>(action: A, description: string) => z.strictObject({ action: z.literal(action), recorder }).describe(description);

/** Whose gain: the source on a channel, or a source by name. */
const gainTarget = {
  channel: ChannelRef.optional(),
  source: z.string().min(1).optional().describe('Source name (instead of channel)'),
};
const oneGainTarget = (value: { channel?: unknown; source?: unknown }) => (value.channel === undefined) !== (value.source === undefined);
const gainTargetError = { error: 'expected exactly one of channel or source' };

/** A "set" action names at least one of its fields: an empty one would send a request that changes nothing. */
const someField = (fields: readonly string[]) =>
  [(value: Record<string, unknown>) => fields.some((f) => value[f] !== undefined), { error: `expected at least one of ${fields.join(', ')}` }] as const;

// The fields of the set actions reuse the interface's write schemas, so a value is checked exactly as
// the recorder's write checks it (conversion values against the interface's conversion lists).
const scheduleSet = z
  .strictObject({
    action: z.literal('schedule-set'),
    start: ScheduleWrite.shape.StartTime.describe('Start time hh:mm (24 h), or null to clear it'),
    stop: ScheduleWrite.shape.StopTime.describe('Stop time hh:mm (24 h), or null to clear it; both null disables the schedule'),
    type: ScheduleWrite.shape.ScheduleType.describe('"All channels" or "In-sync only"'),
    enabled: ScheduleWrite.shape.IsEnabled.describe('Turn the schedule on or off as well'),
    recorder,
  })
  .refine(...someField(['start', 'stop', 'type', 'enabled']))
  .describe('Set the schedule\'s times, type and (optionally) whether it is on');
const conversionSet = z
  .strictObject({
    action: z.literal('conversion-set'),
    enabled: ConversionWrite.shape.IsEnabled,
    'video-format': ConversionWrite.shape.VideoFormat,
    'frame-rate': ConversionWrite.shape.FrameRate,
    interlace: ConversionWrite.shape.Interlace,
    'audio-sample-rate': ConversionWrite.shape.AudioSampleRate,
    'audio-channel': ConversionWrite.shape.AudioChannel,
    'audio-bit': ConversionWrite.shape.AudioBit,
    recorder,
  })
  .refine(...someField(['enabled', 'video-format', 'frame-rate', 'interlace', 'audio-sample-rate', 'audio-channel', 'audio-bit']))
  .describe('Set conversion: any of its fields, each value from the recorder\'s conversion lists (quoted in YAML: frame-rate: "25")');
const settingsSet = z
  .strictObject({
    action: z.literal('settings-set'),
    'log-folder': SettingsWrite.shape.LogFolder,
    'preview-refresh': SettingsWrite.shape.PreviewRefresh,
    'load-last-session': SettingsWrite.shape.LoadLastSession,
    'preview-stretch': SettingsWrite.shape.PreviewStretch,
    'always-show-statistics': SettingsWrite.shape.AlwaysShowStatistics,
    'always-show-audio-meters': SettingsWrite.shape.AlwaysShowAudioMeters,
    'start-at-startup': SettingsWrite.shape.StartAtStartup,
    'open-async': SettingsWrite.shape.OpenAsync,
    recorder,
  })
  .refine(
    ...someField(['log-folder', 'preview-refresh', 'load-last-session', 'preview-stretch', 'always-show-statistics', 'always-show-audio-meters', 'start-at-startup', 'open-async']),
  )
  .describe('Set any of the recorder\'s writable preferences');

const Wait = z.strictObject({ wait: z.number().int().min(0).max(60_000).describe('Pause in ms between macro steps') });

export const RecorderAction = z.discriminatedUnion('action', [
  channelAction('rec-start', 'Start recording the channel, or resume it when paused'),
  channelAction('rec-pause', 'Pause the channel'),
  channelAction('rec-stop', 'Stop recording the channel'),
  channelAction('rec-toggle', 'Start when stopped, stop when recording (decided from the last confirmed state)'),
  channelAction('pause-toggle', 'Pause when recording, resume when paused'),
  channelAction('sync-on', 'Put the channel in InSync mode'),
  channelAction('sync-off', 'Take the channel out of InSync mode'),
  channelAction('sync-toggle', 'Toggle InSync mode'),
  channelAction('unset-source', 'Remove the channel\'s source'),
  z.strictObject({ action: z.literal('set-source'), channel: ChannelRef, source: z.string().min(1), recorder }).describe('Assign a source by name'),
  z.strictObject({ action: z.literal('add-dest'), channel: ChannelRef, destination: z.string().min(1), recorder }).describe('Add a destination by name'),
  z.strictObject({ action: z.literal('delete-dest'), channel: ChannelRef, destination: z.string().min(1), recorder }).describe('Remove a destination by name'),
  z.strictObject({ action: z.literal('toggle-dest'), channel: ChannelRef, destination: z.string().min(1), recorder }).describe('Add the destination when absent, remove it when present'),
  plainAction('sync-rec-start', 'Start (or resume) synchronous recording of the InSync channels'),
  plainAction('sync-rec-pause', 'Pause synchronous recording'),
  plainAction('sync-rec-stop', 'Stop synchronous recording'),
  plainAction('sync-rec-toggle', 'Start synchronous recording when stopped, stop it when running'),
  plainAction('sync-rec-pause-toggle', 'Pause synchronous recording when running, resume it when paused'),
  plainAction('dialog-ok', 'Confirm the recorder\'s dialog'),
  plainAction('dialog-cancel', 'Cancel the recorder\'s dialog'),
  z.strictObject({ action: z.literal('grid'), size: z.literal(GRID_SIZES), recorder }).describe('Set the channel grid size'),
  plainAction('new-session', 'Reset the recorder\'s session'),
  z.strictObject({ action: z.literal('save-project'), path: z.string().min(1), recorder }).describe('Save the project to a file on the recorder'),
  z.strictObject({ action: z.literal('load-project'), path: z.string().min(1), recorder }).describe('Load a project file on the recorder'),
  plainAction('schedule-on', 'Enable the schedule (its times must be set)'),
  plainAction('schedule-off', 'Disable the schedule'),
  plainAction('schedule-toggle', 'Enable or disable the schedule'),
  plainAction('conversion-on', 'Enable conversion'),
  plainAction('conversion-off', 'Disable conversion'),
  plainAction('conversion-toggle', 'Enable or disable conversion'),
  scheduleSet,
  conversionSet,
  settingsSet,
  z
    .strictObject({ action: z.literal('gain-set'), ...gainTarget, db: z.number().min(-60).max(20), recorder })
    .refine(oneGainTarget, gainTargetError)
    .describe('Set a source\'s audio gain in dB'),
  z
    .strictObject({ action: z.literal('gain-step'), ...gainTarget, db: z.number().min(-20).max(20).describe('dB per press or per dial detent'), recorder })
    .refine(oneGainTarget, gainTargetError)
    .describe('Change a source\'s gain by a step (dials multiply it by the turn)'),
  z
    .strictObject({
      action: z.literal('gain-fader'),
      ...gainTarget,
      min: z.number().min(-60).max(20).default(-60),
      max: z.number().min(-60).max(20).default(12),
      recorder,
    })
    .refine(oneGainTarget, gainTargetError)
    .describe('Map a fader\'s position to a source\'s gain (with soft takeover)'),
]);
export type RecorderAction = z.output<typeof RecorderAction>;

export const BridgeAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('page-next') }).describe('Next page (wraps)'),
  z.strictObject({ action: z.literal('page-previous') }).describe('Previous page (wraps)'),
  z.strictObject({ action: z.literal('page'), page: z.union([z.string().min(1), z.number().int().min(1)]) }).describe('Go to a page by name or number'),
  z.strictObject({ action: z.literal('select-channel'), channel: z.number().int().min(1).max(MAX_CHANNEL), recorder }).describe('Choose the channel that "selected" refers to'),
  z
    .strictObject({ action: z.literal('brightness'), set: z.number().int().min(0).max(100).optional(), step: z.number().int().min(-100).max(100).optional() })
    .refine((v) => (v.set === undefined) !== (v.step === undefined), { error: 'expected exactly one of set or step' })
    .describe('Surface brightness in percent'),
]);
export type BridgeAction = z.output<typeof BridgeAction>;

export const SimpleAction = z.union([RecorderAction, BridgeAction]);
export type SimpleAction = z.output<typeof SimpleAction>;

export const MacroAction = z
  .strictObject({ action: z.literal('macro'), steps: z.array(z.union([SimpleAction, Wait])).min(1) })
  .describe('Several actions in order; a failed step stops the rest');
export type MacroAction = z.output<typeof MacroAction>;

export const Action = z.union([SimpleAction, MacroAction]);
export type Action = z.output<typeof Action>;

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, { error: 'expected a colour as #rrggbb' });

export const ICONS = ['record', 'pause', 'stop', 'sync', 'ok', 'cancel', 'next', 'previous', 'grid', 'save', 'load', 'new', 'schedule', 'gain', 'brightness', 'macro'] as const;

export const Show = z
  .union([
    z.enum(['sync', 'grid', 'dialog', 'dialog-ok', 'dialog-cancel', 'resources', 'schedule', 'page', 'status', 'blank']),
    z.strictObject({ channel: ChannelRef, thumbnail: z.boolean().default(false).describe('Show the live preview behind the state') }),
    z.strictObject({ meter: ChannelRef }),
    z.strictObject({ label: z.string(), icon: z.enum(ICONS).optional(), color: hexColor.optional() }),
  ])
  .describe('What the control shows; when absent it follows from the press action');
export type Show = z.output<typeof Show>;

const holdMs = z.number().int().min(200).max(10_000);

export const Binding = z
  .strictObject({
    show: Show.optional(),
    recorder,
    press: Action.optional().describe('On press (after the confirmation, when one is asked)'),
    release: Action.optional().describe('On release'),
    hold: z.strictObject({ ms: holdMs.default(800), do: Action }).optional().describe('On holding the control this long (a long-press action of its own)'),
    turn: Action.optional().describe('On turning a dial or encoder; gain-step, page and brightness steps scale with the turn'),
    fader: Action.optional().describe('On moving a fader or absolute knob'),
    touch: z
      .strictObject({ tap: Action.optional(), long: Action.optional(), 'swipe-left': Action.optional(), 'swipe-right': Action.optional() })
      .optional()
      .describe('On touching an LCD strip cell'),
    confirm: z
      .union([
        z.strictObject({ hold: holdMs.describe('Hold this many ms (a ring fills on the key) before the press action fires') }),
        z.strictObject({ double: z.number().int().min(150).max(2000).describe('Press twice within this many ms') }),
      ])
      .optional(),
  })
  .refine((b) => !(b.hold && b.confirm && 'hold' in b.confirm), { error: 'hold and confirm.hold cannot both be set on one control' });
export type Binding = z.output<typeof Binding>;

const envReference = /^\$\{[A-Z_][A-Z0-9_]*\}$/;

export const RecorderDeclaration = z.strictObject({
  url: z.string().min(1).describe('Base URL, or a ${ENV} reference'),
  token: z
    .string()
    .regex(envReference, { error: 'expected a ${ENV_NAME} reference: a token is a secret and is never written in a profile' })
    .optional()
    .describe('A ${ENV_NAME} reference to the token'),
});

export const Page = z.strictObject({
  name: z.string().min(1),
  controls: z.record(z.string().min(1), Binding).describe('Bindings by control id (key0, dial1, strip2, pedal0, …)'),
});
export type Page = z.output<typeof Page>;

export const SURFACE_KINDS = ['streamdeck', 'midi', 'web', 'memory'] as const;

export const Profile = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    match: z
      .strictObject({
        kind: z.enum(SURFACE_KINDS),
        model: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
        name: z.string().min(1).optional().describe('Surface name (exact)'),
        serial: z.string().min(1).optional().describe('Pin one device by serial number'),
      })
      .describe('The surfaces this profile fits; the most specific match wins (serial, then name, then model, then kind)'),
    recorders: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), RecorderDeclaration).optional(),
    brightness: z.number().int().min(0).max(100).optional(),
    pages: z.array(Page).min(1),
    overlays: z
      .strictObject({ dialog: z.string().min(1).describe('Page shown over the whole surface while the recorder shows a dialog') })
      .optional(),
  })
  .superRefine((profile, context) => {
    const names = profile.pages.map((p) => p.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) context.addIssue({ code: 'custom', path: ['pages', i, 'name'], message: `page name "${name}" is used twice` });
    });
    const overlay = profile.overlays?.dialog;
    if (overlay !== undefined && !names.includes(overlay)) {
      context.addIssue({ code: 'custom', path: ['overlays', 'dialog'], message: `expected the name of a page (${names.join(', ')}), got "${overlay}"` });
    }
  });
export type Profile = z.output<typeof Profile>;

/** Where a profile comes from (see origin.ts): shipped with recdeck, or the operator's own. */
export type ProfileOrigin = 'operator' | 'shipped';

/** A profile as read from its file (the file names it in logs and keeps a session on it across reloads). */
export interface LoadedProfile {
  profile: Profile;
  file: string;
  /** Shipped with recdeck or the operator's own (see origin.ts): the operator's wins a tie. */
  origin: ProfileOrigin;
}
