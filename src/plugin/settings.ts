// The plugin's settings, as the Stream Deck app stores them: each action's own (`{ recorder, channel, … }`)
// and the plugin's global ones (the recorders, with their tokens, or a facility on the state bus). These zod schemas are the one source:
// the plugin checks what the app hands it with them, and the property inspector checks what it is about
// to save with the very same ones (it is bundled from this file), so a setting the plugin would refuse
// is never written. An action's own parameters (a channel, a gain step, a path) are checked by the
// action table's schema for that action, as a profile's binding is.
import * as z from 'zod';
import { SimpleAction, defaultShowOf } from '../engine/actions/index.js';

const recorderName = z.string().regex(/^[a-z][a-z0-9-]*$/, { error: 'expected a recorder name: lower-case letters, digits and -' });

export const RecorderEntry = z.strictObject({
  name: recorderName.describe('How actions name this recorder'),
  url: z
    .string()
    .refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), { error: 'expected the recorder\'s address as http://host:port' })
    .describe('The recorder\'s address, e.g. http://192.168.1.20:9000'),
  token: z.string().trim().min(1, { error: 'expected the recorder\'s API token (perm:…)' }).describe('The API token (perm:<uuid>); kept in the app\'s global settings only'),
});
export type RecorderEntry = z.output<typeof RecorderEntry>;

export const DirectSettings = z
  .strictObject({
    recorders: z
      .array(RecorderEntry)
      .refine((list) => new Set(list.map((r) => r.name)).size === list.length, { error: 'a recorder name is used twice' })
      .default([])
      .describe('The recorders this desk controls'),
  })
  .describe('Direct: the desk polls each recorder itself, with its token');

/** A path to a file on the desk's machine (what is in it never enters the settings). */
const filePath = (what: string) => z.string().trim().min(1, { error: `expected the path of ${what}` });

/**
 * A facility: the desk joins the state bus as a panel (`recdeck run --mqtt` does the same with its flags),
 * signing with its own key; the pollers hold the recorders' tokens, so this desk holds none.
 */
export const FacilityEntry = z
  .strictObject({
    url: z
      .string()
      .refine((text) => URL.canParse(text) && /^mqtts?:$/.test(new URL(text).protocol), { error: 'expected the broker as mqtt://host:1883 or mqtts://host:8883' })
      .refine((text) => !URL.canParse(text) || (new URL(text).username === '' && new URL(text).password === ''), { error: 'give the broker login as username and passwordFile, not in the URL' })
      .describe('The facility\'s MQTT broker, e.g. mqtt://10.0.0.2:1883'),
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'a bus id is 1-64 letters, digits, "_", "." or "-"' })
      .describe('This desk\'s bus id, as the facility file lists it under panels (and its broker user, if the broker has logins)'),
    keyFile: filePath('this desk\'s private key (recdeck bus keygen ID --out FILE)').describe('This desk\'s private key file (PEM, mode 0600 on macOS)'),
    facilityFile: filePath('the facility file').describe('The facility file: who is who on the bus (public keys and grants)'),
    username: z.string().trim().min(1).optional().describe('The broker login, when the broker has logins; the same as the id'),
    passwordFile: filePath('the broker password file').optional().describe('A file holding the broker login\'s password'),
    caFile: filePath('the broker\'s CA certificate').optional().describe('For mqtts://: the CA certificate (PEM) the broker\'s certificate is checked against'),
  })
  .refine((entry) => entry.username === undefined || entry.username === entry.id, { error: 'username: the broker login must be the bus id (the broker gives each login the topics of its own id)', path: ['username'] })
  .refine((entry) => entry.passwordFile === undefined || entry.username !== undefined, { error: 'passwordFile: give the username it is the password of', path: ['passwordFile'] })
  .refine((entry) => entry.caFile === undefined || entry.url.startsWith('mqtts:'), { error: 'caFile: a CA certificate is for a TLS broker: give an mqtts:// URL', path: ['caFile'] });
