// The pictures that tell an operator how to use a key and what went wrong (issue 13): gesture marks and
// the HOLD hint, sync start/pause keys, a paused sync take, a fault while recording, a failure's reason,
// names cut in the middle, the grid key and legible dialog text. Each test saves a sheet of what it drew
// (RECDECK_SCREENSHOTS=test/screenshots to refresh the committed ones: test/screenshots/keys-*.png).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { DialogPicture, Picture, SyncPicture } from '../../src/engine/picture.js';
import type { RgbImage } from '../../src/engine/surface.js';
import { truncateMiddle } from '../../src/render/font.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';
import { CHANNEL_LOOKS, FLASH, GESTURE_MARK, HOLD_HINT, LABEL, WARNING } from '../../src/render/palette.js';
import { legibleDialogSize } from '../../src/render/tiles/dialog.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { channel, recording } from './fixtures.js';
import { differingPixels, isColour, pixel } from './pixels.js';

const KEY = { width: 96, height: 96 };
const SMALL = { width: 72, height: 72 };
const renderer = new KeyRenderer();
const draw = (picture: Picture, size: { width: number; height: number } = KEY) => renderer.render(picture, size);

/** The images side by side on a grey sheet, as a PNG for people to look at. */
async function saveSheet(name: string, images: RgbImage[]): Promise<void> {
  const folder = process.env.RECDECK_SCREENSHOTS ?? join(tmpdir(), 'recdeck-keys');
  mkdirSync(folder, { recursive: true });
  const gap = 8;
  const width = images.reduce((sum, image) => sum + image.width + gap, gap);
  const height = Math.max(...images.map((image) => image.height)) + 2 * gap;
  let left = gap;
  const composite = images.map((image) => {
    const placed = { input: image.data, raw: { width: image.width, height: image.height, channels: 3 as const }, left, top: gap };
    left += image.width + gap;
    return placed;
  });
  await sharp({ create: { width, height, channels: 3, background: '#505050' } }).composite(composite).png().toFile(join(folder, `keys-${name}.png`));
}

/** Pixels within the rect near the colour. */
function countNear(image: RgbImage, hex: string, rect = { x: 0, y: 0, width: image.width, height: image.height }, tolerance = 24): number {
  let count = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) for (let x = rect.x; x < rect.x + rect.width; x++) if (isColour(image, x, y, hex, tolerance)) count++;
  return count;
}

describe('keys carry their gesture', () => {
  it('a hold key has a sky-blue corner, a double-press key two white dots, a plain key neither', async () => {
    const plain = await draw(recording());
    const hold = await draw({ ...recording(), overlay: { gesture: 'hold' } });
    const double = await draw({ ...recording(), overlay: { gesture: 'double' } });
    const label = await draw({ kind: 'label', text: 'NEW SESSION', icon: 'new', color: null, active: null, overlay: { gesture: 'hold' } });
    await saveSheet('gesture-marks', [plain, hold, double, label]);
    const corner = { x: 80, y: 80, width: 16, height: 16 };
    expect(countNear(plain, GESTURE_MARK.hold, corner, 8)).toBe(0);
    expect(countNear(hold, GESTURE_MARK.hold, corner, 8)).toBeGreaterThan(40);
    expect(isColour(hold, 95, 95, GESTURE_MARK.hold)).toBe(true);
    expect(isColour(label, 95, 95, GESTURE_MARK.hold)).toBe(true);
    expect(countNear(double, GESTURE_MARK.double, corner, 8) - countNear(plain, GESTURE_MARK.double, corner, 8)).toBeGreaterThan(30);
    // The rest of the key is untouched.
    expect(differingPixels(plain, hold, { x: 0, y: 0, width: 96, height: 78 })).toBe(0);
  });

  it('a tap that wanted a hold shows HOLD on the key; a double press shows AGAIN?', async () => {
    const base: Picture = { kind: 'label', text: 'GRID 9', icon: 'grid', color: null, active: null };
    const plain = await draw({ ...base, overlay: { gesture: 'hold' } });
    const hint = await draw({ ...base, overlay: { gesture: 'hold', hint: 'hold' } });
    const again = await draw({ ...base, overlay: { gesture: 'double', armed: true } });
    await saveSheet('hold-hint', [plain, hint, again]);
    // The box spans the key's middle in the hint colour, with the word drawn in it.
    expect(isColour(hint, 1, 48, HOLD_HINT.box)).toBe(true);
    expect(countNear(hint, HOLD_HINT.ink, { x: 10, y: 36, width: 76, height: 24 }, 40)).toBeGreaterThan(40);
    expect(differingPixels(hint, again, { x: 0, y: 33, width: 96, height: 30 })).toBeGreaterThan(1000);
  });
});

