// The pure halves of the MIDI surface: messages to surface input, and LED states and levels to bytes,
// with every value checked before anything could be sent.
import { describe, expect, it } from 'vitest';
import { ControlIndex, decode, fromBytes, relativeAmount, type MidiMessage } from '../../../src/surfaces/midi/decode.js';
import { encodeLed, encodeLevel, ledValueFor, MidiValueError } from '../../../src/surfaces/midi/encode.js';
import type { Led, MidiControl } from '../../../src/surfaces/midi/midi-map.js';

const button = (over: Partial<MidiControl> = {}): MidiControl => ({ id: 'pad0', type: 'note', channel: 1, number: 36, role: 'button', motorised: false, ...over });
const note = (kind: 'note-on' | 'note-off', value: number): MidiMessage => ({ kind, channel: 1, number: 36, value });

describe('decoding', () => {
  it('note-on is a press, note-off and note-on with velocity 0 are releases', () => {
    expect(decode(button(), note('note-on', 100))).toEqual({ type: 'down', control: 'pad0' });
    expect(decode(button(), note('note-off', 64))).toEqual({ type: 'up', control: 'pad0' });
    expect(decode(button(), note('note-on', 0))).toEqual({ type: 'up', control: 'pad0' });
  });

  it('a CC button is pressed above 0 and released at 0', () => {
    const cc = button({ type: 'cc', number: 41 });
    expect(decode(cc, { kind: 'cc', channel: 1, number: 41, value: 127 })).toEqual({ type: 'down', control: 'pad0' });
    expect(decode(cc, { kind: 'cc', channel: 1, number: 41, value: 0 })).toEqual({ type: 'up', control: 'pad0' });
  });

  it('absolute CC and 14-bit pitch bend become positions 0..1', () => {
    const fader = button({ id: 'fader0', type: 'cc', number: 48, role: 'fader' });
    expect(decode(fader, { kind: 'cc', channel: 1, number: 48, value: 0 })).toEqual({ type: 'fader', control: 'fader0', position: 0 });
    expect(decode(fader, { kind: 'cc', channel: 1, number: 48, value: 127 })).toEqual({ type: 'fader', control: 'fader0', position: 1 });
    const bend = button({ id: 'bend', type: 'pitchbend', number: undefined, role: 'fader' });
    expect(decode(bend, { kind: 'pitchbend', channel: 1, value: 16383 })).toEqual({ type: 'fader', control: 'bend', position: 1 });
    expect(decode(bend, { kind: 'pitchbend', channel: 1, value: 8192 })).toMatchObject({ position: 8192 / 16383 });
    expect(decode(bend, { kind: 'pitchbend', channel: 1, value: 0 })).toMatchObject({ position: 0 });
  });

  it('decodes each relative encoder mode, keeping the size of fast turns', () => {
    expect([1, 5, 63, 64, 65, 127].map((v) => relativeAmount(v, 'twos-complement'))).toEqual([1, 5, 63, -64, -63, -1]);
    expect([64, 65, 70, 63, 58, 0].map((v) => relativeAmount(v, 'binary-offset'))).toEqual([0, 1, 6, -1, -6, -64]);
    expect([0, 1, 5, 65, 69, 64].map((v) => relativeAmount(v, 'sign-magnitude'))).toEqual([0, 1, 5, -1, -5, 0]);
    const encoder = button({ id: 'enc0', type: 'cc', number: 16, role: 'encoder', encoding: 'twos-complement' });
    expect(decode(encoder, { kind: 'cc', channel: 1, number: 16, value: 126 })).toEqual({ type: 'rotate', control: 'enc0', amount: -2 });
    expect(decode({ ...encoder, encoding: 'binary-offset' }, { kind: 'cc', channel: 1, number: 16, value: 64 })).toBeNull();
  });

  it('finds the control by message family, channel and number', () => {
    const index = new ControlIndex({ controls: [button(), button({ id: 'fader0', type: 'cc', number: 36, role: 'fader' }), button({ id: 'bend', type: 'pitchbend', channel: 2, number: undefined, role: 'fader' })] });
    expect(index.find(note('note-off', 0))?.id).toBe('pad0');
    expect(index.find({ kind: 'cc', channel: 1, number: 36, value: 3 })?.id).toBe('fader0');
    expect(index.find({ kind: 'pitchbend', channel: 2, value: 3 })?.id).toBe('bend');
    expect(index.find({ kind: 'note-on', channel: 2, number: 36, value: 3 })).toBeUndefined();
  });

  it('reads raw bytes, and refuses a truncated or corrupt message', () => {
    expect(fromBytes([0x90, 36, 100])).toEqual({ ok: true, message: { kind: 'note-on', channel: 1, number: 36, value: 100 } });
    expect(fromBytes([0x8f, 36, 0])).toEqual({ ok: true, message: { kind: 'note-off', channel: 16, number: 36, value: 0 } });
    expect(fromBytes([0xe3, 0x00, 0x40])).toEqual({ ok: true, message: { kind: 'pitchbend', channel: 4, value: 8192 } });
    expect(fromBytes([0xc0, 5])).toBeNull(); // a program change: valid, of no use to a surface
    expect(fromBytes([0x90, 36])).toEqual({ ok: false, reason: 'note-on 90: 2 bytes, not 3 (truncated message?)' });
    expect(fromBytes([0xb0, 200, 1])).toEqual({ ok: false, reason: 'cc B0: data bytes 200 1 are not 0–127' });
    expect(fromBytes([0x40, 1, 2])).toMatchObject({ ok: false });
    expect(fromBytes([])).toMatchObject({ ok: false });
  });
});

