// Key images to the page: a full frame when the page has nothing (or another size), the changed
// rectangle when it has the previous image, nothing when nothing changed; applied as the page applies
// them, the page ends with exactly the new image.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { RgbImage } from '../../src/engine/surface.js';
import { SharedFrames, imageUpdate } from '../../src/remote/image-frames.js';
import { PageModel } from '../support/page-model.js';

/** V8's full collection, made callable at run time (a context made after the flag gets `gc`). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Ends the current job: a WeakRef's target is kept alive until then, whatever the collector does. */
const jobEnd = () => new Promise((resolve) => setImmediate(resolve));

function image(width: number, height: number, paint: (x: number, y: number) => number = () => 40): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.fill(paint(x, y), (y * width + x) * 3, (y * width + x) * 3 + 3);
  return { width, height, data };
}

describe('imageUpdate', () => {
  it('sends the whole image to a page that has none, then only the rectangle that changed', () => {
    const page = new PageModel();
    const before = image(96, 96);
    page.apply(imageUpdate(3, 7, undefined, before) as Buffer);
    // A clock tick: a few pixels in one line of the key.
    const after = image(96, 96, (x, y) => (y >= 70 && y < 80 && x >= 20 && x < 60 && (x + y) % 3 === 0 ? 250 : 40));
    const frame = imageUpdate(3, 7, before, after) as Buffer;
    expect(frame.readUInt16BE(0)).toBe(2);
    expect([6, 8, 10, 12].map((at) => frame.readUInt16BE(at))).toEqual([20, 70, 40, 10]); // x, y, width, height
    expect(frame.length).toBeLessThan(before.data.length / 10);
    page.apply(frame);
    expect(page.image(3, 7)?.data.equals(after.data)).toBe(true);
  });

  it('nothing for an unchanged image; the whole image for a new size or a change everywhere', () => {
    const a = image(72, 72);
    expect(imageUpdate(0, 0, a, image(72, 72))).toBeNull();
    expect((imageUpdate(0, 0, a, image(96, 96)) as Buffer).readUInt16BE(0)).toBe(1);
    expect((imageUpdate(0, 0, a, image(72, 72, () => 90)) as Buffer).readUInt16BE(0)).toBe(1);
  });

  it('a change in the corners gives the rectangle spanning them, and the page ends with the new image', () => {
    const page = new PageModel();
    const a = image(10, 8);
    page.apply(imageUpdate(0, 1, undefined, a) as Buffer);
    const b = image(10, 8, (x, y) => ((x === 1 && y === 2) || (x === 8 && y === 5) ? 200 : 40));
    const frame = imageUpdate(0, 1, a, b) as Buffer;
    expect([6, 8, 10, 12].map((at) => frame.readUInt16BE(at))).toEqual([1, 2, 8, 4]);
    page.apply(frame);
    expect(page.image(0, 1)?.data.equals(b.data)).toBe(true);
  });
});