describe('states told apart', () => {
  const sync = (action: SyncPicture['action'], state: SyncPicture['state'] = 'armed'): SyncPicture => ({ kind: 'sync', state, action, members: [1, 2, 3, 4], outOfSync: [], durationS: state === 'armed' ? null : 95, ageS: null });

  it('sync start and sync pause keys of one group look different (their footers say what they do)', async () => {
    const start = await draw(sync('start'));
    const pause = await draw(sync('pause-toggle'));
    const stop = await draw(sync('stop'));
    const none = await draw(sync(null));
    await saveSheet('sync-start-pause', [start, pause, stop, await draw(sync('start', 'recording')), await draw(sync('pause-toggle', 'paused'))]);
    const { footer } = stateTileLayout(KEY);
    const footerRect = { x: 0, y: Math.round(footer.y), width: 96, height: Math.round(footer.height) };
    expect(differingPixels(start, pause, footerRect)).toBeGreaterThan(60);
    expect(differingPixels(start, stop, footerRect)).toBeGreaterThan(60);
    expect(differingPixels(none, start, footerRect)).toBeGreaterThan(60);
    // Only the footer differs: the group's state reads the same on both.
    expect(differingPixels(start, pause, { x: 0, y: 0, width: 96, height: Math.round(footer.y) })).toBe(0);
  });

  it('a paused sync take is not a channel paused alone: same yellow, its own word and symbol', async () => {
    const alone = await draw(channel('paused', { durationS: 95 }));
    const take = await draw(channel('sync-paused', { durationS: 95 }));
    await saveSheet('sync-paused', [alone, take, await draw(channel('sync-recording', { durationS: 95, fps: 25 }))]);
    const { probe, band } = stateTileLayout(KEY);
    expect(isColour(alone, probe.x, probe.y, CHANNEL_LOOKS.paused.band)).toBe(true);
    expect(isColour(take, probe.x, probe.y, CHANNEL_LOOKS.paused.band)).toBe(true);
    expect(differingPixels(alone, take, { x: 0, y: 0, width: 96, height: band.height })).toBeGreaterThan(150);
  });

  it('a fault while recording is REC with a FAULT warning, not FAULT instead of REC', async () => {
    const faultRec = await draw(recording({ warning: 'FAULT' }));
    const faultIdle = await draw(channel('wrong'));
    const rec = await draw(recording());
    await saveSheet('fault-recording', [rec, faultRec, faultIdle]);
    const { probe, footer } = stateTileLayout(KEY);
    expect(isColour(faultRec, probe.x, probe.y, CHANNEL_LOOKS.recording.band)).toBe(true);
    expect(isColour(faultIdle, probe.x, probe.y, CHANNEL_LOOKS.wrong.band)).toBe(true);
    // The orange warning strip across the footer, with dark text on it.
    expect(isColour(faultRec, 6, Math.round(footer.y + footer.height / 2), WARNING.box)).toBe(true);
    expect(differingPixels(rec, faultRec, { x: 0, y: Math.round(footer.y), width: 96, height: Math.round(footer.height) })).toBeGreaterThan(500);
  });

  it('a failed command shows its reason in short under FAILED', async () => {
    const bare = await draw({ ...recording(), overlay: { flash: 'failed' } });
    const reasoned = await draw({ ...recording(), overlay: { flash: 'failed', reason: 'Channel 3 is not recording' } });
    const other = await draw({ ...recording(), overlay: { flash: 'failed', reason: 'request timed out' } });
    const refused = await draw({ ...recording(), overlay: { flash: 'refused', reason: 'state is stale (5s old)' } });
    await saveSheet('failure-reason', [bare, reasoned, other, refused, await draw({ ...recording(), overlay: { flash: 'failed', reason: 'No source' } }, SMALL)]);
    const below = { x: 0, y: 44, width: 96, height: 40 };
    // White reason text on the solid red box below the word.
    expect(isColour(reasoned, 1, 50, FLASH.failed.tint)).toBe(true);
    expect(countNear(reasoned, FLASH.failed.ink, below, 40)).toBeGreaterThan(60);
    expect(differingPixels(reasoned, other, below)).toBeGreaterThan(100);
    expect(differingPixels(bare, reasoned, below)).toBeGreaterThan(100);
  });

  it('long names are cut in the middle: the tail that tells them apart stays', async () => {
    expect(truncateMiddle('Camera 12 - studio B', 'regular', 11, 60)).toMatch(/^Cam.*\u2026.*dio B$/);
    expect(truncateMiddle('Cam 1', 'regular', 11, 60)).toBe('Cam 1');
    const a = await draw(channel('idle', { channel: 12, source: 'Camera 12 - studio A' }));
    const b = await draw(channel('idle', { channel: 12, source: 'Camera 12 - studio B' }));
    const dash = await draw(channel('idle', { channel: 12, source: 'Camera 12 \u2014 studio B' }));
    await saveSheet('middle-names', [a, b, dash]);
    const { ident } = stateTileLayout(KEY);
    // Only the end of the identity line differs: the names stay told apart on the key.
    const identRect = { x: 0, y: Math.round(ident.y), width: 96, height: Math.round(ident.height) };
    expect(differingPixels(a, b, identRect)).toBeGreaterThan(10);
    expect(differingPixels(a, b, { ...identRect, width: 70 })).toBe(0);
  });

  it('a grid key shows the size it sets and the grid now; lit when they are the same', async () => {
    const other = await draw({ kind: 'grid', channels: 16, target: 9, freshness: 'live' });
    const same = await draw({ kind: 'grid', channels: 9, target: 9, freshness: 'live' });
    const stale = await draw({ kind: 'grid', channels: null, target: 9, freshness: 'stale' });
    await saveSheet('grid', [other, same, stale, await draw({ kind: 'grid', channels: 4, target: 16, freshness: 'live' }, SMALL)]);
    expect(isColour(other, 2, 2, LABEL.background)).toBe(true);
    expect(isColour(same, 2, 2, LABEL.lit)).toBe(true);
    // "now 16" and "now 9" differ where the current size is written.
    expect(differingPixels(other, await draw({ kind: 'grid', channels: 4, target: 9, freshness: 'live' }), { x: 0, y: 60, width: 96, height: 30 })).toBeGreaterThan(20);
  });
});

