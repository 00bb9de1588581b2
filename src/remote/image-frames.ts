// How key images travel to the page: raw RGB (drawn with putImageData, no encoding on either side), and
// only the rectangle that changed when the page already has the key's previous image (a clock tick
// changes one line of a key, a meter its bars). Frames lie end to end in a message; each says its size.
//
//   full:  u16 1, u16 panel, u16 control, u16 width, u16 height, then width*height*3 bytes
//   rect:  u16 2, u16 panel, u16 control, u16 x, u16 y, u16 width, u16 height, then width*height*3 bytes
//          (a part of the image the page already shows, at x, y)
import type { RgbImage } from '../engine/surface.js';

const FULL = 1;
const RECT = 2;

/** The frame that takes a page showing `shown` (nothing when undefined) to `image`; null when they are equal. */
export function imageUpdate(panelIndex: number, controlIndex: number, shown: RgbImage | undefined, image: RgbImage): Buffer | null {
  if (shown === undefined || shown.width !== image.width || shown.height !== image.height) return fullFrame(panelIndex, controlIndex, image);
  const rect = changedRect(shown, image);
  if (rect === null) return null;
  const { x, y, width, height } = rect;
  if (width === image.width && height === image.height) return fullFrame(panelIndex, controlIndex, image);
  const frame = Buffer.allocUnsafe(14 + width * height * 3);
  writeHeader(frame, RECT, panelIndex, controlIndex);
  frame.writeUInt16BE(x, 6);
  frame.writeUInt16BE(y, 8);
  frame.writeUInt16BE(width, 10);
  frame.writeUInt16BE(height, 12);
  const row = image.width * 3;
  for (let r = 0; r < height; r++) image.data.copy(frame, 14 + r * width * 3, (y + r) * row + x * 3, (y + r) * row + (x + width) * 3);
  return frame;
}

/**
 * imageUpdate, worked out once for every page it goes to: each page is framed the same change of a key
 * (what the output showed before, to the image it shows now), so the rectangle diff and its copy are
 * made for the first page and reused by the others.
 *
 * One entry per key, held strongly: the last change framed (its base, its image, the frame), replaced by
 * the key's next change, so a key's earlier images are let go as soon as it moves on. Not weak structures:
 * V8's scavenger treats a WeakRef's target and a WeakMap's values as live, so an image held that way (and
 * its frame) outlived every minor collection until a major one, whatever else held it. Keyed by image
 * with a weak base, every image a page was shown lived to be promoted: the ArrayBuffers that paced the
 * bridge's major collections (docs/performance.md, "Fewer major collections", and the section after it).
 */
export class SharedFrames {
  private readonly byKey = new Map<number, { shown: RgbImage | undefined; image: RgbImage; frame: Buffer | null }>();

  update(panelIndex: number, controlIndex: number, shown: RgbImage | undefined, image: RgbImage): Buffer | null {
    // Panel and control are u16 on the wire: one number names the key.
    const key = panelIndex * 0x10000 + controlIndex;
    const last = this.byKey.get(key);
    if (last !== undefined && last.image === image && last.shown === shown) return last.frame;
    const frame = imageUpdate(panelIndex, controlIndex, shown, image);
    this.byKey.set(key, { shown, image, frame });
    return frame;
  }

  /** Lets go of every key's last change (the pages' panels were laid out anew: a key's index may name another key now). */
  clear(): void {
    this.byKey.clear();
  }
}

function fullFrame(panelIndex: number, controlIndex: number, image: RgbImage): Buffer {
  const frame = Buffer.allocUnsafe(10 + image.data.length);
  writeHeader(frame, FULL, panelIndex, controlIndex);
  frame.writeUInt16BE(image.width, 6);
  frame.writeUInt16BE(image.height, 8);
  image.data.copy(frame, 10);
  return frame;
}

/**
 * A frame's first three fields, its kind and which key it is for, written one by one: frames are made
 * for every key change on every page, and a list of the fields walked with forEach was an array and a
 * closure each time.
 */
function writeHeader(frame: Buffer, kind: number, panelIndex: number, controlIndex: number): void {
  frame.writeUInt16BE(kind, 0);
  frame.writeUInt16BE(panelIndex, 2);
  frame.writeUInt16BE(controlIndex, 4);
}

/** The smallest rectangle holding every pixel that differs, or null when none does (same size images). */
function changedRect(a: RgbImage, b: RgbImage): { x: number; y: number; width: number; height: number } | null {
  const row = a.width * 3;
  let top = 0;
  while (top < a.height && !rowDiffers(a, b, top)) top++;
  if (top === a.height) return null;
  let bottom = a.height - 1;
  while (!rowDiffers(a, b, bottom)) bottom--;
  let left = a.width;
  let right = -1;
  for (let r = top; r <= bottom; r++) {
    const start = r * row;
    for (let x = 0; x < left; x++) {
      const i = start + x * 3;
      if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) {
        left = x;
        break;
      }
    }
    for (let x = a.width - 1; x > right; x--) {
      const i = start + x * 3;
      if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) {
        right = x;
        break;
      }
    }
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/** Whether row `r` of two images of one size differs (a memcmp). */
function rowDiffers(a: RgbImage, b: RgbImage, r: number): boolean {
  const row = a.width * 3;
  return a.data.compare(b.data, r * row, (r + 1) * row, r * row, (r + 1) * row) !== 0;
}
