// Reading back what the library sent: HID output reports reassembled into the images they carry, in
// each generation's framing (see the core's services/imageWriter/headerGenerator), then decoded.
import jpegTurbo from '@julusian/jpeg-turbo';
import type { RgbImage } from '../../../src/engine/surface.js';

export interface DecodedImage {
  width: number;
  height: number;
  /** RGB, row by row, top row first, as the picture stands in the file. */
  data: Buffer;
}

const u16 = (report: Uint8Array, at: number) => (report[at] as number) | ((report[at + 1] as number) << 8);

/** Gen 2 key images (0x02 0x07): [key, last, length u16, part u16], payload from byte 8. */
export function gen2KeyImages(reports: readonly Uint8Array[]): Array<{ hidIndex: number; jpeg: Buffer }> {
  return assemble(reports, (r) => (r[0] === 0x02 && r[1] === 0x07 ? { key: `${r[2]}`, part: u16(r, 6), last: r[3] === 1, payload: r.subarray(8, 8 + u16(r, 4)) } : null)).map(({ key, bytes }) => ({ hidIndex: Number(key), jpeg: bytes }));
}

/** Gen 1 key images (0x02 0x01): [part, 0, last, key + 1], BMP payload from byte 16, padded to the report's end. */
export function gen1KeyImages(reports: readonly Uint8Array[]): Array<{ hidIndex: number; bmp: Buffer }> {
  return assemble(reports, (r) => (r[0] === 0x02 && r[1] === 0x01 ? { key: `${(r[5] as number) - 1}`, part: r[2] as number, last: r[4] === 1, payload: r.subarray(16) } : null)).map(({ key, bytes }) => {
    const fileSize = bytes.readUInt32LE(2); // the padding after the BMP is not part of it
    return { hidIndex: Number(key), bmp: bytes.subarray(0, fileSize) };
  });
}

/** LCD strip regions (0x02 0x0c): [x, y, width, height u16, last, part u16, length u16], payload from byte 16. */
export function lcdRegionImages(reports: readonly Uint8Array[]): Array<{ x: number; y: number; width: number; height: number; jpeg: Buffer }> {
  const regions = new Map<string, { x: number; y: number; width: number; height: number }>();
  const images = assemble(reports, (r) => {
    if (r[0] !== 0x02 || r[1] !== 0x0c) return null;
    const region = { x: u16(r, 2), y: u16(r, 4), width: u16(r, 6), height: u16(r, 8) };
    const key = JSON.stringify(region);
    regions.set(key, region);
    return { key, part: u16(r, 11), last: r[10] === 1, payload: r.subarray(16, 16 + u16(r, 13)) };
  });
  return images.map(({ key, bytes }) => ({ ...(regions.get(key) as { x: number; y: number; width: number; height: number }), jpeg: bytes }));
}

/** The Neo's info bar (0x02 0x0b): [0, last, length u16, part u16], payload from byte 8. */
export function neoLcdImages(reports: readonly Uint8Array[]): Buffer[] {
  return assemble(reports, (r) => (r[0] === 0x02 && r[1] === 0x0b ? { key: 'bar', part: u16(r, 6), last: r[3] === 1, payload: r.subarray(8, 8 + u16(r, 4)) } : null)).map(({ bytes }) => bytes);
}

type Piece = { key: string; part: number; last: boolean; payload: Uint8Array };

/** Joins the payloads of each image's reports, in part order, closing an image at its last report. */
function assemble(reports: readonly Uint8Array[], read: (report: Uint8Array) => Piece | null): Array<{ key: string; bytes: Buffer }> {
  const open = new Map<string, Piece[]>();
  const done: Array<{ key: string; bytes: Buffer }> = [];
  for (const report of reports) {
    const piece = read(report);
    if (!piece) continue;
    const pieces = open.get(piece.key) ?? [];
    pieces.push(piece);
    open.set(piece.key, pieces);
    if (piece.last) {
      open.delete(piece.key);
      pieces.sort((a, b) => a.part - b.part);
      done.push({ key: piece.key, bytes: Buffer.concat(pieces.map((p) => p.payload)) });
    }
  }
  return done;
}

export function decodeJpeg(jpeg: Buffer): DecodedImage {
  const { data, width, height } = jpegTurbo.decompressSync(jpeg, { format: jpegTurbo.FORMAT_RGB });
  return { width, height, data };
}

/** A 24-bit BMP as the picture stands: rows bottom-up in the file when the height is positive, BGR. */
export function decodeBmp(bmp: Buffer): DecodedImage {
  const offset = bmp.readUInt32LE(10);
  const width = bmp.readInt32LE(18);
  const storedHeight = bmp.readInt32LE(22);
  const height = Math.abs(storedHeight);
  const stride = Math.ceil((width * 3) / 4) * 4;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const row = offset + (storedHeight > 0 ? height - 1 - y : y) * stride;
    for (let x = 0; x < width; x++) {
      data[(y * width + x) * 3] = bmp[row + x * 3 + 2] as number;
      data[(y * width + x) * 3 + 1] = bmp[row + x * 3 + 1] as number;
      data[(y * width + x) * 3 + 2] = bmp[row + x * 3] as number;
    }
  }
  return { width, height, data };
}

export type Rgb = [number, number, number];

export function pixelOf(image: DecodedImage | RgbImage, x: number, y: number): Rgb {
  const at = (y * image.width + x) * 3;
  return [image.data[at] as number, image.data[at + 1] as number, image.data[at + 2] as number];
}

/** Close to a colour, allowing for JPEG's losses. */
export function near(actual: Rgb, expected: Rgb, tolerance = 40): boolean {
  return actual.every((c, i) => Math.abs(c - (expected[i] as number)) <= tolerance);
}

/** A solid image with a square mark in one corner, so flips and rotations show where the corner went. */
export function markedImage(width: number, height: number, colour: Rgb, corner: 'top-left' | 'top-right' = 'top-left', mark: Rgb = [255, 255, 255]): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  const size = Math.max(8, Math.floor(Math.min(width, height) / 4));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inMark = y < size && (corner === 'top-left' ? x < size : x >= width - size);
      data.set(inMark ? mark : colour, (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

export function solidImage(width: number, height: number, colour: Rgb): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) data.set(colour, i * 3);
  return { width, height, data };
}

/** Which corner of a decoded image carries the mark colour. */
export function markedCorner(image: DecodedImage, mark: Rgb = [255, 255, 255]): string | null {
  const inset = Math.max(2, Math.floor(Math.min(image.width, image.height) / 8));
  const corners: Array<[string, number, number]> = [
    ['top-left', inset, inset],
    ['top-right', image.width - 1 - inset, inset],
    ['bottom-left', inset, image.height - 1 - inset],
    ['bottom-right', image.width - 1 - inset, image.height - 1 - inset],
  ];
  const found = corners.filter(([, x, y]) => near(pixelOf(image, x, y), mark));
  return found.length === 1 ? (found[0] as [string, number, number])[0] : null;
}
