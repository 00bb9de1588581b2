// The Companion Satellite API as recdeck speaks it: the one source for the messages a client may send
// (zod schemas over the line's parameters) and for how our own lines are written.
//
// A line is `COMMAND KEY=VALUE KEY="quoted value" FLAG`, ended by a newline. Values are text; a key
// given alone is `true`. Inside quotes a space is part of the value, and a backslash takes the next
// character as it is (so `\"` is a quote). Parameters the protocol has and recdeck does not use
// (VARIABLES, PINCODE_LOCK, SERIAL, CONFIG_FIELDS, …) are let through and ignored, as Companion does.
import * as z from 'zod';

/**
 * The API version we answer with in BEGIN: Companion's current one (its API_VERSION), so that clients
 * send the layout manifest (1.9+) and signed rotation amounts (1.14+). Features of it that recdeck does
 * not offer (subscriptions, variables, pincode lock) are answered with an ERROR naming them.
 */
export const API_VERSION = '1.14.0';

/** One client line can be no longer than this many characters (a layout manifest of 256 controls is a few KiB); past it the line is dropped and answered with an ERROR. */
export const MAX_LINE_LENGTH = 64 * 1024;
/** Devices one client may add (a Satellite Pi drives a handful); past it ADD-DEVICE is refused. */
export const MAX_DEVICES_PER_CLIENT = 32;
/** Controls one device may have; past it ADD-DEVICE is refused (each control is a session slot and a tile). */
export const MAX_CONTROLS = 256;
/** The largest bitmap side a device may ask for (a Stream Deck Studio key is 144). */
export const MAX_BITMAP_SIDE = 512;
/** The smallest: Companion takes anything below as a yes/no and sends 72. */
const MIN_BITMAP_SIDE = 5;

/** A parameter's value: text, or `true` for a key given alone. */
export type ParamValue = string | true;
export type Params = Record<string, ParamValue>;

/** Splits a line into its command and its parameters. */
export function parseLine(line: string): { command: string; params: Params } {
  const space = line.indexOf(' ');
  const command = (space === -1 ? line : line.slice(0, space)).toUpperCase();
  return { command, params: parseParams(space === -1 ? '' : line.slice(space + 1)) };
}

/** `A=1 B="two words" C` → { A: '1', B: 'two words', C: true }. A key given twice keeps its last value. */
export function parseParams(body: string): Params {
  const fragments: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === '\\') {
      current += body[i + 1] ?? '';
      started = true;
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
      started = true;
    } else if (c === ' ' && !quoted) {
      if (started) fragments.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) fragments.push(current);
  // No prototype: a key named __proto__ is a key like any other.
  const params: Params = Object.create(null) as Params;
  for (const fragment of fragments) {
    const eq = fragment.indexOf('=');
    if (eq === -1) params[fragment] = true;
    else if (eq > 0) params[fragment.slice(0, eq)] = fragment.slice(eq + 1);
  }
  return params;
}

// Values ---------------------------------------------------------------------------------------------

/** The protocol's yes/no: a key alone, 1, true or yes is yes; 0, false, no or empty is no. */
const yesNo = (what: string) =>
  z.union([z.literal(true), z.string()], { error: `missing ${what}` }).transform((value, context) => {
    if (value === true) return true;
    const word = value.toLowerCase();
    if (word === '1' || word === 'true' || word === 'yes') return true;
    if (word === '0' || word === 'false' || word === 'no' || word === '') return false;
    context.addIssue({ code: 'custom', message: `${what} "${value}" is not a yes/no (1, 0, true, false)` });
    return z.NEVER;
  });

