// The MIDI surface with the REAL @julusian/midi running over a fake RtMidi: bytes from a device go
// through the library's input callback to surface input, and LED states and levels go through its
// DeviceOutput to the exact bytes a device would get. Time is virtual.
import { describe, expect, it } from 'vitest';
import type { OutputItem } from '../../../src/engine/device-output.js';
import type { Logger } from '../../../src/engine/log.js';
import type { LedState, SurfaceInput } from '../../../src/engine/surface.js';
import type { MidiInputPort } from '../../../src/surfaces/midi/midi-port.js';
import { parseMidiMap } from '../../../src/surfaces/midi/load-midi-map.js';
import type { MidiControl, MidiMap } from '../../../src/surfaces/midi/midi-map.js';
import { MidiSurface } from '../../../src/surfaces/midi/midi-surface.js';
import { FakeMidiSystem, rtMidiOver } from '../../support/fake-midi.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { realTime } from '../../../src/engine/engine-time.js';

const PORT = 'Test Deck';
const PROGRAMMER_MODE = [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x01, 0xf7];

const MAP = `name: Test deck
model: test-deck
ports: {input: ${PORT}}
init:
  - [0xF0, 0x00, 0x20, 0x29, 0x02, 0x0D, 0x0E, 0x01, 0xF7]
leds:
  rgb:
    kind: note
    values: {off: 0, active: {value: 21, channel: 7}, recording: {value: 5, channel: 7}, paused: {value: 13, channel: 10}, wrong: {value: 9, channel: 14}}
controls:
  - {id: pad0, type: note, channel: 1, number: 0, role: button, led: rgb}
  - {id: button0, type: cc, channel: 1, number: 41, role: button, led: {kind: cc, values: {off: 0, active: 127}}}
  - {id: sx0, type: note, channel: 1, number: 11, role: button, led: {kind: sysex, values: {off: 0, active: 21}, sysex: [0xF0, 0x00, 0x20, 0x29, 0x02, 0x0D, 0x03, 0x00, number, value, 0xF7]}}
  - {id: fader0, type: cc, channel: 1, number: 48, role: fader}
  - {id: motor0, type: pitchbend, channel: 2, role: fader, motorised: true}
  - {id: enc-twos, type: cc, channel: 1, number: 16, role: encoder, encoding: twos-complement}
  - {id: enc-offset, type: cc, channel: 1, number: 17, role: encoder, encoding: binary-offset}
  - {id: enc-sign, type: cc, channel: 1, number: 18, role: encoder, encoding: sign-magnitude}
`;

