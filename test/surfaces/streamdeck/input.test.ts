// Input reports built byte for byte as each device sends them (after node-hid strips report id 0x01),
// parsed by the library's own input services, must come out as the right SurfaceInput.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { fakeSurface } from './helpers.js';

/** Gen 2 key report: type 0x00, a length, then one byte per key (by hardware index) from byte 3. */
const gen2Keys = (keyCount: number, pressed: number[]) => [0x00, keyCount, 0x00, ...Array.from({ length: keyCount }, (_, i) => (pressed.includes(i) ? 1 : 0))];
/** Gen 1 key report: one byte per key (by hardware index) from byte 0. */
const gen1Keys = (keyCount: number, pressed: number[]) => Array.from({ length: keyCount }, (_, i) => (pressed.includes(i) ? 1 : 0));
/** Encoder report: type 0x03, a length, 0x00, then 0x00 press / 0x01 rotate, then one byte per encoder. */
const encoders = (kind: 'press' | 'rotate', values: number[]) => [0x03, 0x05, 0x00, kind === 'press' ? 0x00 : 0x01, ...values.map((v) => v & 0xff)];
/** LCD touch report: type 0x02, …, byte 3 = 1 short / 2 long / 3 swipe, x and y (u16 LE) from byte 5, swipe end from byte 9. */
const touch = (kind: 1 | 2 | 3, x: number, y: number, toX = 0, toY = 0) => [0x02, 0x0e, 0x00, kind, 0x00, x & 0xff, x >> 8, y & 0xff, y >> 8, toX & 0xff, toX >> 8, toY & 0xff, toY >> 8];

describe('Stream Deck input', () => {
  it('mk2: a key press and release, by the key index', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    hid.input(gen2Keys(15, [14]));
    hid.input(gen2Keys(15, [14, 3]));
    hid.input(gen2Keys(15, []));
    expect(inputs).toEqual([
      { type: 'down', control: 'key14' },
      { type: 'down', control: 'key3' },
      { type: 'up', control: 'key3' },
      { type: 'up', control: 'key14' },
    ]);
  });

  it('original: the hardware numbers keys right to left; the top-left key is still key0', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.ORIGINAL);
    hid.input(gen1Keys(15, [4])); // hardware index 4 is the top row's leftmost key
    hid.input(gen1Keys(15, []));
    expect(inputs).toEqual([
      { type: 'down', control: 'key0' },
      { type: 'up', control: 'key0' },
    ]);
  });

  it('mini: gen 1 reports', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.MINI);
    hid.input(gen1Keys(6, [5]));
    expect(inputs).toEqual([{ type: 'down', control: 'key5' }]);
  });

  it('xl: the last of 32 keys', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.XL);
    hid.input(gen2Keys(32, [31]));
    expect(inputs).toEqual([{ type: 'down', control: 'key31' }]);
  });

  it('pedal: each pedal by its id', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PEDAL);
    hid.input([0x00, 0x03, 0x00, 0, 1, 0]);
    hid.input([0x00, 0x03, 0x00, 0, 0, 0]);
    expect(inputs).toEqual([
      { type: 'down', control: 'pedal1' },
      { type: 'up', control: 'pedal1' },
    ]);
  });

  it('plus: turning keeps the signed amount (a fast turn is a larger one)', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PLUS);
    hid.input(encoders('rotate', [0, 0, -3, 0]));
    hid.input(encoders('rotate', [1, 0, 0, 5]));
    expect(inputs).toEqual([
      { type: 'rotate', control: 'dial2', amount: -3 },
      { type: 'rotate', control: 'dial0', amount: 1 },
      { type: 'rotate', control: 'dial3', amount: 5 },
    ]);
  });

  it('plus: pressing a dial', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PLUS);
    hid.input(encoders('press', [0, 1, 0, 0]));
    hid.input(encoders('press', [0, 0, 0, 0]));
    expect(inputs).toEqual([
      { type: 'down', control: 'dial1' },
      { type: 'up', control: 'dial1' },
    ]);
  });

  it('plus: keys still arrive as gen 2 key reports', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PLUS);
    hid.input(gen2Keys(8, [6]));
    expect(inputs).toEqual([{ type: 'down', control: 'key6' }]);
  });

  it('plus: touches land on the strip cell under them', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PLUS);
    hid.input(touch(1, 450, 50)); // third cell (400..599)
    hid.input(touch(2, 50, 80)); // first cell
    hid.input(touch(1, 799, 99)); // the last pixel
    expect(inputs).toEqual([
      { type: 'touch', control: 'strip2', gesture: 'tap' },
      { type: 'touch', control: 'strip0', gesture: 'long' },
      { type: 'touch', control: 'strip3', gesture: 'tap' },
    ]);
  });

  it('plus: a swipe belongs to the cell it starts on, and goes the way the finger went', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.PLUS);
    hid.input(touch(3, 700, 50, 500, 50));
    hid.input(touch(3, 210, 40, 390, 60));
    hid.input(touch(3, 300, 10, 300, 90)); // straight down: neither way
    expect(inputs).toEqual([
      { type: 'touch', control: 'strip3', gesture: 'swipe-left' },
      { type: 'touch', control: 'strip1', gesture: 'swipe-right' },
    ]);
  });

  it('neo: the LED touch keys press like keys', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.NEO);
    hid.input(gen2Keys(10, [9]));
    hid.input(gen2Keys(10, [9, 0]));
    expect(inputs).toEqual([
      { type: 'down', control: 'key9' },
      { type: 'down', control: 'key0' },
    ]);
  });

  it('studio: dials turn and press', async () => {
    const { hid, inputs } = await fakeSurface(DeviceModelId.STUDIO);
    hid.input(encoders('rotate', [0, 2]));
    hid.input(encoders('press', [1, 0]));
    expect(inputs).toEqual([
      { type: 'rotate', control: 'dial1', amount: 2 },
      { type: 'down', control: 'dial0' },
    ]);
  });

  it('the input completes when the surface closes', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    let completed = false;
    surface.input.subscribe({ complete: () => (completed = true) });
    await surface.close();
    expect(completed).toBe(true);
    expect(hid.closed).toBe(true);
  });
});