const text = (what: string, max: number) =>
  z
    .string({ error: `${what} needs a value` })
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max} characters`)
    .refine((value) => !/[\u0000-\u001f"\\]/.test(value), `${what} has control characters, quotes or backslashes`);

/** A device id as clients send it (a serial, `streamdeck:CL…`): printable, no spaces or quotes, bounded. */
const deviceId = text('DEVICEID', 128).refine((value) => !value.includes(' '), 'DEVICEID has spaces');

const wholeNumber = (what: string, min: number, max: number) =>
  z
    .string({ error: `${what} needs a number` })
    .regex(/^[+-]?\d{1,9}$/, `${what} is not a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${what} must be ${min} to ${max}`);

/** BITMAPS=72 asks for 72x72; a yes/no (or a number below 5) asks for Companion's old default, 72. */
const bitmapSize = z.union([z.literal(true), z.string()]).transform((value, context): number | null => {
  if (value === true) return 72;
  if (/^\d{1,9}$/.test(value)) {
    const side = Number(value);
    if (side === 0) return null;
    if (side < MIN_BITMAP_SIDE) return 72;
    if (side > MAX_BITMAP_SIDE) {
      context.addIssue({ code: 'custom', message: `BITMAPS must be at most ${MAX_BITMAP_SIDE}` });
      return z.NEVER;
    }
    return side;
  }
  const word = value.toLowerCase();
  if (word === 'true' || word === 'yes') return 72;
  if (word === 'false' || word === 'no' || word === '') return null;
  context.addIssue({ code: 'custom', message: `BITMAPS "${value}" is not a size in pixels` });
  return z.NEVER;
});

/** COLORS=hex|rgb; a yes is hex, a no is none. */
const colourFormat = z.union([z.literal(true), z.string()]).transform((value, context): ColourFormat | null => {
  if (value === true) return 'hex';
  const word = value.toLowerCase();
  if (word === 'hex' || word === 'rgb') return word;
  if (word === '1' || word === 'true' || word === 'yes') return 'hex';
  if (word === '0' || word === 'false' || word === 'no' || word === '') return null;
  context.addIssue({ code: 'custom', message: `COLORS "${value}" is not hex, rgb or a yes/no` });
  return z.NEVER;
});

export type ColourFormat = 'hex' | 'rgb';

// The layout manifest (API 1.9): base64 JSON naming each control with its place and what it shows ------

const Side = z.number().int().min(1).max(MAX_BITMAP_SIDE);
const StylePreset = z.object({
  bitmap: z.object({ w: Side, h: Side }).optional(),
  colors: z.enum(['hex', 'rgb']).optional(),
  text: z.boolean().optional(),
  textStyle: z.boolean().optional(),
});
export type StylePreset = z.output<typeof StylePreset>;

const ManifestControl = z.object({
  row: z.number().int().min(0).max(255),
  column: z.number().int().min(0).max(255),
  stylePreset: z.string().min(1).optional(),
});

export const LayoutManifest = z
  .object({
    stylePresets: z.object({ default: StylePreset }).catchall(StylePreset),
    controls: z
      .record(z.string().regex(/^[a-zA-Z0-9\-/]{1,64}$/, 'control ids are letters, digits, - and /'), ManifestControl)
      .refine((controls) => Object.keys(controls).length > 0, 'no controls')
      .refine((controls) => Object.keys(controls).length <= MAX_CONTROLS, `more than ${MAX_CONTROLS} controls`),
  })
  .superRefine((manifest, context) => {
    const places = new Set<string>();
    for (const [id, control] of Object.entries(manifest.controls)) {
      if (control.stylePreset !== undefined && !(control.stylePreset in manifest.stylePresets)) context.addIssue({ code: 'custom', message: `control ${id}: no style preset "${control.stylePreset}"` });
      const place = `${control.row}/${control.column}`;
      if (places.has(place)) context.addIssue({ code: 'custom', message: `control ${id}: another control is at row ${control.row}, column ${control.column}` });
      places.add(place);
    }
  });
export type LayoutManifest = z.output<typeof LayoutManifest>;

const manifestText = z.string({ error: 'LAYOUT_MANIFEST needs a value' }).transform((value, context) => {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    context.addIssue({ code: 'custom', message: 'LAYOUT_MANIFEST is not base64 of JSON' });
    return z.NEVER;
  }
  const parsed = LayoutManifest.safeParse(json);
  if (!parsed.success) {
    context.addIssue({ code: 'custom', message: `LAYOUT_MANIFEST: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'manifest'}: ${issue.message}`).join('; ')}` });
    return z.NEVER;
  }
  return parsed.data;
});

// Client messages ------------------------------------------------------------------------------------

