// The plugin's plain-JS PNG decoder (src/plugin/png-decode.ts), which reads the recorder's channel
// previews where sharp cannot be loaded: every kind of PNG it reads gives the pixels sharp (libvips, the
// bridge's decoder) gives for the same file, and every damaged or hostile file is refused with an error
// naming what is wrong. The PNGs are made by sharp, so the decoder is not checked against itself.
import { deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodePng, MAX_PREVIEW_PIXELS } from '../../src/plugin/png-decode.js';
import { crc32, encodePng } from '../../src/plugin/png-icon.js';
import { PREVIEW_SIZE, previewThumbnail, shrinkToCover } from '../../src/plugin/preview-thumbnail.js';
import { PreviewRenderer } from '../../src/simulator/preview.js';

const WIDTH = 37;
const HEIGHT = 23;

/** RGBA pixels with every value and some transparency: odd sizes, so rows end mid-byte at low depths. */
function pattern(): Buffer {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 4);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 37 + (i >> 5)) & 255;
  return raw;
}

const source = () => sharp(pattern(), { raw: { width: WIDTH, height: HEIGHT, channels: 4 } });

/** What sharp decodes a PNG to, as the bridge takes it: transparency over black, RGB. */
async function sharpRgb(png: Buffer): Promise<Buffer> {
  return sharp(png).flatten({ background: '#000000' }).toColourspace('srgb').removeAlpha().raw().toBuffer();
}

function largestDifference(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs((a[i] as number) - (b[i] as number)));
  return most;
}

/** The colour type (byte 25) and bit depth (24) and interlace (28) a PNG says it is. */
const kindOf = (png: Buffer) => ({ depth: png[24], colourType: png[25], interlaced: png[28] === 1 });

describe('decoding PNG as sharp does', () => {
  const kinds: Array<[string, () => Sharp, { depth: number; colourType: number; interlaced: boolean }, number]> = [
    // [what, how sharp writes it, what the file must be (so the case is what it says), largest difference allowed]
    ['8-bit truecolour (what the recorder sends)', () => source().removeAlpha().png({ compressionLevel: 1, adaptiveFiltering: false }), { depth: 8, colourType: 2, interlaced: false }, 0],
    ['8-bit truecolour, every filter', () => source().removeAlpha().png({ adaptiveFiltering: true }), { depth: 8, colourType: 2, interlaced: false }, 0],
    ['8-bit truecolour with alpha', () => source().png(), { depth: 8, colourType: 6, interlaced: false }, 1],
    ['8-bit greyscale', () => source().removeAlpha().toColourspace('b-w').png(), { depth: 8, colourType: 0, interlaced: false }, 0],
    ['8-bit greyscale with alpha', () => source().toColourspace('b-w').png(), { depth: 8, colourType: 4, interlaced: false }, 1],
    ['4-bit palette', () => source().removeAlpha().png({ palette: true, colours: 16, dither: 0 }), { depth: 4, colourType: 3, interlaced: false }, 0],
    ['1-bit palette', () => source().removeAlpha().png({ palette: true, colours: 2, dither: 0 }), { depth: 1, colourType: 3, interlaced: false }, 0],
    ['8-bit palette with transparency', () => source().png({ palette: true, colours: 200, dither: 0 }), { depth: 8, colourType: 3, interlaced: false }, 1],
    ['interlaced (Adam7) truecolour', () => source().removeAlpha().png({ progressive: true }), { depth: 8, colourType: 2, interlaced: true }, 0],
    ['interlaced palette', () => source().removeAlpha().png({ progressive: true, palette: true, colours: 16, dither: 0 }), { depth: 4, colourType: 3, interlaced: true }, 0],
    ['16-bit truecolour', () => source().removeAlpha().toColourspace('rgb16').png(), { depth: 16, colourType: 2, interlaced: false }, 1],
    ['16-bit truecolour with alpha', () => source().toColourspace('rgb16').png(), { depth: 16, colourType: 6, interlaced: false }, 1],
  ];
  for (const [what, make, kind, tolerance] of kinds) {
    it(what, async () => {
      const png = await make().toBuffer();
      expect(kindOf(png)).toEqual(kind);
      const decoded = decodePng(png);
      expect({ width: decoded.width, height: decoded.height }).toEqual({ width: WIDTH, height: HEIGHT });
      expect(largestDifference(decoded.data, await sharpRgb(png))).toBeLessThanOrEqual(tolerance);
    });
  }

  it('reads a 2-bit greyscale with a key colour (tRNS) that sharp does not write: the key colour is black', () => {
    // 3x1, values 0, 1, 3 of 0..3; value 1 is transparent.
    const png = pngOf({ width: 3, height: 1, depth: 2, colourType: 0 }, Buffer.from([0, 0b00011100]), { tRNS: Buffer.from([0, 1]) });
    expect([...decodePng(png).data]).toEqual([0, 0, 0, 0, 0, 0, 255, 255, 255]);
  });
});

