// One device's output: what it is asked to show goes through one writer, the newest content of each
// control only, and nothing the device shows already (by content) is written again. Mirrors that read
// `shown()` and follow `drawn$` from the same moment hold what the device shows, every control of it. The
// transport is a fake device whose writes the test lets through one at a time; time is virtual.
import { describe, expect, it } from 'vitest';
import { DeviceOutput, imageItem, type DeviceTransport, type EncodedImage, type OutputItem } from '../../src/engine/device-output.js';
import type { LedState, RgbImage } from '../../src/engine/surface.js';
import { VirtualTime } from '../support/virtual-time.js';

/** A 4x4 image of one colour, always a new buffer: equal colours are equal content, never the same object. */
const image = (red: number): RgbImage => ({ width: 4, height: 4, data: Buffer.alloc(48, red) });
/** A 4x4 SVG picture of this text, always a new buffer. */
const svg = (text: string): EncodedImage => ({ encoding: 'svg', width: 4, height: 4, data: Buffer.from(text, 'utf8') });

/** What a fake device was told, and shows: writes wait at a gate while it is shut. */
class FakeDevice implements Required<DeviceTransport> {
  readonly writes: string[] = [];
  readonly shows = new Map<string, string>();
  inFlight = 0;
  mostInFlight = 0;
  failNext: Error | null = null;
  private gate: Promise<void> | null = null;
  private openGate: () => void = () => undefined;

  shut(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  open(): void {
    this.gate = null;
    this.openGate();
  }

  images = {
    image: (control: string, picture: RgbImage) => this.write(control, `image ${picture.data[0]}`),
    // It draws SVG pictures itself too (as the Stream Deck app does), and no PNG or JPEG.
    encoded: { encodings: ['svg'] as const, draw: (control: string, picture: EncodedImage) => this.write(control, `${picture.encoding} ${picture.data.toString('utf8')}`) },
  };
  lights = { led: (control: string, state: LedState) => this.write(control, `led ${state}`) };
  levels = {
    level: (control: string, level: number) => this.write(control, `level ${level}`),
    /** Like a ring of 10 segments. */
    levelShown: (_control: string, level: number) => Math.round(level * 10),
  };
  brightness = { brightness: (percent: number) => this.write('brightness', `${percent}`) };
  clearing = {
    clear: async () => {
      this.writes.push('clear');
      this.shows.clear();
    },
  };

  private async write(slot: string, what: string): Promise<void> {
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    try {
      await this.gate;
      const failure = this.failNext;
      this.failNext = null;
      if (failure) throw failure;
      this.writes.push(`${slot}: ${what}`);
      this.shows.set(slot, what);
    } finally {
      this.inFlight--;
    }
  }
}

function setup(lacking: ReadonlyArray<keyof DeviceTransport> = []) {
  const device = new FakeDevice();
  const time = new VirtualTime();
  const warnings: string[] = [];
  // The fake offers every capability; a device that lacks some is the fake without them.
  const transport: DeviceTransport = { images: device.images, lights: device.lights, levels: device.levels, brightness: device.brightness, clearing: device.clearing };
  for (const capability of lacking) delete (transport as Record<keyof DeviceTransport, unknown>)[capability];
  const output = new DeviceOutput(transport, { name: 'test:deck', log: { info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) }, time });
  return { device, output, time, warnings };
}

/** A mirror as a page is one: what `shown()` says at the start, then every change on `drawn$`. */
function mirror(output: DeviceOutput): Map<string, string> {
  const held = new Map<string, string>();
  const take = (item: OutputItem) => {
    if (item.type === 'image') held.set(item.control, `image ${item.image.data[0]}`);
    else if (item.type === 'led') held.set(item.control, `led ${item.state}`);
    else if (item.type === 'level') held.set(item.control, `level ${item.level}`);
    else if (item.type === 'encoded') held.set(item.control, `${item.image.encoding} ${item.image.data.toString('utf8')}`);
    else held.set('brightness', `${item.percent}`);
  };
  const shown = output.shown();
  for (const [control, picture] of shown.images) take({ type: 'image', control, image: picture });
  for (const [control, picture] of shown.encoded) take({ type: 'encoded', control, image: picture });
  for (const [control, state] of shown.leds) take({ type: 'led', control, state });
  for (const [control, level] of shown.levels) take({ type: 'level', control, level });
  if (shown.brightness !== null) take({ type: 'brightness', percent: shown.brightness });
  output.drawn$.subscribe(take);
  return held;
}