export const AddDevice = z
  .object({
    DEVICEID: deviceId,
    PRODUCT_NAME: text('PRODUCT_NAME', 128),
    LAYOUT_MANIFEST: manifestText.optional(),
    KEYS_TOTAL: wholeNumber('KEYS_TOTAL', 1, MAX_CONTROLS).optional(),
    KEYS_PER_ROW: wholeNumber('KEYS_PER_ROW', 1, MAX_CONTROLS).optional(),
    BITMAPS: bitmapSize.optional(),
    COLORS: colourFormat.optional(),
    TEXT: yesNo('TEXT').optional(),
    TEXT_STYLE: yesNo('TEXT_STYLE').optional(),
    BRIGHTNESS: yesNo('BRIGHTNESS').optional(),
  })
  .refine((message) => message.LAYOUT_MANIFEST !== undefined || message.KEYS_TOTAL !== undefined, 'give KEYS_TOTAL (with KEYS_PER_ROW) or a LAYOUT_MANIFEST');
export type AddDevice = z.output<typeof AddDevice>;

/** A control as the client names it: CONTROLID (manifest devices) or KEY, an index or `row/column`. */
const controlRef = {
  DEVICEID: deviceId,
  CONTROLID: z.string().min(1).max(64).optional(),
  KEY: z
    .string({ error: 'KEY needs a value' })
    .regex(/^(\d{1,4}|\d{1,3}\/\d{1,3})$/, 'KEY is not an index or row/column')
    .optional(),
};

export const KeyPress = z
  .object({ ...controlRef, PRESSED: yesNo('PRESSED') })
  .refine((message) => message.CONTROLID !== undefined || message.KEY !== undefined, 'give KEY or CONTROLID');
export type KeyPress = z.output<typeof KeyPress>;

/** DIRECTION: a signed step count (1.14), 1 one step clockwise; 0 is one step back, as it always was. */
export const KeyRotate = z
  .object({
    ...controlRef,
    DIRECTION: z
      .string({ error: 'DIRECTION needs a signed number' })
      .regex(/^[+-]?\d{1,3}$/, 'DIRECTION is not a signed number of steps')
      .transform((value) => (Number(value) === 0 ? -1 : Number(value))),
  })
  .refine((message) => message.CONTROLID !== undefined || message.KEY !== undefined, 'give KEY or CONTROLID');
export type KeyRotate = z.output<typeof KeyRotate>;

export const RemoveDevice = z.object({ DEVICEID: deviceId });

/** What each command's parameters must be, by command. */
export const CLIENT_MESSAGES = {
  'ADD-DEVICE': AddDevice,
  'KEY-PRESS': KeyPress,
  'KEY-ROTATE': KeyRotate,
  'REMOVE-DEVICE': RemoveDevice,
} as const;

/** Commands of the protocol that recdeck does not carry out: answered `<COMMAND> ERROR`, not "unknown". */
export const NOT_OFFERED = new Set(['SET-VARIABLE-VALUE', 'PINCODE-KEY', 'ADD-SUB', 'REMOVE-SUB', 'SUB-PRESS', 'SUB-ROTATE', 'FIRMWARE-UPDATE-INFO', 'CHANGE-PAGE']);

/** A zod error in one line: `KEY: KEY is not an index or row/column; PRESSED: …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.code === 'invalid_type' && issue.path.length > 0 ? `missing ${issue.path.join('.')}` : issue.message)).join('; ');
}

// Our lines ------------------------------------------------------------------------------------------

export type ArgValue = string | number | boolean;

/** `NAME [OK|ERROR] [DEVICEID="id"] KEY=value …\n`: text quoted (quotes and backslashes escaped), numbers bare, yes/no as 1/0. */
export function formatLine(name: string, status: 'OK' | 'ERROR' | null, device: string | null, args: Readonly<Record<string, ArgValue>> = {}): string {
  const parts = [name];
  if (status !== null) parts.push(status);
  if (device !== null) parts.push(`DEVICEID=${quote(device)}`);
  for (const [key, value] of Object.entries(args)) parts.push(`${key}=${typeof value === 'string' ? quote(value) : typeof value === 'number' ? String(value) : value ? '1' : '0'}`);
  return `${parts.join(' ')}\n`;
}

function quote(value: string): string {
  return `"${value.replace(/[\r\n]+/g, ' ').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** An ERROR answer to a command (or a bare `ERROR` for a line that is no command), naming what is wrong. */
export function errorLine(command: string | null, device: string | null, message: string): string {
  return formatLine(command ?? 'ERROR', command === null ? null : 'ERROR', device, { MESSAGE: message });
}
