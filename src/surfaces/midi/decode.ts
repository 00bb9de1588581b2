// Incoming MIDI to surface input, without side effects: a raw message is checked (a truncated or
// corrupt message has missing or out-of-range bytes), matched to the map's control, and turned into a
// press, a release, a position or a turn.
import type { SurfaceInput } from '../../engine/surface.js';
import { hexByte, isInt, show } from './bytes.js';
import { inputKey, type Encoding, type MidiControl, type MidiMap } from './midi-map.js';

/** One channel message, channels counted 1–16 as in the map. */
export type MidiMessage =
  | { kind: 'note-on' | 'note-off' | 'cc'; channel: number; number: number; value: number }
  /** value: 14 bits, 0..16383 (8192 is the centre). */
  | { kind: 'pitchbend'; channel: number; value: number };

export type Screened = { ok: true; message: MidiMessage } | { ok: false; reason: string };

const PITCH_MAX = 16383;
const KINDS: Readonly<Record<number, 'note-off' | 'note-on' | 'cc' | 'pitchbend'>> = { 0x80: 'note-off', 0x90: 'note-on', 0xb0: 'cc', 0xe0: 'pitchbend' };

/**
 * A raw message as a MidiMessage; null for a valid message the surface has no use for (aftertouch,
 * program change). The screen (input-guard.ts) has already dropped malformed ones; this checks again
 * because it is the last place that could tell.
 */
export function fromBytes(bytes: readonly number[]): Screened | null {
  const [status, first, second] = bytes;
  if (!isInt(status, 0x80, 0xef)) return { ok: false, reason: `a message with status ${show(status)}, not a channel message` };
  const kind = KINDS[status & 0xf0];
  if (kind === undefined) return null;
  const what = `${kind} ${hexByte(status)}`;
  if (bytes.length !== 3) return { ok: false, reason: `${what}: ${bytes.length} bytes, not 3 (truncated message?)` };
  if (!isInt(first, 0, 127) || !isInt(second, 0, 127)) return { ok: false, reason: `${what}: data bytes ${show(first)} ${show(second)} are not 0–127` };
  const channel = (status & 0x0f) + 1;
  if (kind === 'pitchbend') return { ok: true, message: { kind, channel, value: first + second * 128 } };
  return { ok: true, message: { kind, channel, number: first, value: second } };
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
