import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeThumbnail } from '../../src/render/thumbnail.js';

describe('decodeThumbnail', () => {
  it('decodes a PNG to 160x90 raw RGB', async () => {
    const png = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#336699' } }).png().toBuffer();
    const image = await decodeThumbnail(png);
    expect(image.width).toBe(160);
    expect(image.height).toBe(90);
    expect(image.data.length).toBe(160 * 90 * 3);
    expect([...image.data.subarray(0, 3)]).toEqual([0x33, 0x66, 0x99]);
  });

  it('crops to cover: a square image loses its top and bottom', async () => {
    // Red top and blue bottom fifths, grey between: covering 16:9 keeps the middle 56 % of the height.
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="400" height="80" fill="#f00"/><rect y="80" width="400" height="240" fill="#808080"/><rect y="320" width="400" height="80" fill="#00f"/></svg>';
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const image = await decodeThumbnail(png);
    expect([image.width, image.height]).toEqual([160, 90]);
    const top = [...image.data.subarray(0, 3)];
    const bottom = [...image.data.subarray(image.data.length - 3)];
    expect(top).toEqual([128, 128, 128]);
    expect(bottom).toEqual([128, 128, 128]);
  });

  it('greyscale and alpha PNGs still come out as 3-channel RGB', async () => {
    const grey = await sharp({ create: { width: 320, height: 180, channels: 3, background: '#777777' } }).greyscale().png().toBuffer();
    expect((await decodeThumbnail(grey)).data.length).toBe(160 * 90 * 3);
    const alpha = await sharp({ create: { width: 320, height: 180, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer();
    const image = await decodeThumbnail(alpha);
    expect(image.data.length).toBe(160 * 90 * 3);
  });

  it('rejects what is not an image', async () => {
    await expect(decodeThumbnail(new Uint8Array([1, 2, 3]))).rejects.toThrow();
  });
});