describe('dialog text stays legible', () => {
  const LONG = 'Disk D: is almost full. Recording on Cam 1, Cam 2 and Cam 3 will stop in 4 minutes. Stop All channels Now and Keep the files?';
  const message = (textPage: number, text = LONG): DialogPicture => ({ kind: 'dialog', role: 'message', active: true, flashPhase: false, text, offersCancel: true, textPage, ageS: null });

  /**
   * Heights of the runs of rows holding white text inside the border: one per line of text (a descender
   * cut off by a faint row makes a run of a pixel or two, which is left out).
   */
  function lineHeights(image: RgbImage): number[] {
    const inset = Math.round(Math.min(image.width, image.height) * 0.07);
    const runs: number[] = [];
    let run = 0;
    for (let y = inset; y < image.height - inset; y++) {
      let ink = false;
      for (let x = inset; x < image.width - inset && !ink; x++) ink = pixel(image, x, y).every((c) => c > 170);
      if (ink) run++;
      else if (run > 0) {
        runs.push(run);
        run = 0;
      }
    }
    if (run > 0) runs.push(run);
    return runs.filter((height) => height > 2);
  }

  for (const size of [SMALL, KEY]) {
    it(`a long message at ${size.width} px is shown in pages of text no smaller than ${legibleDialogSize(size)} px`, async () => {
      const pages = [await draw(message(0), size), await draw(message(1), size), await draw(message(2), size)];
      const ok = await draw({ ...message(0), role: 'ok' }, size);
      await saveSheet(`dialog-${size.width}`, [...pages, ok, await draw(message(0, 'Stop all channels?'), size)]);
      // All lines of a page share one size; a line with a capital or an ascender is at least the cap
      // height of a legible size (0.7 em) tall. (Before issue 13 the text shrank to 6-7 px: 4-5 px here.)
      const minimum = Math.floor(legibleDialogSize(size) * 0.65);
      for (const page of pages) {
        const heights = lineHeights(page);
        expect(heights.length).toBeGreaterThan(2);
        expect(Math.max(...heights)).toBeGreaterThanOrEqual(minimum);
      }
      expect(differingPixels(pages[0] as RgbImage, pages[1] as RgbImage)).toBeGreaterThan(100);
      // The answer key's line of text is legible too (cut, not shrunk).
      for (const height of lineHeights(ok).slice(-1)) expect(height).toBeGreaterThanOrEqual(minimum);
    });
  }

  it('a short message fits on one page: the page counter does not change it', async () => {
    const first = await draw(message(0, 'Stop all channels?'));
    const later = await draw(message(5, 'Stop all channels?'));
    expect(differingPixels(first, later)).toBe(0);
  });
});
