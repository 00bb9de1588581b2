// A PNG decoder in plain JS over node:zlib, for the recorder's channel previews (GET
// /api/channels/{index}/preview answers a PNG, Base64 in JSON). The bridge decodes them with sharp, a
// native module; the plugin runs on the Stream Deck app's own Node on Windows and macOS, where no native
// module may be loaded, so it reads them here. Every PNG the format allows is read (bit depths 1–16,
// greyscale, truecolour, palette, with alpha, interlaced or not); what is not a PNG, is cut short, fails a
// chunk's CRC or is larger than a preview can be is refused with an error naming what is wrong, before
// any large allocation (the recorder is on a network this desk does not own).
import { inflateSync } from 'node:zlib';
import { messageOf } from '../api/errors.js';
import type { RgbImage } from '../engine/surface.js';
import { crc32 } from './png-icon.js';

/** No preview is larger than UHD: a bigger one is refused before it is inflated. */
export const MAX_PREVIEW_PIXELS = 3840 * 2160;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Samples per pixel of each colour type the format has. */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Bit depths each colour type allows. */
const DEPTHS: Readonly<Record<number, readonly number[]>> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** Adam7's passes: where each starts and how far apart its pixels are. */
const ADAM7 = [
  { x: 0, y: 0, dx: 8, dy: 8 },
  { x: 4, y: 0, dx: 8, dy: 8 },
  { x: 0, y: 4, dx: 4, dy: 8 },
  { x: 2, y: 0, dx: 4, dy: 4 },
  { x: 0, y: 2, dx: 2, dy: 4 },
  { x: 1, y: 0, dx: 2, dy: 2 },
  { x: 0, y: 1, dx: 1, dy: 2 },
] as const;

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

/** A PNG file as raw RGB (3 bytes a pixel); transparency is laid over black, as the bridge's decode does. */
export function decodePng(bytes: Uint8Array): RgbImage {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (file.length < SIGNATURE.length || !file.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('preview: not a PNG (its first 8 bytes are not the PNG signature)');
  let header: Header | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const data: Buffer[] = [];
  let ended = false;
  for (let at = SIGNATURE.length; !ended; ) {
    if (at + 12 > file.length) throw new Error(`preview: the PNG is cut short at byte ${at} (no IEND chunk)`);
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    if (length > file.length - at - 12) throw new Error(`preview: the PNG's ${type} chunk at byte ${at} claims ${length} bytes, more than the file has`);
    const body = file.subarray(at + 8, at + 8 + length);
    if (crc32(file.subarray(at + 4, at + 8 + length)) !== file.readUInt32BE(at + 8 + length)) throw new Error(`preview: the PNG's ${type} chunk at byte ${at} fails its CRC (damaged)`);
    at += 12 + length;
    if (header === null && type !== 'IHDR') throw new Error(`preview: the PNG starts with a ${type} chunk, not IHDR`);
    if (type === 'IHDR') header = readHeader(body);
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') ended = true;
  }
  const h = header as Header;
  if (data.length === 0) throw new Error('preview: the PNG has no image data (no IDAT chunk)');
  if (h.colourType === 3 && palette === null) throw new Error('preview: the PNG is paletted but has no palette (PLTE chunk)');
  const passes = h.interlaced ? ADAM7.map((p) => ({ ...p, width: Math.ceil((h.width - p.x) / p.dx), height: Math.ceil((h.height - p.y) / p.dy) })) : [{ x: 0, y: 0, dx: 1, dy: 1, width: h.width, height: h.height }];
  const bitsPerPixel = (CHANNELS[h.colourType] as number) * h.depth;
  const rowBytes = (width: number) => Math.ceil((width * bitsPerPixel) / 8);
  const expected = passes.reduce((sum, p) => sum + (p.width === 0 || p.height === 0 ? 0 : (rowBytes(p.width) + 1) * p.height), 0);
  let raw: Buffer;
  try {
    // Bounded by what the header says: a small file that inflates without end is stopped at once.
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 1 });
  } catch (error) {
    throw new Error(`preview: the PNG's image data does not inflate: ${messageOf(error)}`);
  }
  if (raw.length !== expected) throw new Error(`preview: the PNG's image data is ${raw.length} bytes; a ${h.width}x${h.height} image of this kind is ${expected}`);
  const image: RgbImage = { width: h.width, height: h.height, data: Buffer.alloc(h.width * h.height * 3) };
  const colour = colourReader(h, palette, transparency);
  // What a recorder sends (8-bit truecolour, no key colour, not interlaced) is copied row by row.
  const plainRgb = h.colourType === 2 && h.depth === 8 && transparency === null && !h.interlaced;
  let offset = 0;
  for (const pass of passes) {
    if (pass.width === 0 || pass.height === 0) continue;
    const length = rowBytes(pass.width);
    const bytesPerPixel = Math.max(1, bitsPerPixel >> 3);
    let previous: Buffer = Buffer.alloc(length);
    for (let row = 0; row < pass.height; row++) {
      const filter = raw[offset] as number;
      const line = raw.subarray(offset + 1, offset + 1 + length);
      offset += length + 1;
      unfilter(filter, line, previous, bytesPerPixel, row);
      const y = pass.y + row * pass.dy;
      if (plainRgb) line.copy(image.data, y * h.width * 3);
      else for (let column = 0; column < pass.width; column++) colour(line, column, image.data, (y * h.width + pass.x + column * pass.dx) * 3);
      previous = line;
    }
  }
  return image;
}