describe('DeviceOutput', () => {
  it('writes only what the device does not show, compared by content and as the device shows it', async () => {
    const { device, output } = setup();
    const show = async (item: OutputItem) => {
      output.show(item);
      await output.flushed();
    };
    await show({ type: 'image', control: 'key0', image: image(200) });
    await show({ type: 'image', control: 'key0', image: image(200) }); // other buffer, the same pixels
    await show({ type: 'image', control: 'key0', image: image(10) });
    await show({ type: 'image', control: 'key0', image: image(200) }); // back to the first: the key shows 10 now
    await show({ type: 'led', control: 'pad0', state: 'recording' });
    await show({ type: 'led', control: 'pad0', state: 'recording' });
    await show({ type: 'level', control: 'dial0', level: 0.5 });
    await show({ type: 'level', control: 'dial0', level: 0.52 }); // still 5 of 10 segments
    await show({ type: 'level', control: 'dial0', level: 0.6 });
    await show({ type: 'brightness', percent: 70.4 });
    await show({ type: 'brightness', percent: 70 }); // rounded: the same
    await show({ type: 'brightness', percent: 140 }); // clamped
    expect(device.writes).toEqual(['key0: image 200', 'key0: image 10', 'key0: image 200', 'pad0: led recording', 'dial0: level 0.5', 'dial0: level 0.6', 'brightness: 70', 'brightness: 100']);
  });

  it('one writer: writes never overlap, the newest content of a control replaces what waits, in its place in line', async () => {
    const { device, output } = setup();
    device.shut();
    output.show({ type: 'image', control: 'key0', image: image(1) }); // under way
    output.show({ type: 'image', control: 'key1', image: image(2) });
    output.show({ type: 'image', control: 'key0', image: image(3) });
    output.show({ type: 'brightness', percent: 50 });
    output.show({ type: 'image', control: 'key0', image: image(4) }); // replaces 3, where 3 stood
    output.show({ type: 'image', control: 'key1', image: image(5) }); // replaces 2
    expect(output.idle).toBe(false);
    device.open();
    await output.flushed();
    expect(device.writes).toEqual(['key0: image 1', 'key1: image 5', 'key0: image 4', 'brightness: 50']);
    expect(device.mostInFlight).toBe(1);
    expect(output.idle).toBe(true);
  });

  it('a mirror that starts late holds what the device shows, every key: a write under way reaches it when done, content the device shows already is not sent again', async () => {
    const { device, output } = setup();
    output.show({ type: 'image', control: 'key0', image: image(7) });
    output.show({ type: 'image', control: 'key1', image: image(8) });
    await output.flushed();

    device.shut();
    output.show({ type: 'image', control: 'key1', image: image(9) }); // under way when the mirror starts
    output.show({ type: 'image', control: 'key0', image: image(20) });
    output.show({ type: 'image', control: 'key0', image: image(7) }); // a newer picture, the same pixels as shown
    output.show({ type: 'image', control: 'key2', image: image(30) }); // never drawn before: waiting
    const page = mirror(output);
    expect([...page]).toEqual([
      ['key0', 'image 7'],
      ['key1', 'image 8'],
    ]);
    device.open();
    await output.flushed();
    expect(device.writes.slice(2)).toEqual(['key1: image 9', 'key2: image 30']);
    expect(page).toEqual(device.shows);
  });

  it('a write that fails leaves the control unknown: the next content is written, even the one that failed', async () => {
    const { device, output, warnings } = setup();
    device.failNext = new Error('cable pulled');
    output.show({ type: 'image', control: 'key0', image: image(1) });
    await output.flushed();
    expect(warnings).toEqual(['test:deck: drawing key0 failed: cable pulled']);
    expect(output.shown().images.size).toBe(0);
    output.show({ type: 'image', control: 'key0', image: image(1) });
    await output.flushed();
    expect(device.writes).toEqual(['key0: image 1']);
  });

  it('clear: what waited is dropped, the device is blanked after the write under way, then every control is unknown', async () => {
    const { device, output } = setup();
    output.show({ type: 'led', control: 'pad0', state: 'recording' });
    await output.flushed();
    device.shut();
    output.show({ type: 'led', control: 'pad1', state: 'idle' }); // under way
    output.show({ type: 'led', control: 'pad2', state: 'idle' }); // waiting: dropped
    const cleared = output.clear();
    output.show({ type: 'led', control: 'pad0', state: 'recording' }); // asked for after the clear: written after it
    device.open();
    await cleared;
    await output.flushed();
    expect(device.writes).toEqual(['pad0: led recording', 'pad1: led idle', 'clear', 'pad0: led recording']);
  });

  it('a hand on a control: it shows where the hand left it, no level is written while the hand is on it, then the newest if the device shows another', async () => {
    const { device, output, time } = setup();
    const page = mirror(output);
    output.show({ type: 'level', control: 'fader0', level: 0.5 });
    await output.flushed();
    output.handOn('fader0', 0.2, 500);
    expect(page.get('fader0')).toBe('level 0.2');
    output.show({ type: 'level', control: 'fader0', level: 0.3 });
    output.show({ type: 'level', control: 'fader0', level: 0.5 }); // the gain did not follow the hand
    await output.flushed(); // waiting for time, not for the device
    expect(device.writes).toEqual(['fader0: level 0.5']);
    time.advanceTo(time.now() + 499);
    await output.flushed();
    expect(device.writes).toHaveLength(1);
    time.advanceTo(time.now() + 1);
    await output.flushed();
    expect(device.writes).toEqual(['fader0: level 0.5', 'fader0: level 0.5']);

    // The hand takes it to 0.2 and the gain follows: nothing to write.
    output.handOn('fader0', 0.2, 500);
    output.show({ type: 'level', control: 'fader0', level: 0.21 });
    time.advanceTo(time.now() + 500);
    await output.flushed();
    expect(device.writes).toHaveLength(2);
    // Where the hand leaves a control unknown, the next level is written whatever it is.
    output.handOn('fader0', null, 500);
    output.show({ type: 'level', control: 'fader0', level: 0.21 });
    time.advanceTo(time.now() + 500);
    await output.flushed();
    expect(device.writes.at(-1)).toBe('fader0: level 0.21');
  });

  it('close: what waits is dropped, the write under way ends first, drawn$ completes', async () => {
    const { device, output } = setup();
    let completed = false;
    output.drawn$.subscribe({ complete: () => (completed = true) });
    device.shut();
    output.show({ type: 'led', control: 'pad0', state: 'idle' });
    output.show({ type: 'led', control: 'pad1', state: 'idle' });
    let closed = false;
    const closing = output.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    device.open();
    await closing;
    output.show({ type: 'led', control: 'pad2', state: 'idle' });
    await output.flushed();
    expect(device.writes).toEqual(['pad0: led idle']);
    expect(completed).toBe(true);
  });

  it('a capability the device lacks is refused: logged once naming the device and the capability, nothing written, nothing else disturbed', async () => {
    const { device, output, warnings } = setup(['images', 'brightness']);
    const page = mirror(output);
    output.show({ type: 'led', control: 'pad0', state: 'recording' });
    expect(output.offers('images')).toBe(false);
    expect(output.offers('lights')).toBe(true);
    expect(() => output.show({ type: 'image', control: 'key0', image: image(1) })).not.toThrow();
    output.show({ type: 'image', control: 'key1', image: image(2) }); // the same capability: not said again
    output.show({ type: 'brightness', percent: 50 });
    output.show({ type: 'brightness', percent: 60 });
    output.show({ type: 'level', control: 'dial0', level: 0.5 });
    await output.flushed();
    expect(warnings).toEqual([
      'test:deck: refused drawing key0: the device has no displays (no "images" capability; it offers lights, levels); further images for it are refused without a word',
      'test:deck: refused setting brightness: the device has no brightness (no "brightness" capability; it offers lights, levels); further brightness for it are refused without a word',
    ]);
    expect(device.writes).toEqual(['pad0: led recording', 'dial0: level 0.5']);
    expect(output.shown().images.size).toBe(0);
    expect(output.shown().brightness).toBe(null);
    expect(page).toEqual(device.shows);
    expect(output.idle).toBe(true);
  });

  it('a device with no capabilities (a pedal): everything is refused, a clear writes nothing and resolves', async () => {
    const { device, output, warnings } = setup(['images', 'lights', 'levels', 'brightness', 'clearing']);
    output.show({ type: 'led', control: 'pad0', state: 'idle' });
    output.show({ type: 'level', control: 'fader0', level: 0.5 });
    await output.clear();
    await output.flushed();
    expect(device.writes).toEqual([]);
    expect(warnings.map((w) => w.split(':')[2]?.trim())).toEqual(['refused lighting pad0', 'refused setting the level of fader0']);
    expect(warnings[0]).toContain('it offers none');
  });

  describe('encoded pictures, an image kind of their own', () => {
    it('are written through the displays\' encoded capability, compared by content: the same document is not written again', async () => {
      const { device, output } = setup();
      const show = async (item: OutputItem) => {
        output.show(item);
        await output.flushed();
      };
      await show({ type: 'encoded', control: 'key0', image: svg('<svg>a</svg>') });
      await show({ type: 'encoded', control: 'key0', image: svg('<svg>a</svg>') }); // another buffer, the same document
      await show({ type: 'encoded', control: 'key0', image: svg('<svg>b</svg>') });
      await show({ type: 'encoded', control: 'key0', image: { ...svg('<svg>b</svg>'), width: 8 } }); // drawn for another size
      expect(device.writes).toEqual(['key0: svg <svg>a</svg>', 'key0: svg <svg>b</svg>', 'key0: svg <svg>b</svg>']);
      expect([...output.shown().encoded.keys()]).toEqual(['key0']);
      expect(output.shown().images.size).toBe(0);
    });

    it('a display shows one picture, raw or encoded: they take one place in line, the newest wins, and one replaces the other', async () => {
      const { device, output } = setup();
      const page = mirror(output);
      device.shut();
      output.show({ type: 'led', control: 'pad0', state: 'idle' }); // under way
      output.show({ type: 'encoded', control: 'key0', image: svg('<svg>old</svg>') });
      output.show({ type: 'image', control: 'key0', image: image(5) }); // replaces the SVG waiting
      device.open();
      await output.flushed();
      output.show({ type: 'encoded', control: 'key0', image: svg('<svg>new</svg>') });
      await output.flushed();
      output.show({ type: 'image', control: 'key0', image: image(5) }); // the device shows the SVG now: written
      await output.flushed();
      expect(device.writes).toEqual(['pad0: led idle', 'key0: image 5', 'key0: svg <svg>new</svg>', 'key0: image 5']);
      expect(output.shown().encoded.size).toBe(0);
      expect(output.shown().images.get('key0')?.data[0]).toBe(5);
      expect(page).toEqual(device.shows);
    });

    it('imageItem makes the item of an image\'s kind, so a renderer\'s image needs no cast', () => {
      expect(imageItem('key0', svg('<svg/>')).type).toBe('encoded');
      expect(imageItem('key0', image(1)).type).toBe('image');
    });

    it('a kind of image the displays do not take is refused: logged once per kind naming what they take, nothing written, nothing else disturbed', async () => {
      const device = new FakeDevice();
      const warnings: string[] = [];
      // An SVG-only device, as the Stream Deck app's transport is one (it takes no raw pixels).
      const transport: DeviceTransport = { images: { encoded: device.images.encoded }, lights: device.lights };
      const output = new DeviceOutput(transport, { name: 'test:app', log: { info: () => undefined, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) }, time: new VirtualTime() });
      expect([output.takes('rgb'), output.takes('svg'), output.takes('png'), output.offers('images')]).toEqual([false, true, false, true]);
      output.show({ type: 'image', control: 'key0', image: image(1) });
      output.show({ type: 'image', control: 'key1', image: image(2) });
      output.show({ type: 'encoded', control: 'key2', image: { encoding: 'png', width: 4, height: 4, data: Buffer.from([0x89]) } });
      output.show({ type: 'encoded', control: 'key0', image: svg('<svg>ok</svg>') });
      output.show({ type: 'led', control: 'pad0', state: 'recording' });
      await output.flushed();
      expect(warnings).toEqual([
        'test:app: refused drawing key0: its displays take no raw pixels (they take svg); further rgb images for it are refused without a word',
        'test:app: refused drawing key2 (png): its displays take no PNG pictures (they take svg); further png images for it are refused without a word',
      ]);
      expect(device.writes).toEqual(['key0: svg <svg>ok</svg>', 'pad0: led recording']);
      expect(output.idle).toBe(true);
    });
  });
});
