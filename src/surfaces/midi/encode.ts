// Outgoing MIDI from LED states, levels and MMC transport commands, without side effects. Every byte is checked here, because
// nothing below does: RtMidi sends what it is given, so a channel of 16 would silently become another
// message type and a value of 128 would corrupt the stream (a Buffer wraps it). A value out of range is
// a MidiValueError naming the control and the value; nothing is sent.
import type { LedState } from '../../engine/surface.js';
import { hex, isInt, show } from './bytes.js';
import { wholeMessageProblem, type Led, type LedValue, type MidiControl } from './midi-map.js';
import { MMC_ALL_DEVICES, MMC_COMMAND_SUB_ID, MMC_TRANSPORT, UNIVERSAL_REAL_TIME, type MmcCommand } from './mmc.js';

export class MidiValueError extends Error {
  constructor(
    readonly control: string,
    message: string,
  ) {
    super(`${control}: ${message}`);
    this.name = 'MidiValueError';
  }
}

const NOTE_ON = 0x90;
const CONTROL_CHANGE = 0xb0;
const PITCH_BEND = 0xe0;

/**
 * Where a state the map does not list borrows its value, so a map for a one-colour LED can say only
 * off and active. Every chain ends at off or active, which the schema requires.
 */
export const LED_FALLBACK: Readonly<Record<Exclude<LedState, 'off' | 'active'>, LedState>> = {
  idle: 'off',
  recording: 'active',
  'sync-recording': 'recording',
  paused: 'active',
  armed: 'active',
  holding: 'active',
  dialog: 'active',
  wrong: 'active',
  'no-source': 'idle',
  stale: 'idle',
  offline: 'off',
};

/** The value the map gives a state, following the fallbacks for states it leaves out. */
export function ledValueFor(led: Led, state: LedState): LedValue {
  let current: LedState = state;
  for (;;) {
    const value = led.values[current];
    if (value !== undefined) return value;
    if (current === 'off' || current === 'active') return 0; // unreachable with a validated map
    current = LED_FALLBACK[current];
  }
}

/** The bytes that show a state on a control's LED. */
export function encodeLed(control: MidiControl, state: LedState): number[] {
  const led = control.led;
  if (led === undefined) throw new MidiValueError(control.id, 'has no LED');
  const given = ledValueFor(led, state);
  const value = typeof given === 'number' ? given : given.value;
  const channel = typeof given === 'number' ? (led.channel ?? control.channel) : given.channel;
  const number = led.number ?? control.number;
  const what = `LED for "${state}"`;
  switch (led.kind) {
    case 'note':
      return channelMessage(control.id, what, NOTE_ON, channel, [['note', number], ['velocity', value]]);
    case 'cc':
      return channelMessage(control.id, what, CONTROL_CHANGE, channel, [['CC number', number], ['value', value]]);
    case 'sysex': {
      const filled = (led.sysex ?? []).map((item) => (item === 'value' ? value : item === 'number' ? number : item === 'channel' ? channel - 1 : item));
      return checkedMessage(control.id, `${what}: SysEx`, filled);
    }
  }
}

/** The bytes that move a motorised fader (or a knob's LED ring) to a level 0..1. */
export function encodeLevel(control: MidiControl, level: number): number[] {
  if (typeof level !== 'number' || !Number.isFinite(level) || level < 0 || level > 1) throw new MidiValueError(control.id, `level ${String(level)} is not a number from 0 to 1`);
  const value = levelValue(control, level);
  if (control.type === 'pitchbend') return channelMessage(control.id, 'level', PITCH_BEND, control.channel, [['LSB', value & 0x7f], ['MSB', value >> 7]]);
  if (control.type === 'cc') return channelMessage(control.id, 'level', CONTROL_CHANGE, control.channel, [['CC number', control.number], ['value', value]]);
  throw new MidiValueError(control.id, 'a note control has no level to set');
}

/** A level as the device takes it: 14 bits for pitch bend, else 7. Two levels with one value are one to the device. */
export function levelValue(control: MidiControl, level: number): number {
  return Math.round(level * (control.type === 'pitchbend' ? 16383 : 127));
}

/**
 * The MMC message that sends one transport command to `device` (0–126, or 7F for every device): F0 7F
 * <device> 06 <command> F7. One command a message, though MMC allows several: a DAW that reads only the
 * first is as common as one that reads them all.
 */
export function encodeMmc(control: string, device: number, command: MmcCommand): number[] {
  if (!isInt(device, 0, MMC_ALL_DEVICES)) throw new MidiValueError(control, `MMC device ${show(device)} is not 0–127 (7F: every device)`);
  const byte = MMC_TRANSPORT[command] as number | undefined;
  if (byte === undefined) throw new MidiValueError(control, `${show(command)} is not an MMC transport command`);
  return checkedMessage(control, `MMC ${command}`, [0xf0, UNIVERSAL_REAL_TIME, device, MMC_COMMAND_SUB_ID, byte, 0xf7]);
}

/** A whole message from the map (init), checked the same way. */
export function checkedMessage(where: string, what: string, bytes: readonly unknown[]): number[] {
  const bad = bytes.findIndex((b) => !isInt(b, 0, 255));
  if (bad >= 0) throw new MidiValueError(where, `${what}: byte ${bad} is ${show(bytes[bad])}, not a byte 0–255`);
  const numbers = bytes as number[];
  const problem = wholeMessageProblem(numbers);
  if (problem !== null) throw new MidiValueError(where, `${what}: ${problem} (${hex(numbers)})`);
  return [...numbers];
}

function channelMessage(control: string, what: string, status: number, channel: unknown, data: ReadonlyArray<readonly [string, unknown]>): number[] {
  if (!isInt(channel, 1, 16)) throw new MidiValueError(control, `${what}: channel ${show(channel)} is not 1–16`);
  for (const [name, value] of data) {
    if (!isInt(value, 0, 127)) throw new MidiValueError(control, `${what}: ${name} ${show(value)} is not a data byte 0–127`);
  }
  return [status | (channel - 1), ...data.map(([, value]) => value as number)];
}
