// The one PNG the plugin folder needs (the app's store icon must be PNG; everything else is SVG): a record
// mark drawn and encoded here in plain JS over node:zlib, at build time, so no image library is needed.
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** RGB pixels (3 bytes each, row by row) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter choice, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(rows, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** The record mark: a vermillion disc on the tiles' dark body, edges smoothed by coverage. */
export function recordIconPng(size: number): Buffer {
  const rgb = Buffer.alloc(size * size * 3);
  const centre = size / 2;
  const radius = size * 0.34;
  const body = [0x10, 0x10, 0x10];
  const mark = [0xd5, 0x5e, 0x00];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x + 0.5 - centre, y + 0.5 - centre);
      const cover = Math.min(1, Math.max(0, radius + 0.5 - distance));
      for (let c = 0; c < 3; c++) rgb[(y * size + x) * 3 + c] = Math.round((body[c] as number) * (1 - cover) + (mark[c] as number) * cover);
    }
  }
  return encodePng(size, size, rgb);
}