export type FacilityEntry = z.output<typeof FacilityEntry>;

export const FacilitySettings = z.strictObject({ mqtt: FacilityEntry.describe('A facility: the desk joins the state bus as a panel and needs no recorder token') });

export const GlobalSettings = z
  .union([DirectSettings, FacilitySettings])
  .describe('recdeck plugin: global settings: the recorders, or a facility on the state bus');
export type GlobalSettings = z.output<typeof GlobalSettings>;

/**
 * Global settings checked with the branch they are meant for: a facility when they have `mqtt`, else the
 * recorders. The union, when no branch matches, says only "Invalid input"; the branch names the field and
 * its rule. What it accepts is what GlobalSettings accepts (the branches are strict and tell each other apart).
 */
export function checkGlobalSettings(raw: unknown): z.ZodSafeParseResult<GlobalSettings> {
  const facility = typeof raw === 'object' && raw !== null && 'mqtt' in raw;
  return facility ? FacilitySettings.safeParse(raw) : DirectSettings.safeParse(raw);
}

/** What an action adds to the action table's parameters: which recorder, and how long a guarded press is held. */
export const ActionSettings = z
  .looseObject({
    recorder: recorderName.describe('The name of one of the recorders in the global settings'),
    holdMs: z.number().int().min(200).max(10_000).optional().describe('How long a guarded action (stop, new session, load) is held before it fires; default 1000'),
    thumbnail: z.boolean().optional().describe('Show the channel\'s live preview behind its state (a key of an action on a channel)'),
  })
  .describe('recdeck plugin: an action\'s settings (plus the action\'s own parameters, e.g. channel)');
export type ActionSettings = z.output<typeof ActionSettings>;

/** An action instance's settings, checked: its recorder, the action as the table runs it, its hold. */
export interface CheckedAction {
  recorder: string;
  action: SimpleAction;
  holdMs: number | undefined;
  /** The key shows its channel's preview behind the state. */
  thumbnail: boolean;
}

export const DEFAULT_HOLD_MS = 1000;

/** Settings keys that are the plugin's and not the action's parameters. */
const PLUGIN_KEYS = new Set(['recorder', 'holdMs', 'thumbnail']);

/**
 * An action instance's settings checked against the plugin's schema and the action table's, or every
 * problem named (path and message), as the key and the log say them.
 */
export function checkActionSettings(actionName: string, settings: unknown): { ok: true; value: CheckedAction } | { ok: false; problems: string[] } {
  const own = ActionSettings.safeParse(settings);
  if (!own.success) return { ok: false, problems: own.error.issues.map(describeIssue) };
  const parameters = Object.fromEntries(Object.entries(own.data).filter(([key]) => !PLUGIN_KEYS.has(key)));
  // A deck in the app has no selected channel: an action names its channel.
  if (parameters['channel'] === 'selected') return { ok: false, problems: ['channel: expected a channel number 1–16 (the app has no selected channel)'] };
  const action = SimpleAction.safeParse({ ...parameters, action: actionName });
  if (!action.success) return { ok: false, problems: action.error.issues.map(describeIssue) };
  const thumbnail = own.data.thumbnail === true;
  const shows = defaultShowOf(action.data);
  if (thumbnail && !(typeof shows === 'object' && 'channel' in shows)) return { ok: false, problems: [`thumbnail: a ${actionName} key shows no channel, so no preview`] };
  return { ok: true, value: { recorder: own.data.recorder, action: action.data, holdMs: own.data.holdMs, thumbnail } };
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`;
}

/** The global settings with every token replaced, for anything that shows or logs them (a facility's hold only paths). */
export function maskedGlobalSettings(settings: GlobalSettings): GlobalSettings {
  if ('mqtt' in settings) return settings;
  return { recorders: settings.recorders.map((recorder) => ({ ...recorder, token: recorder.token === '' ? '' : '•••' })) };
}
