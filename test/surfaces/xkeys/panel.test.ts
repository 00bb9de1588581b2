// One X-keys panel as a surface, through the real xkeys library over a fake panel: its controls in
// reading order, what a press, a jog, a shuttle and a T-bar send, and what each LED state lights.
import { describe, expect, it } from 'vitest';
import { LED_COLOURS } from '../../../src/render/led-colours.js';
import { show } from '../streamdeck/helpers.js';
import { fakePanel } from './helpers.js';

/** The library's backlight report for the LEGACY keypads: [0, 181, LED index, 0 off / 1 on / 2 flashing, 1]. */
const backlight = (led: number, mode: 0 | 1 | 2) => [0, 181, led, mode, 1, 0, 0, 0];

describe('an X-keys panel as a surface', () => {
  it('an XK-24: keys in reading order, named by model and unit id, red/blue backlights', async () => {
    const { surface } = await fakePanel('XK24', 3);
    expect(surface).toMatchObject({ id: 'xkeys:xk-24:3', kind: 'xkeys', model: 'xk-24', name: 'XK-24', serial: '3' });
    expect(surface.controls).toHaveLength(24);
    expect(surface.controls.every((c) => c.kind === 'button' && c.feedback === 'led')).toBe(true);
    // The library counts down the columns (6 keys each); key ids go along the rows (4 keys each).
    expect(surface.layout.keys.get(1)).toBe('key0');
    expect(surface.layout.keys.get(2)).toBe('key4');
    expect(surface.layout.keys.get(7)).toBe('key1');
    expect(surface.layout.keys.get(24)).toBe('key23');
  });

  it('an XK-3 foot pedal: three pedals left to right, no lights', async () => {
    const { surface, hid, inputs, log } = await fakePanel('XK3FOOT');
    expect(surface.model).toBe('xk-3-foot-pedal');
    expect(surface.controls).toEqual([
      { kind: 'button', id: 'key0', feedback: 'none' },
      { kind: 'button', id: 'key1', feedback: 'none' },
      { kind: 'button', id: 'key2', feedback: 'none' },
    ]);
    hid.press(3); // the middle pedal is the library's key 3 (key 1 is no switch)
    hid.release(3);
    expect(inputs).toEqual([
      { type: 'down', control: 'key1' },
      { type: 'up', control: 'key1' },
    ]);
    // It shows nothing: no capability at all. Lighting a pedal, or its brightness, is refused (said once
    // each) and writes nothing; a clear has nothing to blank.
    expect((['images', 'lights', 'levels', 'brightness'] as const).filter((c) => surface.output.offers(c))).toEqual([]);
    const before = hid.writes.length;
    await show(surface, { type: 'led', control: 'key1', state: 'recording' }, { type: 'brightness', percent: 50 }, { type: 'led', control: 'key2', state: 'idle' });
    await surface.output.clear();
    expect(hid.writes.length).toBe(before);
    expect(log.lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      'warn xkeys:xk-3-foot-pedal:0: refused lighting key1: the device has no lights (no "lights" capability; it offers none); further lights for it are refused without a word',
      'warn xkeys:xk-3-foot-pedal:0: refused setting brightness: the device has no brightness (no "brightness" capability; it offers none); further brightness for it are refused without a word',
    ]);
  });

  it('presses arrive as down and up of the key under the finger, in order', async () => {
    const { hid, inputs } = await fakePanel('XK24');
    hid.press(8); // second column, second row: key5
    hid.press(1);
    hid.release(8);
    hid.release(1);
    expect(inputs).toEqual([
      { type: 'down', control: 'key5' },
      { type: 'down', control: 'key0' },
      { type: 'up', control: 'key5' },
      { type: 'up', control: 'key0' },
    ]);
  });

  it('an XK-68 jog-shuttle: the jog turns by its detents, the shuttle is a position with rest in the middle', async () => {
    const { surface, hid, inputs } = await fakePanel('XK68JOGSHUTTLE');
    expect(surface.controls.filter((c) => c.kind !== 'button')).toEqual([
      { kind: 'encoder', id: 'jog', pressable: false, ring: false },
      { kind: 'fader', id: 'shuttle', motorised: false },
    ]);
    // The switch positions under the jog-shuttle wheel are no keys.
    expect(surface.controls.filter((c) => c.kind === 'button')).toHaveLength(80 - 12);
    hid.jog(3);
    hid.jog(-2);
    hid.shuttle(7);
    hid.shuttle(0);
    hid.shuttle(-7);
    expect(inputs).toEqual([
      { type: 'rotate', control: 'jog', amount: 3 },
      { type: 'rotate', control: 'jog', amount: -2 },
      { type: 'fader', control: 'shuttle', position: 1 },
      { type: 'fader', control: 'shuttle', position: 0.5 },
      { type: 'fader', control: 'shuttle', position: 0 },
    ]);
  });

  it('an XKE-124 T-bar: the T-bar is a fader over its travel', async () => {
    const { surface, hid, inputs } = await fakePanel('XKE124TBAR');
    expect(surface.controls).toContainEqual({ kind: 'fader', id: 'tbar', motorised: false });
    hid.tbar(255);
    hid.tbar(51);
    expect(inputs).toEqual([
      { type: 'fader', control: 'tbar', position: 1 },
      { type: 'fader', control: 'tbar', position: 0.2 },
    ]);
  });

  it('each LED state lights the blue and red LEDs as the table says, steady or flashing', async () => {
    const { surface, hid } = await fakePanel('XK24');
    // key0 is the library's key 1: blue LED 0, red LED 0 + 32.
    const lit = async (state: Parameters<typeof surface.output.show>[0] & { type: 'led' }) => {
      const from = hid.writes.length;
      await show(surface, state);
      return hid.writesSince(from);
    };
    expect(await lit({ type: 'led', control: 'key0', state: 'idle' })).toEqual([backlight(0, 1), backlight(32, 0)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'recording' })).toEqual([backlight(0, 0), backlight(32, 1)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'paused' })).toEqual([backlight(0, 2), backlight(32, 2)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'wrong' })).toEqual([backlight(0, 0), backlight(32, 2)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'stale' })).toEqual([backlight(0, 2), backlight(32, 0)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'active' })).toEqual([backlight(0, 1), backlight(32, 1)]);
    expect(await lit({ type: 'led', control: 'key0', state: 'off' })).toEqual([backlight(0, 0), backlight(32, 0)]);
    // key4 is the library's key 2: the LED below key 1's.
    expect(await lit({ type: 'led', control: 'key4', state: 'recording' })).toEqual([backlight(1, 0), backlight(33, 1)]);
    // What the panel shows already is not written again.
    expect(await lit({ type: 'led', control: 'key4', state: 'sync-recording' })).toEqual([backlight(1, 0), backlight(33, 1)]);
    expect(await lit({ type: 'led', control: 'key4', state: 'sync-recording' })).toEqual([]);
  });

  it('an RGB model (XK-24M-RGB) takes the key tiles’ colours, flashing for the same states', async () => {
    const { surface, hid } = await fakePanel('XK24RGB');
    const from = hid.writes.length;
    await show(surface, { type: 'led', control: 'key0', state: 'recording' });
    await show(surface, { type: 'led', control: 'key0', state: 'paused' });
    // The library's RGB report for these keys: [0, 181, LED, green, red, blue, 1 flashing].
    const [r, g, b] = LED_COLOURS.recording;
    const [pr, pg, pb] = LED_COLOURS.paused;
    expect(hid.writesSince(from)).toEqual([
      [0, 181, 0, g, r, b, 0, 0],
      [0, 181, 0, pg, pr, pb, 1, 0],
    ]);
  });

  it('brightness sets both banks’ intensity; a clear darkens every key', async () => {
    const { surface, hid } = await fakePanel('XK24');
    const from = hid.writes.length;
    await show(surface, { type: 'brightness', percent: 40 });
    await surface.output.clear();
    expect(hid.writesSince(from)).toEqual([
      [0, 187, 102, 102, 0, 0, 0, 0],
      [0, 182, 0, 0, 0, 0, 0, 0],
      [0, 182, 1, 0, 0, 0, 0, 0],
    ]);
  });

  it('a failed write closes the surface and tells its owner once', async () => {
    const { surface, hid, failures, log } = await fakePanel('XK24');
    hid.writeError = new Error('could not write to HID device');
    await show(surface, { type: 'led', control: 'key0', state: 'recording' });
    expect(failures).toHaveLength(1);
    expect(surface.isOpen).toBe(false);
    expect(log.lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'xkeys:xk-24:0 (XK-24): device error: could not write to HID device; closed until the device is seen again',
    ]);
    await surface.close();
    expect(hid.closed).toBe(true);
  });
});