function readHeader(body: Buffer): Header {
  if (body.length !== 13) throw new Error(`preview: the PNG's IHDR chunk is ${body.length} bytes, not 13`);
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [depth, colourType, compression, filtering, interlace] = [body[8], body[9], body[10], body[11], body[12]] as number[];
  if (width === 0 || height === 0) throw new Error(`preview: the PNG is ${width}x${height}: nothing to show`);
  if (width * height > MAX_PREVIEW_PIXELS) throw new Error(`preview: the PNG is ${width}x${height}, larger than a preview can be (${MAX_PREVIEW_PIXELS} pixels at most)`);
  const depths = DEPTHS[colourType as number];
  if (depths === undefined) throw new Error(`preview: the PNG's colour type ${colourType} is not one PNG has`);
  if (!depths.includes(depth as number)) throw new Error(`preview: the PNG's bit depth ${depth} is not allowed for colour type ${colourType}`);
  if (compression !== 0 || filtering !== 0 || (interlace !== 0 && interlace !== 1)) throw new Error(`preview: the PNG's compression ${compression}, filter method ${filtering} or interlace ${interlace} is not one PNG has`);
  return { width, height, depth: depth as number, colourType: colourType as number, interlaced: interlace === 1 };
}

/** Undoes a row's filter in place (PNG's five: none, sub, up, average, Paeth). */
function unfilter(filter: number, line: Buffer, previous: Buffer, bpp: number, row: number): void {
  const n = line.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) line[i] = ((line[i] as number) + (line[i - bpp] as number)) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i++) line[i] = ((line[i] as number) + (previous[i] as number)) & 0xff;
      return;
    case 3:
      for (let i = 0; i < n; i++) line[i] = ((line[i] as number) + (((i >= bpp ? (line[i - bpp] as number) : 0) + (previous[i] as number)) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? (line[i - bpp] as number) : 0;
        const b = previous[i] as number;
        const c = i >= bpp ? (previous[i - bpp] as number) : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        line[i] = ((line[i] as number) + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new Error(`preview: row ${row} of the PNG has filter type ${filter}, not one PNG has`);
  }
}

/** Reads pixel `column` of an unfiltered row into RGB at `out[at]`, by the image's kind. */
function colourReader(h: Header, palette: Buffer | null, transparency: Buffer | null): (line: Buffer, column: number, out: Buffer, at: number) => void {
  const { depth, colourType } = h;
  const channels = CHANNELS[colourType] as number;
  const max = (1 << depth) - 1;
  /** Sample `index` of the row, scaled to 0..255 (16-bit: in full, rounded only once it is laid over black). */
  const sample = (line: Buffer, index: number): number => {
    if (depth === 8) return line[index] as number;
    if (depth === 16) return line.readUInt16BE(index * 2) / 257;
    const bit = index * depth;
    const value = ((line[bit >> 3] as number) >> (8 - depth - (bit & 7))) & max;
    return colourType === 3 ? value : Math.round((value * 255) / max);
  };
  /** Raw sample value (for a palette index or a tRNS key colour at full depth). */
  const value = (line: Buffer, index: number): number => {
    if (depth === 16) return line.readUInt16BE(index * 2);
    if (depth === 8) return line[index] as number;
    const bit = index * depth;
    return ((line[bit >> 3] as number) >> (8 - depth - (bit & 7))) & max;
  };
  const over = (out: Buffer, at: number, r: number, g: number, b: number, alpha: number): void => {
    out[at] = Math.round((r * alpha) / 255);
    out[at + 1] = Math.round((g * alpha) / 255);
    out[at + 2] = Math.round((b * alpha) / 255);
  };
  switch (colourType) {
    case 3: {
      const entries = (palette as Buffer).length / 3;
      return (line, column, out, at) => {
        const index = value(line, column);
        if (index >= entries) throw new Error(`preview: the PNG uses palette entry ${index}; its palette has ${entries}`);
        const alpha = transparency !== null && index < transparency.length ? (transparency[index] as number) : 255;
        const p = palette as Buffer;
        over(out, at, p[index * 3] as number, p[index * 3 + 1] as number, p[index * 3 + 2] as number, alpha);
      };
    }
    case 0: {
      const key = transparency !== null && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
      return (line, column, out, at) => {
        const grey = sample(line, column);
        over(out, at, grey, grey, grey, value(line, column) === key ? 0 : 255);
      };
    }
    case 2: {
      const key = transparency !== null && transparency.length >= 6 ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)] : null;
      return (line, column, out, at) => {
        const i = column * channels;
        const clear = key !== null && value(line, i) === key[0] && value(line, i + 1) === key[1] && value(line, i + 2) === key[2];
        over(out, at, sample(line, i), sample(line, i + 1), sample(line, i + 2), clear ? 0 : 255);
      };
    }
    case 4:
      return (line, column, out, at) => {
        const grey = sample(line, column * 2);
        over(out, at, grey, grey, grey, sample(line, column * 2 + 1));
      };
    default:
      return (line, column, out, at) => {
        const i = column * 4;
        over(out, at, sample(line, i), sample(line, i + 1), sample(line, i + 2), sample(line, i + 3));
      };
  }
}