describe('SharedFrames', () => {
  it('frames a key\'s change once for every page; another base, key or image is framed afresh, each right for its page', () => {
    const frames = new SharedFrames();
    const a = image(20, 10);
    const b = image(20, 10, (x, y) => (x === 3 && y === 4 ? 200 : 40));
    const first = frames.update(0, 2, a, b);
    // The second page gets the very frame the first did: no second diff, no second copy.
    expect(frames.update(0, 2, a, b)).toBe(first);
    expect(first?.equals(imageUpdate(0, 2, a, b) as Buffer)).toBe(true);
    // A page that shows another image of the key (it was sent whole, or a newer one replaced a waiting one).
    const whole = frames.update(0, 2, undefined, b);
    expect(whole?.readUInt16BE(0)).toBe(1);
    const page = new PageModel();
    page.apply(whole as Buffer);
    expect(page.image(0, 2)?.data.equals(b.data)).toBe(true);
    // The same image shown on another key (two keys with one picture share the renderer's image) is that key's frame.
    const other = frames.update(1, 5, a, b) as Buffer;
    expect([other.readUInt16BE(2), other.readUInt16BE(4)]).toEqual([1, 5]);
    expect(frames.update(0, 2, a, a)).toBeNull();
  });

  it("keeps no image a page no longer shows: a key's earlier images are collected while its latest is held", async () => {
    const gc = collector();
    const frames = new SharedFrames();
    // A key whose preview changes: each frame goes from the image the page shows to the next one.
    let shown = image(20, 10, () => 0);
    const firstRef = new WeakRef(shown);
    for (let i = 1; i <= 30; i++) {
      const next = image(20, 10, (x) => (x === i % 20 ? i : 0));
      frames.update(0, 0, shown, next);
      shown = next;
    }
    await jobEnd();
    gc();
    expect(firstRef.deref()).toBeUndefined();
    expect(frames.update(0, 0, undefined, shown)?.readUInt16BE(0)).toBe(1);
  });

  it("lets a scavenge free a key's earlier images and frames: none is kept alive past the young generation", () => {
    // V8's minor collection treats WeakRef targets and WeakMap values as live: images (and frames) held
    // that way were promoted and freed only by a major collection, which their bytes then brought on.
    // Measured by the process's ArrayBuffer bytes (a WeakRef or FinalizationRegistry here would itself
    // keep them alive through a scavenge).
    const gc = collector() as (options?: { type: 'minor' | 'major' }) => void;
    gc({ type: 'major' });
    const frames = new SharedFrames();
    const MB = 1024 * 1024;
    // 1 MB images whose every pixel changes: each frame a whole 1 MB too.
    let shown: RgbImage = { width: 512, height: 683, data: Buffer.alloc(512 * 683 * 3) };
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 1; i <= 24; i++) {
      const next = { width: shown.width, height: shown.height, data: Buffer.alloc(shown.data.length, i) };
      // Two pages: the second gets the first one's frame.
      frames.update(0, 0, shown, next);
      frames.update(0, 0, shown, next);
      shown = next;
    }
    const made = (process.memoryUsage().arrayBuffers - before) / MB;
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    const left = (process.memoryUsage().arrayBuffers - before) / MB;
    // Left: the key's last change (its base, its image, the frame: 3 MB; a few more if a scavenge in the
    // loop promoted what was live then), not the ~48 MB made (all of it, measured, with the weak structures).
    expect(made, 'the images were made (or a collection ran meanwhile)').toBeGreaterThan(10);
    expect(left, `${left.toFixed(1)} MB of ${made.toFixed(1)} MB left after two scavenges`).toBeLessThan(12);
  });

  it('a page that shows nothing gets the whole image; one that shows another base gets its own frame', () => {
    const frames = new SharedFrames();
    const a = image(20, 10);
    const b = image(20, 10, (x, y) => (x === 3 && y === 4 ? 200 : 40));
    expect(frames.update(0, 2, a, b)?.readUInt16BE(0)).toBe(2);
    const whole = frames.update(0, 2, undefined, b) as Buffer;
    expect(whole.readUInt16BE(0)).toBe(1);
    const page = new PageModel();
    page.apply(whole);
    expect(page.image(0, 2)?.data.equals(b.data)).toBe(true);
    // Back to the first page's base: framed afresh from it, right for that page.
    const c = image(20, 10, (x, y) => (x === 9 && y === 1 ? 7 : 40));
    const fromA = frames.update(0, 2, a, b) as Buffer;
    expect(fromA.readUInt16BE(0)).toBe(2);
    const other = new PageModel();
    other.apply(imageUpdate(0, 2, undefined, a) as Buffer);
    other.apply(fromA);
    expect(other.image(0, 2)?.data.equals(b.data)).toBe(true);
    expect(frames.update(0, 2, b, c)?.readUInt16BE(0)).toBe(2);
  });

  it('forgets every key on clear (panels laid out anew), framing afresh after', () => {
    const frames = new SharedFrames();
    const a = image(20, 10);
    const b = image(20, 10, (x) => (x === 5 ? 90 : 40));
    const first = frames.update(1, 1, a, b);
    frames.clear();
    const again = frames.update(1, 1, a, b);
    expect(again).not.toBe(first);
    expect(again?.equals(first as Buffer)).toBe(true);
  });
});