describe('a preview as a key shows it', () => {
  it("the simulated recorder's 640x360 preview shrinks to the tile's body, cropped to cover, as sharp would", async () => {
    const png = await new PreviewRenderer(true).render({ channelIndex: 2, sourceName: 'CAM 3', timeMs: 0 });
    const thumbnail = await previewThumbnail(png);
    expect({ width: thumbnail.width, height: thumbnail.height }).toEqual(PREVIEW_SIZE);
    const bySharp = await sharp(png).resize(PREVIEW_SIZE.width, PREVIEW_SIZE.height, { fit: 'cover', kernel: 'linear' }).removeAlpha().raw().toBuffer();
    // Two box filters of a test pattern's hard edges agree closely on average (edges differ by a pixel's share).
    let sum = 0;
    for (let i = 0; i < bySharp.length; i++) sum += Math.abs((bySharp[i] as number) - (thumbnail.data[i] as number));
    expect(sum / bySharp.length).toBeLessThan(6);
  });

  it('a source smaller than the tile is enlarged to cover it, each pixel the nearest', () => {
    const tiny = { width: 2, height: 1, data: Buffer.from([255, 0, 0, 0, 0, 255]) };
    const cover = shrinkToCover(tiny, { width: 4, height: 2 });
    expect([...cover.data.subarray(0, 12)]).toEqual([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
  });

  it('a preview that is no PNG rejects with the reason (the key keeps its state tile)', async () => {
    await expect(previewThumbnail(Buffer.from('not a picture'))).rejects.toThrow(/not a PNG/);
  });
});

describe('damaged and hostile PNGs are refused, naming what is wrong', () => {
  const good = () => encodePng(4, 3, Buffer.alloc(4 * 3 * 3, 128));

  it('not a PNG', () => {
    expect(() => decodePng(Buffer.from('GIF89a....'))).toThrow('preview: not a PNG (its first 8 bytes are not the PNG signature)');
  });

  it('cut short', () => {
    const png = good();
    expect(() => decodePng(png.subarray(0, png.length - 20))).toThrow(/cut short|claims \d+ bytes, more than the file has/);
  });

  it('a chunk whose CRC fails', () => {
    const png = Buffer.from(good());
    png.writeUInt8((png.readUInt8(png.length - 20) ^ 0xff) & 0xff, png.length - 20); // inside IDAT's data
    expect(() => decodePng(png)).toThrow(/IDAT chunk at byte \d+ fails its CRC/);
  });

  it('larger than a preview can be, refused before anything is inflated', () => {
    const png = pngOf({ width: 20_000, height: 20_000, depth: 8, colourType: 2 }, Buffer.alloc(0));
    expect(() => decodePng(png)).toThrow(`preview: the PNG is 20000x20000, larger than a preview can be (${MAX_PREVIEW_PIXELS} pixels at most)`);
  });

  it('image data that inflates to more than its header says (a small file that would fill the memory)', () => {
    const bomb = pngOf({ width: 4, height: 4, depth: 8, colourType: 2 }, Buffer.alloc(5_000_000));
    expect(bomb.length).toBeLessThan(10_000);
    expect(() => decodePng(bomb)).toThrow(/image data does not inflate/);
  });

  it('image data shorter than its header says', () => {
    expect(() => decodePng(pngOf({ width: 4, height: 4, depth: 8, colourType: 2 }, Buffer.alloc(13 * 3)))).toThrow('preview: the PNG\'s image data is 39 bytes; a 4x4 image of this kind is 52');
  });

  it('a row with a filter type PNG does not have', () => {
    const rows = Buffer.alloc(13 * 4);
    rows[13] = 9;
    expect(() => decodePng(pngOf({ width: 4, height: 4, depth: 8, colourType: 2 }, rows))).toThrow('preview: row 1 of the PNG has filter type 9, not one PNG has');
  });

  it('a bit depth its colour type does not allow', () => {
    expect(() => decodePng(pngOf({ width: 1, height: 1, depth: 4, colourType: 2 }, Buffer.alloc(2)))).toThrow('preview: the PNG\'s bit depth 4 is not allowed for colour type 2');
  });

  it('a palette index beyond its palette', () => {
    const png = pngOf({ width: 1, height: 1, depth: 8, colourType: 3 }, Buffer.from([0, 5]), { PLTE: Buffer.from([1, 2, 3]) });
    expect(() => decodePng(png)).toThrow('preview: the PNG uses palette entry 5; its palette has 1');
  });

  it('paletted without a palette', () => {
    expect(() => decodePng(pngOf({ width: 1, height: 1, depth: 8, colourType: 3 }, Buffer.from([0, 0])))).toThrow('preview: the PNG is paletted but has no palette (PLTE chunk)');
  });
});

/** A PNG made by hand: its header, rows (filter bytes included) deflated, and chunks before the data. */
function pngOf(header: { width: number; height: number; depth: number; colourType: number }, rows: Buffer, before: Record<string, Buffer> = {}): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(header.width, 0);
  ihdr.writeUInt32BE(header.height, 4);
  ihdr.set([header.depth, header.colourType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...Object.entries(before).map(([type, data]) => chunk(type, data)),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
