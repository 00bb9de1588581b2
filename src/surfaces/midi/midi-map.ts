// The MIDI map file format: how one model of MIDI controller is wired (which notes, CCs and pitch bends
// its controls send, how its LEDs are lit, what it needs on open). It lives apart from profiles: a profile
// says what a control does, a map says which bytes that control is. This schema is the single source of
// truth: the loader validates with it and the surface, decoder and encoder take their types from it.
import * as z from 'zod';
import { messageOf } from '../../api/errors.js';
import type { LedState } from '../../engine/surface.js';
import { MMC_ALL_DEVICES, MMC_COMMANDS } from './mmc.js';

export const LED_STATES = ['off', 'idle', 'active', 'recording', 'paused', 'armed', 'sync-recording', 'wrong', 'no-source', 'stale', 'offline', 'dialog', 'holding'] as const;
// Both ways: a state added to LedState must be added here (and the other way round), or this fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const ledStatesMatch: Same<(typeof LED_STATES)[number], LedState> = true;
void ledStatesMatch;

export const ENCODINGS = ['twos-complement', 'binary-offset', 'sign-magnitude'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const MidiChannel = z.number().int().min(1).max(16).describe('MIDI channel 1–16, as devices and manuals count it');
export const DataByte = z.number().int().min(0).max(127).describe('A 7-bit MIDI data byte, 0–127');
const AnyByte = z.number().int().min(0).max(255);

/** "exact port name" or "/regular expression/flags". */
export const PortPattern = z
  .string()
  .min(1)
  .superRefine((text, context) => {
    if (portRegex(text) !== undefined) return;
    context.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a valid /regular expression/ (${regexError(text)}); an exact port name has no slashes around it` });
  })
  .describe('The port\'s exact name, or /a regular expression/ (with flags, e.g. /apc mini mk2/i)');

function regexError(pattern: string): string {
  const slashed = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  try {
    new RegExp(slashed?.[1] ?? pattern, slashed?.[2]);
    return 'unknown problem';
  } catch (error) {
    return messageOf(error);
  }
}

/** The regular expression a /…/ pattern stands for; null for an exact name; undefined when it does not compile. */
export function portRegex(pattern: string): RegExp | null | undefined {
  const slashed = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (!slashed) return null;
  try {
    return new RegExp(slashed[1] as string, slashed[2]);
  } catch {
    return undefined;
  }
}

/** Bytes a device needs on open or on exit: a SysEx message, or a short channel message (mode switch, layer select). */
export const InitMessage = z
  .array(AnyByte)
  .min(2)
  .superRefine((bytes, context) => {
    const problem = wholeMessageProblem(bytes);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  })
  .describe('One whole MIDI message as bytes: F0 … F7 SysEx, or a channel message');

/** Why bytes are not one whole MIDI message (the encoder checks the same before anything is sent). */
export function wholeMessageProblem(bytes: readonly number[]): string | null {
  const [status] = bytes;
  if (status === 0xf0) {
    if (bytes.at(-1) !== 0xf7) return 'a SysEx message must end with 0xF7 (247)';
    const bad = bytes.slice(1, -1).findIndex((b) => b > 0x7f);
    if (bad >= 0) return `byte ${bad + 1} is ${bytes[bad + 1]}: between F0 and F7 only 7-bit data (0–127) may appear`;
    if (bytes.length < 4) return 'a SysEx message needs at least two data bytes between F0 and F7';
    return null;
  }
  if (status === undefined || status < 0x80 || status > 0xef) return 'expected a SysEx message (starting 0xF0 = 240) or a channel message (status 0x80–0xEF = 128–239)';
  const length = status >= 0xc0 && status <= 0xdf ? 2 : 3;
  if (bytes.length !== length) return `a channel message with status ${status} has ${length} bytes, not ${bytes.length}`;
  if (bytes.slice(1).some((b) => b > 0x7f)) return 'the data bytes of a channel message are 0–127';
  return null;
}

/** An LED value: the velocity or CC value alone, or with its own channel (blink and pulse channels). */
export const LedValue = z
  .union([DataByte, z.strictObject({ value: DataByte, channel: MidiChannel })])
  .describe('Velocity or CC value 0–127, or {value, channel} when the channel picks the lighting mode (blinking, pulsing, brightness)');
export type LedValue = z.output<typeof LedValue>;

const ledValues = Object.fromEntries(LED_STATES.map((state) => [state, state === 'off' || state === 'active' ? LedValue : LedValue.optional()])) as {
  [S in LedState]: S extends 'off' | 'active' ? typeof LedValue : z.ZodOptional<typeof LedValue>;
};

export const LedValues = z
  .strictObject(ledValues)
  .describe('The value for each LED state; off and active are required, a state left out falls back to a similar one (see encode.ts)');
export type LedValues = z.output<typeof LedValues>;

/** A SysEx LED template: bytes, with "value", "number" and "channel" standing for the LED's own. */
export const SYSEX_PLACEHOLDERS = ['value', 'number', 'channel'] as const;
const TemplateItem = z.union([AnyByte, z.enum(SYSEX_PLACEHOLDERS)]);

export const Led = z
  .strictObject({
    kind: z.enum(['note', 'cc', 'sysex']).describe('How the LED is lit: note-on velocity, CC value, or a SysEx message'),
    channel: MidiChannel.optional().describe('Default: the control\'s channel'),
    number: DataByte.optional().describe('Note or CC number of the LED (default: the control\'s number)'),
    values: LedValues,
    sysex: z.array(TemplateItem).min(3).optional().describe('For kind sysex: the message; "value", "number" and "channel" (0–15) are filled in'),
  })
  .superRefine((led, context) => {
    if (led.kind === 'sysex') {
      if (led.sysex === undefined) context.addIssue({ code: 'custom', path: ['sysex'], message: 'missing: a sysex LED needs its message template' });
      else if (led.sysex[0] !== 0xf0 || led.sysex.at(-1) !== 0xf7) context.addIssue({ code: 'custom', path: ['sysex'], message: 'a SysEx template must start with 0xF0 (240) and end with 0xF7 (247)' });
      for (const [state, value] of Object.entries(led.values)) {
        if (typeof value === 'object') context.addIssue({ code: 'custom', path: ['values', state], message: 'a SysEx LED takes a plain value; {value, channel} is for note and CC LEDs' });
      }
    } else if (led.sysex !== undefined) {
      context.addIssue({ code: 'custom', path: ['sysex'], message: `only a sysex LED has a template; this one is lit by ${led.kind}` });
    }
  });
export type Led = z.output<typeof Led>;

export const CONTROL_ROLES = ['button', 'fader', 'knob', 'encoder'] as const;

const StyleName = z.string().regex(/^[a-z][a-z0-9-]*$/, { error: 'expected a name of lower-case letters, digits and dashes (rgb-pad)' });

const ControlId = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/, { error: 'expected an id of lower-case letters, digits and dashes, starting with a letter (pad0, fader1, knob2)' })
  .describe('The id profiles bind (pad0, fader1, knob2, button3)');

/** One control as written: its LED given in place, or by the name of a style under `leds`. */
export const MidiControlInput = z
  .strictObject({
    id: ControlId,
    type: z.enum(['note', 'cc', 'pitchbend']).describe('What the control sends'),
    channel: MidiChannel,
    number: DataByte.optional().describe('Note or CC number (not for pitchbend)'),
    role: z.enum(CONTROL_ROLES).describe('button (press/release), fader or knob (absolute 0..1), encoder (relative turns)'),
    encoding: z.enum(ENCODINGS).optional().describe('How an encoder codes a turn in its CC value'),
    motorised: z.boolean().default(false).describe('The device moves it to a value sent back (motor fader, or an LED ring that sets the knob\'s value)'),
    led: z.union([Led, StyleName]).optional().describe('How its LED is lit, or the name of an LED style under leds'),
  })
  .superRefine((control, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (control.type === 'pitchbend') {
      if (control.number !== undefined) issue('number', 'a pitch bend control has no number; leave number out');
      if (control.role !== 'fader' && control.role !== 'knob') issue('role', `a pitch bend control is a fader or a knob, not ${control.role === 'button' ? 'a button' : 'an encoder'}`);
    } else if (control.number === undefined) {
      issue('number', `missing: expected the ${control.type === 'note' ? 'note' : 'CC'} number 0–127`);
    }
    if (control.type === 'note' && control.role !== 'button') issue('role', 'a note control is a button; faders, knobs and encoders send cc or pitchbend');
    if (control.role === 'encoder' && control.type !== 'cc') issue('type', 'an encoder sends relative CC values: expected "cc"');
    if (control.role === 'encoder' && control.encoding === undefined) issue('encoding', `missing: an encoder needs one of ${ENCODINGS.map((e) => `"${e}"`).join(', ')}`);
    if (control.role !== 'encoder' && control.encoding !== undefined) issue('encoding', 'only an encoder has an encoding');
    if (control.motorised && control.role !== 'fader' && control.role !== 'knob') issue('motorised', 'only a fader or a knob can be moved by the bridge');
    if (control.led !== undefined && control.role !== 'button') issue('led', 'only a button has an LED here');
  });
type ControlAsWritten = z.output<typeof MidiControlInput>;
/** A control with its LED style resolved. */
export type MidiControl = Omit<ControlAsWritten, 'led'> & { led?: Led };

/** An MMC transport command bound as a button: each command is a press and its release at once. */
export const MmcControl = z.strictObject({
  id: ControlId,
  command: z.enum(MMC_COMMANDS).describe('The MMC command (Stop 01, Play 02, Record Strobe 06, Record Exit 07, Pause 09, …)'),
});
export type MmcControl = z.output<typeof MmcControl>;

/** MMC commands sent, in order, one message each, at one change of what a control shows. */
const MmcCommandList = z
  .array(z.enum(MMC_COMMANDS))
  .max(4)
  .superRefine((commands, context) => {
    commands.forEach((command, i) => {
      if (commands.indexOf(command) !== i) context.addIssue({ code: 'custom', path: [i], message: `"${command}" is already sent at [${commands.indexOf(command)}]; each command once` });
    });
  });

/**
 * MMC out: a control the profile gives a show (a channel, the sync group, a recorder group), whose
 * changes of meaning are sent to the DAW as transport commands, so its transport follows the recorder.
 */
export const MmcSend = z.strictObject({
  id: ControlId.describe('The id a profile binds with a show (a channel, sync, a recorder group); nothing is lit, the DAW\'s transport follows it'),
  recording: MmcCommandList.default(['record-strobe']).describe('Sent when it starts recording (a take, alone or synchronous), e.g. [play, record-strobe]; [] sends nothing'),
  paused: MmcCommandList.default(['pause']).describe('Sent when it pauses, e.g. [stop] for a DAW that takes Pause as play/pause; [] sends nothing'),
  stopped: MmcCommandList.default(['stop']).describe('Sent when it stops (idle, armed, no source, a fault), e.g. [record-exit, stop]; [] sends nothing'),
});
export type MmcSend = z.output<typeof MmcSend>;

export const MmcSection = z
  .strictObject({
    device: z
      .number()
      .int()
      .min(0)
      .max(MMC_ALL_DEVICES - 1)
      .optional()
      .describe('The MMC device id of this link (0–126): MMC to it and to all devices (7F) is answered, and what send sends goes to it. Without it, only MMC to all is answered, and sent to all'),
    controls: z.array(MmcControl).default([]).describe('MMC commands read from the DAW, each a button'),
    send: z.array(MmcSend).default([]).describe('Controls whose changes are sent to the DAW as MMC (its transport follows the recorder)'),
  })
  .superRefine((mmc, context) => {
    if (mmc.controls.length === 0 && mmc.send.length === 0) context.addIssue({ code: 'custom', path: [], message: 'an mmc section needs commands to read (controls) or controls to send from (send)' });
    const first = new Map<string, number>();
    const ids = new Map<string, string>();
    const claim = (id: string, where: string, path: Array<string | number>) => {
      const same = ids.get(id);
      if (same !== undefined) context.addIssue({ code: 'custom', path, message: `id "${id}" is already used by ${same}` });
      else ids.set(id, where);
    };
    mmc.controls.forEach((control, i) => {
      claim(control.id, `mmc.controls[${i}]`, ['controls', i, 'id']);
      const same = first.get(control.command);
      if (same !== undefined) context.addIssue({ code: 'custom', path: ['controls', i, 'command'], message: `"${control.command}" is already bound by mmc.controls[${same}]` });
      else first.set(control.command, i);
    });
    mmc.send.forEach((send, i) => claim(send.id, `mmc.send[${i}]`, ['send', i, 'id']));
  })
  .describe('MIDI Machine Control (F0 7F <device> 06 <command> F7): commands from a DAW\'s transport as buttons, and commands sent to it as a control\'s state changes');
export type MmcSection = z.output<typeof MmcSection>;

export const MidiMap = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1).describe('Shown in logs; the surface id is midi:<name>'),
    model: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/, { error: 'expected a model id of lower-case letters, digits and dashes (apc-mini-mk2)' })
      .describe('The model id profiles match (match: {kind: midi, model: …})'),
    description: z.string().optional(),
    ports: z.strictObject({
      input: PortPattern,
      output: PortPattern.optional().describe('Default: the same as input'),
    }),
    init: z.array(InitMessage).default([]).describe('Messages sent, in order, each time the device is opened'),
    exit: z.array(InitMessage).default([]).describe('Messages sent, in order, when recdeck lets the device go (back to its own mode)'),
    ledSource: z
      .string()
      .min(1)
      .optional()
      .describe('Where the LED numbers come from: the maker\'s MIDI implementation chart by name (a test checks the map against it)'),
    leds: z.record(StyleName, Led).default({}).describe('LED styles by name, shared by the controls that name them (led: rgb-pad)'),
    controls: z.array(MidiControlInput).default([]),
    mmc: MmcSection.optional(),
  })
  .superRefine((map, context) => {
    if (map.controls.length === 0 && map.mmc === undefined) context.addIssue({ code: 'custom', path: ['controls'], message: 'a map needs at least one control (under controls, or MMC under mmc)' });
    const styles = Object.keys(map.leds);
    map.controls.forEach((control, i) => {
      if (typeof control.led === 'string' && !styles.includes(control.led)) {
        const known = styles.length > 0 ? `there are ${styles.map((s) => `"${s}"`).join(', ')}` : 'there are none';
        context.addIssue({ code: 'custom', path: ['controls', i, 'led'], message: `no LED style "${control.led}" under leds (${known})` });
      }
    });
    const ids = new Map<string, number>();
    const inputs = new Map<string, number>();
    map.controls.forEach((control, i) => {
      const first = ids.get(control.id);
      if (first !== undefined) context.addIssue({ code: 'custom', path: ['controls', i, 'id'], message: `id "${control.id}" is already used by controls[${first}]` });
      else ids.set(control.id, i);
      const mmcSame = map.mmc?.controls.findIndex((mmc) => mmc.id === control.id) ?? -1;
      if (mmcSame >= 0) context.addIssue({ code: 'custom', path: ['controls', i, 'id'], message: `id "${control.id}" is already used by mmc.controls[${mmcSame}]` });
      const sendSame = map.mmc?.send.findIndex((send) => send.id === control.id) ?? -1;
      if (sendSame >= 0) context.addIssue({ code: 'custom', path: ['controls', i, 'id'], message: `id "${control.id}" is already used by mmc.send[${sendSame}]` });
      const key = inputKey(control);
      const same = inputs.get(key);
      if (same !== undefined) context.addIssue({ code: 'custom', path: ['controls', i], message: `sends the same messages as controls[${same}] (${describeInput(control)}); the bridge could not tell them apart` });
      else inputs.set(key, i);
    });
  })
  .transform(({ leds, controls, ...rest }) => ({
    ...rest,
    leds,
    controls: controls.map(({ led, ...control }): MidiControl => {
      const resolved = typeof led === 'string' ? leds[led] : led;
      return resolved === undefined ? control : { ...control, led: resolved };
    }),
  }));
export type MidiMap = z.output<typeof MidiMap>;

/** The message family a control sends; note-on and note-off share one. */
export function inputKey(control: Pick<MidiControl, 'type' | 'channel' | 'number'>): string {
  return control.type === 'pitchbend' ? `pitchbend/${control.channel}` : `${control.type}/${control.channel}/${control.number}`;
}

export function describeInput(control: Pick<MidiControl, 'type' | 'channel' | 'number'>): string {
  return control.type === 'pitchbend' ? `pitch bend on channel ${control.channel}` : `${control.type === 'note' ? 'note' : 'CC'} ${control.number} on channel ${control.channel}`;
}
