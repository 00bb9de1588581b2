// Incoming MIDI to surface input, without side effects: a parsed message is checked (a truncated or
// corrupt message leaves holes and out-of-range numbers in what easymidi hands over), matched to the
// map's control, and turned into a press, a release, a position or a turn.
import type { SurfaceInput } from '../../engine/surface.js';
import { inputKey, type Encoding, type MidiControl, type MidiMap } from './midi-map.js';

/** One channel message, channels counted 1–16 as in the map. */
export type MidiMessage =
  | { kind: 'note-on' | 'note-off' | 'cc'; channel: number; number: number; value: number }
  /** value: 14 bits, 0..16383 (8192 is the centre). */
  | { kind: 'pitchbend'; channel: number; value: number };

export type Screened = { ok: true; message: MidiMessage } | { ok: false; reason: string };

/** The easymidi events the surface listens to. */
export type EasymidiEvent = 'noteon' | 'noteoff' | 'cc' | 'pitch';

const PITCH_MAX = 16383;

/**
 * easymidi's parsed event as a MidiMessage. easymidi copies bytes into fields without looking at them,
 * so a two-byte note-on arrives with velocity undefined and a data byte above 127 arrives as is.
 */
export function fromEasymidi(event: EasymidiEvent, msg: unknown): Screened {
  if (typeof msg !== 'object' || msg === null) return { ok: false, reason: `${event}: no message` };
  const fields = msg as Record<string, unknown>;
  const channel = fields.channel;
  if (!isInt(channel, 0, 15)) return { ok: false, reason: `${event}: channel ${show(channel)} is not 0–15` };
  if (event === 'pitch') {
    const value = fields.value;
    if (!isInt(value, 0, PITCH_MAX)) return { ok: false, reason: `pitch bend value ${show(value)} is not 0–${PITCH_MAX} (truncated message?)` };
    return { ok: true, message: { kind: 'pitchbend', channel: channel + 1, value } };
  }
  const [numberField, valueField] = event === 'cc' ? ['controller', 'value'] : ['note', 'velocity'];
  const number = fields[numberField];
  const value = fields[valueField];
  if (!isInt(number, 0, 127)) return { ok: false, reason: `${event}: ${numberField} ${show(number)} is not 0–127 (truncated message?)` };
  if (!isInt(value, 0, 127)) return { ok: false, reason: `${event}: ${valueField} ${show(value)} is not 0–127 (truncated message?)` };
  const kind = event === 'cc' ? 'cc' : event === 'noteon' ? 'note-on' : 'note-off';
  return { ok: true, message: { kind, channel: channel + 1, number, value } };
}

/** Finds the map's control for a message in one lookup (the map guarantees each input is one control's). */
export class ControlIndex {
  private readonly byInput = new Map<string, MidiControl>();

  constructor(map: Pick<MidiMap, 'controls'>) {
    for (const control of map.controls) this.byInput.set(inputKey(control), control);
  }

  find(message: MidiMessage): MidiControl | undefined {
    const type = message.kind === 'pitchbend' ? 'pitchbend' : message.kind === 'cc' ? 'cc' : 'note';
    return this.byInput.get(inputKey({ type, channel: message.channel, number: message.kind === 'pitchbend' ? undefined : message.number }));
  }
}

/** What a message from a control means; null when it means nothing (an encoder value of "no turn"). */
export function decode(control: MidiControl, message: MidiMessage): SurfaceInput | null {
  const id = control.id;
  switch (control.role) {
    case 'button':
      if (message.kind === 'pitchbend') return null;
      // A note-on with velocity 0 is a release: running status lets devices send note-offs that way.
      if (message.kind === 'note-off' || message.value === 0) return { type: 'up', control: id };
      return { type: 'down', control: id };
    case 'fader':
    case 'knob':
      if (message.kind === 'pitchbend') return { type: 'fader', control: id, position: message.value / PITCH_MAX };
      if (message.kind === 'cc') return { type: 'fader', control: id, position: message.value / 127 };
      return null;
    case 'encoder': {
      if (message.kind !== 'cc' || control.encoding === undefined) return null;
      const amount = relativeAmount(message.value, control.encoding);
      return amount === 0 ? null : { type: 'rotate', control: id, amount };
    }
  }
}

/**
 * The signed detents in a relative encoder's CC value. The size is kept: devices send larger steps for
 * faster turns, and the engine scales gain steps by it.
 * - twos-complement: 1..63 clockwise, 127..65 counter-clockwise (-1..-63), 64 = -64.
 * - binary-offset: 64 is no turn, 65.. clockwise, ..63 counter-clockwise.
 * - sign-magnitude: bit 6 set means counter-clockwise, bits 0–5 the size (Mackie V-Pot style).
 */
export function relativeAmount(value: number, encoding: Encoding): number {
  switch (encoding) {
    case 'twos-complement':
      return value < 64 ? value : value - 128;
    case 'binary-offset':
      return value - 64;
    case 'sign-magnitude':
      // 0x40 alone is "counter-clockwise by nothing": no turn, and 0 rather than -0.
      return value & 0x40 ? -(value & 0x3f) || 0 : value & 0x3f;
  }
}

function isInt(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function show(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value) ?? String(value);
}
