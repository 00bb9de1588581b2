// A device's output: each control's newest picture only, and nothing the device already shows, judged
// by content: two pictures that come out as the same pixels (a preview fetched again unchanged) are
// one write. Driven over a real library Stream Deck on a fake HID device.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import type { PictureRenderer } from '../../src/engine/session-services.js';
import { SurfaceOutput } from '../../src/engine/surface-output.js';
import type { PixelSize, RgbImage } from '../../src/engine/surface.js';
import { gen2KeyImages } from '../surfaces/streamdeck/reports.js';
import { fakeSurface } from '../surfaces/streamdeck/helpers.js';

/** Renders every label as a fresh buffer of one colour per text: equal texts, equal pixels, never the same object. */
const renderer: PictureRenderer = {
  async render(picture: Picture, size: PixelSize): Promise<RgbImage> {
    const red = picture.kind === 'label' && picture.text.startsWith('A') ? 200 : 0;
    const data = Buffer.alloc(size.width * size.height * 3);
    for (let i = 0; i < data.length; i += 3) data[i] = red;
    data.fill(255, 0, 3 * size.width); // a white top row, so it is sent as an image, not as a solid colour
    return { width: size.width, height: size.height, data };
  },
  led: () => 'off',
  reasonPages: () => 1,
};
const label = (text: string): Picture => ({ kind: 'label', text, icon: null, color: null, active: null });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('SurfaceOutput', () => {
  it('sends an image only when its pixels differ from what the key shows', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    const output = new SurfaceOutput(surface, renderer, { faderRange: () => null }, silent);
    const drawn = async (picture: Picture) => {
      output.show('key0', picture);
      // The library encodes JPEGs off the main thread: wait for the write to finish (bounded).
      for (const deadline = Date.now() + 5000; !output.idle; ) {
        if (Date.now() > deadline) throw new Error('the output never finished drawing');
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await drawn(label('A one'));
    await drawn(label('A two')); // another picture, the same pixels: not sent
    await drawn(label('B')); // other pixels: sent
    await drawn(label('A three')); // back to the first pixels: sent, the key shows B now
    expect(gen2KeyImages(hid.reportsSince()).map((image) => image.hidIndex)).toEqual([0, 0, 0]);
    expect(output.shownImages().get('key0')?.data.at(-3)).toBe(200);
  });
});