const rgb: Led = {
  kind: 'note',
  values: { off: 0, active: { value: 21, channel: 7 }, recording: { value: 5, channel: 7 }, paused: { value: 13, channel: 10 }, idle: 3 },
};

describe('encoding', () => {
  it('lights a note LED with the state\'s velocity, on the channel that picks brightness or blinking', () => {
    const pad = button({ number: 0, led: rgb });
    expect(encodeLed(pad, 'recording')).toEqual([0x96, 0, 5]);
    expect(encodeLed(pad, 'paused')).toEqual([0x99, 0, 13]);
    expect(encodeLed(pad, 'idle')).toEqual([0x90, 0, 3]);
    expect(encodeLed(pad, 'off')).toEqual([0x90, 0, 0]);
  });

  it('lights a CC LED, on its own channel and number when it has them', () => {
    const led: Led = { kind: 'cc', channel: 2, number: 99, values: { off: 0, active: 127 } };
    expect(encodeLed(button({ type: 'cc', number: 41, led }), 'active')).toEqual([0xb1, 99, 127]);
  });

  it('fills a SysEx template', () => {
    const led: Led = { kind: 'sysex', values: { off: 0, active: 21 }, sysex: [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x03, 0x00, 'number', 'value', 0xf7] };
    expect(encodeLed(button({ number: 11, led }), 'active')).toEqual([0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x03, 0x00, 11, 21, 0xf7]);
  });

  it('falls back from a state the map leaves out to a similar one, ending at active or off', () => {
    const single: Led = { kind: 'note', values: { off: 0, active: 1, paused: 2 } };
    expect(ledValueFor(single, 'sync-recording')).toBe(1);
    expect(ledValueFor(single, 'offline')).toBe(0);
    expect(ledValueFor(single, 'no-source')).toBe(0);
    expect(ledValueFor(single, 'paused')).toBe(2);
    expect(ledValueFor(rgb, 'sync-recording')).toEqual({ value: 5, channel: 7 });
  });

  it('moves a motorised fader with 14-bit pitch bend or a CC', () => {
    const bend = button({ id: 'bend', type: 'pitchbend', channel: 1, number: undefined, role: 'fader', motorised: true });
    expect(encodeLevel(bend, 1)).toEqual([0xe0, 0x7f, 0x7f]);
    expect(encodeLevel(bend, 0.5)).toEqual([0xe0, 0x00, 0x40]);
    expect(encodeLevel(button({ type: 'cc', number: 9, role: 'knob', motorised: true }), 0.5)).toEqual([0xb0, 9, 64]);
  });

  it('refuses a value out of range, naming the control and the value', () => {
    expect(() => encodeLed(button({ led: { kind: 'note', values: { off: 0, active: 128 } } }), 'active')).toThrow(new MidiValueError('pad0', 'LED for "active": velocity 128 is not a data byte 0–127'));
    expect(() => encodeLed(button({ led: { kind: 'note', values: { off: 0, active: { value: 1, channel: 17 } } } }), 'active')).toThrow('pad0: LED for "active": channel 17 is not 1–16');
    expect(() => encodeLed(button({ channel: 0, led: rgb }), 'idle')).toThrow('pad0: LED for "idle": channel 0 is not 1–16');
    const sysex: Led = { kind: 'sysex', values: { off: 0, active: 200 }, sysex: [0xf0, 0x00, 'value', 0xf7] };
    expect(() => encodeLed(button({ led: sysex }), 'active')).toThrow('pad0: LED for "active": SysEx: byte 2 is 200: between F0 and F7 only 7-bit data (0–127) may appear (F0 00 C8 F7)');
    const unterminated: Led = { kind: 'sysex', values: { off: 0, active: 1 }, sysex: [0xf0, 0x00, 'value', 0x00] };
    expect(() => encodeLed(button({ led: unterminated }), 'active')).toThrow('must end with 0xF7');
    expect(() => encodeLevel(button({ type: 'cc', role: 'fader' }), 1.5)).toThrow('pad0: level 1.5 is not a number from 0 to 1');
    expect(() => encodeLevel(button({ type: 'cc', role: 'fader' }), Number.NaN)).toThrow('level NaN');
  });
});
