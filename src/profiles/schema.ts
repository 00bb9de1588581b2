// The profile file format: which surfaces a profile fits, its pages of bindings, what each control shows
// and what it does. This schema is the single source of truth: the loader validates with it, the engine
// takes its types, and the JSON Schema shipped for editors is generated from it.
import * as z from 'zod';
import { Action } from '../engine/actions/index.js';
import { ChannelRef, recorder } from '../engine/actions/parameters.js';

// The actions are the action table's (src/engine/actions/): each action's schema lives in its entry,
// beside what the engine does with it, and the unions a profile is checked with are built from the table.
export { Action, MacroAction, RecorderAction, SimpleAction, type BridgeAction } from '../engine/actions/index.js';
export { ChannelRef } from '../engine/actions/parameters.js';

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, { error: 'expected a colour as #rrggbb' });

export const ICONS = ['record', 'pause', 'stop', 'sync', 'ok', 'cancel', 'next', 'previous', 'grid', 'save', 'load', 'new', 'schedule', 'gain', 'brightness', 'macro'] as const;

export const Show = z
  .union([
    z.enum(['sync', 'grid', 'dialog', 'dialog-ok', 'dialog-cancel', 'resources', 'schedule', 'page', 'status', 'alarms', 'blank']),
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

const recorderName = z.string().regex(/^[a-z][a-z0-9-]*$/, { error: 'expected a recorder name: lower-case letters, digits and -' });

export const RecorderGroup = z
  .array(recorderName)
  .min(2, { error: 'a group has at least two members' })
  .refine((members) => new Set(members).size === members.length, { error: 'a member is named twice; each member gets each command once' })
  .describe('A recorder group: the recorders every command to it goes to (each once, at the same time); a key on it shows REC only when all record');

export const Page = z.strictObject({
  name: z.string().min(1),
  controls: z.record(z.string().min(1), Binding).describe('Bindings by control id (key0, dial1, strip2, pedal0, …)'),
});
export type Page = z.output<typeof Page>;

export const SURFACE_KINDS = ['streamdeck', 'xkeys', 'midi', 'web', 'memory', 'satellite'] as const;

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
    recorders: z.record(recorderName, z.union([RecorderDeclaration, RecorderGroup])).optional().describe('Recorders this profile declares (url and token by ${ENV} reference), and groups of recorders by name'),
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
    for (const [name, declared] of Object.entries(profile.recorders ?? {})) {
      if (!Array.isArray(declared)) continue;
      declared.forEach((member, i) => {
        if (Array.isArray(profile.recorders?.[member])) context.addIssue({ code: 'custom', path: ['recorders', name, i], message: `"${member}" is a group: a group's members are recorders, groups do not nest` });
      });
    }
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