function testMap(): MidiMap {
  const result = parseMidiMap(MAP, 'test-deck.yaml');
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.loaded.map;
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

function setup(options: { map?: MidiMap; graceMs?: number } = {}) {
  const system = new FakeMidiSystem();
  system.plug(PORT);
  const midi = rtMidiOver(system);
  const log = recordingLog();
  const time = new VirtualTime();
  const surface = new MidiSurface({
    map: options.map ?? testMap(),
    portName: PORT,
    input: midi.openInput(PORT),
    output: midi.openOutput(PORT),
    log,
    time,
    ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
  });
  const inputs: SurfaceInput[] = [];
  surface.input.subscribe((input) => inputs.push(input));
  const send = (...messages: number[][]) => {
    for (const bytes of messages) system.fromDevice(PORT, bytes);
  };
  /** Hands items to the surface's output, as the engine does, and waits until they are written. */
  const show = async (...items: OutputItem[]) => {
    for (const item of items) surface.output.show(item);
    await surface.output.flushed();
  };
  const led = (control: string, state: LedState) => show({ type: 'led', control, state });
  const level = (control: string, value: number) => show({ type: 'level', control, level: value });
  /** Moves the clock on: what falls due (a hand let go) is written. */
  const advance = async (ms: number) => {
    time.advanceTo(time.now() + ms);
    await surface.output.flushed();
  };
  return { system, surface, inputs, log, send, sent: () => system.sent(PORT), advance, led, level, show };
}

describe('MIDI surface: input through @julusian/midi', () => {
  it('is a midi surface named after its port, with the map\'s controls', () => {
    const { surface } = setup();
    expect([surface.id, surface.kind, surface.model, surface.name]).toEqual(['midi:Test deck', 'midi', 'test-deck', PORT]);
    expect(surface.controls.slice(0, 4)).toEqual([
      { kind: 'button', id: 'pad0', feedback: 'led' },
      { kind: 'button', id: 'button0', feedback: 'led' },
      { kind: 'button', id: 'sx0', feedback: 'led' },
      { kind: 'fader', id: 'fader0', motorised: false },
    ]);
    expect(surface.controls.at(-1)).toEqual({ kind: 'encoder', id: 'enc-sign', pressable: false, ring: false });
  });

  it('turns note on, note off and note on with velocity 0 into presses and releases', () => {
    const { send, inputs } = setup();
    send([0x90, 0, 100], [0x80, 0, 64], [0x90, 0, 127], [0x90, 0, 0]);
    expect(inputs).toEqual([
      { type: 'down', control: 'pad0' },
      { type: 'up', control: 'pad0' },
      { type: 'down', control: 'pad0' },
      { type: 'up', control: 'pad0' },
    ]);
  });

  it('turns a CC button, an absolute fader and pitch bend into presses and positions', () => {
    const { send, inputs } = setup();
    send([0xb0, 41, 127], [0xb0, 41, 0], [0xb0, 48, 127], [0xb0, 48, 0], [0xe1, 0x7f, 0x7f], [0xe1, 0x00, 0x40]);
    expect(inputs).toEqual([
      { type: 'down', control: 'button0' },
      { type: 'up', control: 'button0' },
      { type: 'fader', control: 'fader0', position: 1 },
      { type: 'fader', control: 'fader0', position: 0 },
      { type: 'fader', control: 'motor0', position: 1 },
      { type: 'fader', control: 'motor0', position: 8192 / 16383 },
    ]);
  });

  it('decodes each relative encoder mode', () => {
    const { send, inputs } = setup();
    send([0xb0, 16, 1], [0xb0, 16, 127], [0xb0, 16, 3], [0xb0, 17, 65], [0xb0, 17, 61], [0xb0, 17, 64], [0xb0, 18, 2], [0xb0, 18, 0x41]);
    expect(inputs).toEqual([
      { type: 'rotate', control: 'enc-twos', amount: 1 },
      { type: 'rotate', control: 'enc-twos', amount: -1 },
      { type: 'rotate', control: 'enc-twos', amount: 3 },
      { type: 'rotate', control: 'enc-offset', amount: 1 },
      { type: 'rotate', control: 'enc-offset', amount: -3 },
      { type: 'rotate', control: 'enc-sign', amount: 2 },
      { type: 'rotate', control: 'enc-sign', amount: -1 },
    ]);
  });

  it('ignores messages for controls the map does not have, without a word', () => {
    const { send, inputs, log } = setup();
    send([0x90, 99, 100], [0xb5, 48, 3], [0xe0, 0, 0]);
    expect(inputs).toEqual([]);
    expect(log.lines).toEqual([]);
  });
});

describe('MIDI surface: output through @julusian/midi', () => {
  it('sends the init messages on open', async () => {
    const { surface, sent } = setup();
    await surface.open();
    expect(sent()).toEqual([PROGRAMMER_MODE]);
  });

  it('sends the exact bytes for note, CC and SysEx LEDs, on blink and pulse channels', async () => {
    const { led, sent } = setup();
    await led('pad0', 'recording');
    await led('pad0', 'paused');
    await led('pad0', 'wrong');
    await led('pad0', 'sync-recording'); // not in the map: falls back to recording
    await led('button0', 'active');
    await led('button0', 'idle'); // falls back to off
    await led('sx0', 'active');
    expect(sent()).toEqual([
      [0x96, 0, 5],
      [0x99, 0, 13],
      [0x9d, 0, 9],
      [0x96, 0, 5],
      [0xb0, 41, 127],
      [0xb0, 41, 0],
      [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x03, 0x00, 11, 21, 0xf7],
    ]);
  });

  it('refuses an invalid value with a warning naming the control and the value, and sends nothing', async () => {
    const map = testMap();
    const bad = (id: string, patch: Partial<MidiControl>): MidiMap => ({ ...map, controls: map.controls.map((c) => (c.id === id ? { ...c, ...patch } : c)) });
    const velocity = setup({ map: bad('pad0', { led: { kind: 'note', values: { off: 0, active: 128 } } }) });
    await velocity.led('pad0', 'active');
    expect(velocity.log.lines).toEqual(['warn midi:Test deck: lighting pad0 failed: pad0: LED for "active": velocity 128 is not a data byte 0–127']);
    const channel = setup({ map: bad('button0', { led: { kind: 'cc', values: { off: 0, active: { value: 127, channel: 17 } } } }) });
    await channel.led('button0', 'active');
    expect(channel.log.lines).toEqual(['warn midi:Test deck: lighting button0 failed: button0: LED for "active": channel 17 is not 1–16']);
    const sysex = setup({ map: bad('sx0', { led: { kind: 'sysex', values: { off: 0, active: 0x80 }, sysex: [0xf0, 0x00, 'value', 0xf7] } }) });
    await sysex.led('sx0', 'active');
    expect(sysex.log.lines).toEqual(['warn midi:Test deck: lighting sx0 failed: sx0: LED for "active": SysEx: byte 2 is 128: between F0 and F7 only 7-bit data (0–127) may appear (F0 00 80 F7)']);
    const init = setup({ map: { ...map, init: [[0xf0, 0x00, 0x20, 0x90, 0xf7]] } });
    await expect(init.surface.open()).rejects.toThrow('midi:Test deck: init[0]: byte 3 is 144');
    const level = setup();
    await level.level('motor0', 1.2);
    expect(level.log.lines).toEqual(['warn midi:Test deck: setting the level of motor0 failed: motor0: level 1.2 is not a number from 0 to 1']);
    for (const { sent } of [velocity, channel, sysex, init, level]) expect(sent()).toEqual([]);
  });

  it('puts every LED out on clear; has no displays and no brightness: refused, said once each, nothing sent', async () => {
    const { surface, sent, show, log } = setup();
    await surface.output.clear();
    expect(sent()).toEqual([[0x90, 0, 0], [0xb0, 41, 0], [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x03, 0x00, 11, 0, 0xf7]]);
    await show({ type: 'image', control: 'pad0', image: { width: 1, height: 1, data: Buffer.alloc(3) } });
    await show({ type: 'brightness', percent: 50 });
    expect(sent()).toHaveLength(3); // nothing written for either
    expect(surface.output.offers('images') || surface.output.offers('brightness')).toBe(false);
    expect(log.lines).toEqual([
      'warn midi:Test deck: refused drawing pad0: the device has no displays (no "images" capability; it offers lights, levels); further images for it are refused without a word',
      'warn midi:Test deck: refused setting brightness: the device has no brightness (no "brightness" capability; it offers lights, levels); further brightness for it are refused without a word',
    ]);
  });
});

describe('MIDI surface: faders', () => {
  it('soft takeover: a fader away from the gain does nothing until it reaches it, then follows', async () => {
    const { level, send, inputs, advance } = setup();
    await level('fader0', 0.5); // the engine: the gain is at the middle of its range
    send([0xb0, 48, 120]);
    await advance(10);
    send([0xb0, 48, 90]);
    expect(inputs).toEqual([]);
    await advance(10);
    send([0xb0, 48, 64]);
    await advance(10);
    send([0xb0, 48, 30]);
    expect(inputs).toEqual([
      { type: 'fader', control: 'fader0', position: 64 / 127 },
      { type: 'fader', control: 'fader0', position: 30 / 127 },
    ]);
  });

  it('soft takeover with levels written only on change: a fader the gain did not follow lets go once the hand rests, though the gain never moved', async () => {
    const { level, send, inputs, advance, surface } = setup({ graceMs: 500 });
    await level('fader0', 0.5);
    send([0xb0, 48, 64]); // reaches the gain: picked up
    send([0xb0, 48, 30]); // moves it, but the gain's write is refused: it stays at 0.5
    await level('fader0', 0.5); // a meter read while the hand is on it
    await advance(500);
    expect(surface.output.shown().levels.get('fader0')).toBe(0.5); // the gain, given again once the hand rested
    await level('fader0', 0.5);
    inputs.length = 0;
    send([0xb0, 48, 32]); // the fader no longer moves the gain: it must pick it up again
    expect(inputs).toEqual([]);
    send([0xb0, 48, 64]);
    expect(inputs).toEqual([{ type: 'fader', control: 'fader0', position: 64 / 127 }]);
  });

  it('a motorised fader is moved to the gain, but not while the hand is on it', async () => {
    const { level, send, inputs, sent, advance } = setup({ graceMs: 500 });
    await level('motor0', 0.5);
    expect(sent()).toEqual([[0xe1, 0x00, 0x40]]);
    send([0xe1, 0x00, 0x20]); // moved by hand: passed on at once, no takeover needed
    expect(inputs).toEqual([{ type: 'fader', control: 'motor0', position: 4096 / 16383 }]);
    await level('motor0', 0.25);
    await level('motor0', 0.3);
    expect(sent()).toHaveLength(1);
    await advance(499);
    expect(sent()).toHaveLength(1);
    await advance(1);
    expect(sent()).toEqual([
      [0xe1, 0x00, 0x40],
      [0xe1, 0x33, 0x26], // 0.3 × 16383 = 4915 (the latest level), sent once the hand let go
    ]);
  });

  it('a motor is sent a level only when the device shows another: not again and again, but again after the hand moved it', async () => {
    const { level, send, sent, advance, system } = setup({ graceMs: 500 });
    for (let read = 0; read < 5; read++) await level('motor0', 0.5);
    await level('motor0', 0.50001); // the same message on the device
    expect(sent()).toEqual([[0xe1, 0x00, 0x40]]);

    // The hand takes it to 0.25 and the gain does not follow (its write was refused): the gain goes back.
    send([0xe1, 0x00, 0x20]);
    await level('motor0', 0.5);
    await advance(500);
    expect(sent()).toEqual([
      [0xe1, 0x00, 0x40],
      [0xe1, 0x00, 0x40],
    ]);

    // The hand takes it to 0.25 and the gain follows: nothing to send.
    system.clearSent();
    send([0xe1, 0x00, 0x20]);
    await advance(500);
    await level('motor0', 4096 / 16383);
    expect(sent()).toEqual([]);
  });
});

describe('MIDI surface: garbage input', () => {
  it('ignores malformed input with a log line and keeps working', async () => {
    const { send, inputs, log, advance } = setup();
    const garbage: number[][] = [
      [0xf0, 0x00, 0x20], // a SysEx start, cut off by the next message
      [0x90, 0, 100],
      [0xf4],
      [0xf5, 0x01],
      [0x40, 0x40],
      [0x90, 0x00],
      [0x90, 0x00, 0x80],
      [0xf7],
      [0xf0, 0x00, 0x90, 0xf7],
      [0xf0, ...new Array<number>(5000).fill(0), 0xf7],
      [0xb0, 48],
    ];
    for (const bytes of garbage) {
      await advance(20_000); // one line each: past the log limiter's window
      expect(() => send(bytes)).not.toThrow();
    }
    send([0x80, 0, 0]);
    expect(inputs).toEqual([
      { type: 'down', control: 'pad0' },
      { type: 'up', control: 'pad0' },
    ]);
    expect(log.lines).toEqual([
      'warn midi:Test deck: ignored a SysEx message cut off after 3 bytes (no F7) [90 00 64]',
      'warn midi:Test deck: ignored the undefined status byte F4 [F4]',
      'warn midi:Test deck: ignored the undefined status byte F5 [F5 01]',
      'warn midi:Test deck: ignored data bytes without a status byte [40 40]',
      'warn midi:Test deck: ignored a truncated message (2 of 3 bytes) [90 00]',
      'warn midi:Test deck: ignored a data byte above 127 [90 00 80]',
      'warn midi:Test deck: ignored an end of SysEx (F7) without its start [F7]',
      'warn midi:Test deck: ignored a SysEx message with a byte above 127 inside [F0 00 90 F7]',
      'warn midi:Test deck: ignored a SysEx message longer than 4096 bytes [F0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 …]',
      'warn midi:Test deck: ignored a truncated message (2 of 3 bytes) [B0 30]',
    ]);
  });

  it('reassembles a SysEx split in chunks, and says nothing of a valid one', () => {
    const { send, log, inputs } = setup();
    send([0xf0, 0x00, 0x20], [0x29, 0x02], [0x0d, 0xf7]);
    send([0x90, 0, 1]);
    expect(log.lines).toEqual([]);
    expect(inputs).toEqual([{ type: 'down', control: 'pad0' }]);
  });

  it('never hears clock or active sensing (RtMidi drops them)', () => {
    const { send, inputs, log } = setup();
    send([0xf8], [0xfe], [0xf0, 0x00], [0xf8], [0x01, 0xf7]);
    expect(inputs).toEqual([]);
    expect(log.lines).toEqual([]);
  });

  it('keeps a flood of garbage to a few lines', async () => {
    const { send, log, advance } = setup();
    for (let i = 0; i < 8; i++) send([0xf4]);
    expect(log.lines).toHaveLength(5);
    await advance(10_000);
    send([0xf5]);
    expect(log.lines.slice(5)).toEqual(['warn (3 more like that in the last 10 s were not logged)', 'warn midi:Test deck: ignored the undefined status byte F5 [F5]']);
  });

  it('survives whatever a transport hands over: not bytes, values out of range, a throwing log', () => {
    let deliver: (bytes: readonly number[]) => void = () => undefined;
    const input: MidiInputPort = { name: PORT, onMessage: (listener) => (deliver = listener), close: () => undefined };
    const log = recordingLog();
    const surface = new MidiSurface({ time: realTime, map: testMap(), portName: PORT, input, output: null, log });
    const inputs: SurfaceInput[] = [];
    surface.input.subscribe((i) => inputs.push(i));
    expect(() => {
      deliver([0x90, 0, Number.NaN]);
      deliver(['x'] as unknown as number[]);
      deliver(undefined as unknown as number[]);
      deliver([0x90, 0, 9]);
    }).not.toThrow();
    expect(inputs).toEqual([{ type: 'down', control: 'pad0' }]);
    expect(log.lines).toEqual([
      'warn midi:Test deck: ignored not a list of bytes [90 00 NaN]',
      'warn midi:Test deck: ignored not a list of bytes [x]',
      'warn midi:Test deck: ignored not a list of bytes',
    ]);
    const throwing = new MidiSurface({ time: realTime, map: testMap(), portName: PORT, input, output: null, log: { ...log, warn: () => { throw new Error('log down'); } } });
    expect(throwing.id).toBe('midi:Test deck');
    expect(() => deliver([0xf4])).not.toThrow();
  });

});
