// The simulated channel preview: a real 640x360 PNG that differs per channel and over time, with a slate
// for a channel without a source, and labels that are really drawn.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PreviewRenderer } from '../../src/simulator/preview.js';

interface Picture {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

async function decode(png: Buffer): Promise<Picture> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function luminance(picture: Picture, x: number, y: number): number {
  const offset = (y * picture.width + x) * picture.channels;
  const [r, g, b] = [picture.data[offset] ?? 0, picture.data[offset + 1] ?? 0, picture.data[offset + 2] ?? 0];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function meanLuminance(picture: Picture): number {
  let sum = 0;
  for (let y = 0; y < picture.height; y++) for (let x = 0; x < picture.width; x++) sum += luminance(picture, x, y);
  return sum / (picture.width * picture.height);
}

/** Pixels in the rectangle brighter than the threshold. */
function brightPixels(picture: Picture, left: number, top: number, right: number, bottom: number, threshold = 128): number {
  let count = 0;
  for (let y = top; y < bottom; y++) for (let x = left; x < right; x++) if (luminance(picture, x, y) > threshold) count++;
  return count;
}

function differingPixels(a: Picture, b: Picture): number {
  let count = 0;
  for (let i = 0; i < a.data.length; i += a.channels) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) count++;
  }
  return count;
}

const PIXELS = 640 * 360;

describe('PreviewRenderer', () => {
  it('renders a 640x360 PNG', async () => {
    const png = await new PreviewRenderer().render({ channelIndex: 0, sourceName: 'Camera 1', timeMs: 0 });
    expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 640, height: 360 });
  });

  it('gives each of 16 channels its own picture', async () => {
    const renderer = new PreviewRenderer();
    const pictures = await Promise.all(
      Array.from({ length: 16 }, async (_, channelIndex) => decode(await renderer.render({ channelIndex, sourceName: 'Camera', timeMs: 0 }))),
    );
    for (let i = 0; i < pictures.length; i++) {
      for (let j = i + 1; j < pictures.length; j++) {
        // More than the label: the bars themselves differ.
        expect(differingPixels(pictures[i]!, pictures[j]!), `channels ${i + 1} and ${j + 1}`).toBeGreaterThan(PIXELS / 10);
      }
    }
  });

  it('moves: the same channel one second later differs, within one 100 ms frame it is the same bytes', async () => {
    const renderer = new PreviewRenderer();
    const input = { channelIndex: 2, sourceName: 'Camera 3' };
    const at1000 = await renderer.render({ ...input, timeMs: 1000 });
    const at2000 = await renderer.render({ ...input, timeMs: 2000 });
    expect(differingPixels(await decode(at1000), await decode(at2000))).toBeGreaterThan(1000);
    const at2050 = await renderer.render({ ...input, timeMs: 2050 });
    expect(at2050.equals(at2000)).toBe(true);
    // A fresh renderer draws the same frame: the picture depends on the time, not on the call history.
    expect((await new PreviewRenderer().render({ ...input, timeMs: 1099 })).equals(at1000)).toBe(true);
  });

  it('shows a dark slate for a channel without a source', async () => {
    const renderer = new PreviewRenderer();
    const slate = await decode(await renderer.render({ channelIndex: 4, sourceName: null, timeMs: 0 }));
    const pattern = await decode(await renderer.render({ channelIndex: 4, sourceName: 'Camera 5', timeMs: 0 }));
    expect(meanLuminance(slate)).toBeLessThan(40);
    expect(meanLuminance(pattern)).toBeGreaterThan(80);
    expect(differingPixels(slate, pattern)).toBeGreaterThan(PIXELS / 2);
  });

  it('draws the channel label and source name in the band under the pattern', async () => {
    const renderer = new PreviewRenderer();
    const picture = async (channelIndex: number, sourceName: string) => decode(await renderer.render({ channelIndex, sourceName, timeMs: 0 }));
    const three = await picture(2, 'Camera');
    // "CH 3" is drawn left in the band (y 284–360), the source name right.
    expect(brightPixels(three, 0, 290, 200, 355)).toBeGreaterThan(300);
    expect(brightPixels(three, 440, 290, 640, 355)).toBeGreaterThan(200);
    // Between them the band is empty, so the text is what lit those pixels.
    expect(brightPixels(three, 260, 290, 400, 355)).toBe(0);
    const otherName = await picture(2, 'Other feed');
    expect(differingPixels(three, otherName)).toBeGreaterThan(0);
  });

  it('labels the slate with the channel number', async () => {
    const renderer = new PreviewRenderer();
    const slate = (channelIndex: number) => renderer.render({ channelIndex, sourceName: null, timeMs: 0 }).then(decode);
    const [four, five] = await Promise.all([slate(3), slate(4)]);
    // The big "CH n" above the rule and "NO SOURCE" under it.
    expect(brightPixels(four, 200, 100, 440, 170)).toBeGreaterThan(500);
    expect(brightPixels(four, 180, 210, 460, 260, 100)).toBeGreaterThan(300);
    expect(differingPixels(four, five)).toBeGreaterThan(100);
  });
});
