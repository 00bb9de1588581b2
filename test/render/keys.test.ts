// The pictures that tell an operator how to use a key and what went wrong (issue 13): gesture marks and
// the HOLD hint, sync start/pause keys, a paused sync take, a fault while recording, a failure's reason,
// names cut in the middle, the grid key and legible dialog text; and (issue 20) a failure's whole reason in
// pages, the dialog's question over the overlay's free keys, sync keys that count the group. Each test saves a sheet of what it drew
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
import { questionLayout } from '../../src/render/tiles/dialog.js';
import { legibleTextSize } from '../../src/render/tiles/flow.js';
import { reasonLayout } from '../../src/render/tiles/overlay.js';
import { syncActionText } from '../../src/render/tiles/sync.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { channel, recording } from './fixtures.js';
import { differingPixels, inkRuns, isColour } from './pixels.js';

const KEY = { width: 96, height: 96 };
const SMALL = { width: 72, height: 72 };
const renderer = new KeyRenderer();
const draw = (picture: Picture, size: { width: number; height: number } = KEY) => renderer.render(picture, size);

/** The images side by side on a grey sheet (or in rows of `columns`, as on a deck), as a PNG for people to look at. */
async function saveSheet(name: string, images: RgbImage[], columns = images.length): Promise<void> {
  const folder = process.env.RECDECK_SCREENSHOTS ?? join(tmpdir(), 'recdeck-keys');
  mkdirSync(folder, { recursive: true });
  const gap = 8;
  const rows = Math.ceil(images.length / columns);
  // One row: each image its own width; rows: cells of the largest.
  const cell = { width: Math.max(...images.map((image) => image.width)) + gap, height: Math.max(...images.map((image) => image.height)) + gap };
  const lefts = images.map((_, i) => (rows === 1 ? images.slice(0, i).reduce((sum, image) => sum + image.width + gap, gap) : gap + (i % columns) * cell.width));
  const width = rows === 1 ? images.reduce((sum, image) => sum + image.width + gap, gap) : columns * cell.width + gap;
  const composite = images.map((image, i) => ({ input: image.data, raw: { width: image.width, height: image.height, channels: 3 as const }, left: lefts[i] as number, top: gap + Math.floor(i / columns) * cell.height }));
  await sharp({ create: { width, height: rows * cell.height + gap, channels: 3, background: '#505050' } }).composite(composite).png().toFile(join(folder, `keys-${name}.png`));
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

  it('sync keys say what a press does to how many channels of the InSync group; start and pause keys look different', async () => {
    expect([syncActionText('start', 'armed', [1, 2, 3]), syncActionText('stop', 'recording', [1, 2, 3, 4])]).toEqual(['START 3 CH', 'STOP 4 CH']);
    // A toggle says what it does now: start or stop, pause or resume.
    expect([syncActionText('toggle', 'armed', [1]), syncActionText('toggle', 'paused', [1]), syncActionText('pause-toggle', 'recording', [1]), syncActionText('pause-toggle', 'paused', [1])]).toEqual(['START 1 CH', 'STOP 1 CH', 'PAUSE 1 CH', 'RESUME 1 CH']);
    const start = await draw(sync('start'));
    const pause = await draw(sync('pause-toggle'));
    const stop = await draw(sync('stop'));
    const none = await draw(sync(null));
    const three = await draw({ ...sync('start'), members: [1, 2, 5] });
    await saveSheet('sync-start-pause', [start, pause, stop, three, await draw(sync('start', 'recording')), await draw(sync('pause-toggle', 'paused')), await draw({ ...sync('toggle'), members: [] , state: 'none' }, SMALL)]);
    const { footer } = stateTileLayout(KEY);
    const footerRect = { x: 0, y: Math.round(footer.y), width: 96, height: Math.round(footer.height) };
    expect(differingPixels(start, pause, footerRect)).toBeGreaterThan(60);
    expect(differingPixels(start, stop, footerRect)).toBeGreaterThan(60);
    expect(differingPixels(none, start, footerRect)).toBeGreaterThan(60);
    // The footer counts the group: "START 4 CH" is not "START 3 CH".
    expect(differingPixels(start, three, footerRect)).toBeGreaterThan(10);
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

  it('a failed command shows its whole reason under FAILED, a page at a time with "1/2" beside the word', async () => {
    const long = 'Synchronous recording is not running; there is nothing to pause';
    const failed = (reason: string | undefined, reasonPage = 0, size = KEY) => draw({ ...recording(), overlay: { flash: 'failed', ...(reason === undefined ? {} : { reason, reasonPage }) } }, size);
    const bare = await failed(undefined);
    const short = await failed('Channel 3 is not recording');
    const pages = [await failed(long, 0), await failed(long, 1), await failed(long, 2)];
    const small = [await failed(long, 0, SMALL), await failed(long, 1, SMALL)];
    const refused = await draw({ ...recording(), overlay: { flash: 'refused', reason: 'state is stale (5s old)', reasonPage: 0 } });
    await saveSheet('failure-reason', [bare, short, ...pages.slice(0, 2), refused, ...small, await failed('No source', 0, SMALL)]);
    expect(reasonLayout(long, KEY).pages).toHaveLength(2);
    expect(reasonLayout(long, SMALL).size).toBeGreaterThanOrEqual(legibleTextSize(SMALL));
    const below = { x: 0, y: 34, width: 96, height: 56 };
    // White reason text on the solid red below the word.
    expect(isColour(short, 1, 36, FLASH.failed.tint)).toBe(true);
    expect(countNear(short, FLASH.failed.ink, below, 40)).toBeGreaterThan(60);
    expect(differingPixels(bare, short, below)).toBeGreaterThan(100);
    // The pages differ, and come round again (the counter counts reading periods since the flash began).
    expect(differingPixels(pages[0] as RgbImage, pages[1] as RgbImage, below)).toBeGreaterThan(100);
    expect(differingPixels(pages[0] as RgbImage, pages[2] as RgbImage)).toBe(0);
    // "1/2" and "2/2" at the word's right end; a reason of one page has none (its word band is the same as any other's).
    const wordBand = { x: 0, y: 4, width: 96, height: 24 };
    expect(differingPixels(pages[0] as RgbImage, pages[1] as RgbImage, { ...wordBand, x: 64, width: 30 })).toBeGreaterThan(5);
    expect(differingPixels(short, await failed('No source'), wordBand)).toBe(0);
    expect(differingPixels(short, pages[0] as RgbImage, wordBand)).toBeGreaterThan(20);
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
  const message = (textPage: number, text = LONG): DialogPicture => ({ kind: 'dialog', role: 'message', active: true, flashPhase: false, text, offersCancel: true, textPage, slot: 0, slots: 1, ageS: null });

  /** Heights of the runs of rows holding text inside the border: one per line of text. */
  const lineHeights = (image: RgbImage) => {
    const inset = Math.round(Math.min(image.width, image.height) * 0.07);
    return inkRuns(image, { x: inset, y: inset, width: image.width - 2 * inset, height: image.height - 2 * inset });
  };

  for (const size of [SMALL, KEY]) {
    it(`a long message at ${size.width} px is shown in pages of text no smaller than ${legibleTextSize(size)} px`, async () => {
      const pages = [await draw(message(0), size), await draw(message(1), size), await draw(message(2), size)];
      const ok = await draw({ ...message(0), role: 'ok' }, size);
      await saveSheet(`dialog-${size.width}`, [...pages, ok, await draw(message(0, 'Stop all channels?'), size)]);
      // All lines of a page share one size; a line with a capital or an ascender is at least the cap
      // height of a legible size (0.7 em) tall. (Before issue 13 the text shrank to 6-7 px: 4-5 px here.)
      const minimum = Math.floor(legibleTextSize(size) * 0.65);
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

  it('the dialog overlay\'s free keys share the question in reading order: all of it at once, as large as fits', async () => {
    const question = 'Channels 5, 6 and 7 are recording. Stop them and change the grid to 4 channels?';
    const share = (slot: number, slots: number, flashPhase = false): DialogPicture => ({ ...message(0, question), slot, slots, flashPhase });
    // A 15-key deck's overlay: OK and Cancel at key11 and key12, the other 13 keys free.
    const deck: RgbImage[] = [];
    for (let key = 0, slot = 0; key < 15; key++) {
      if (key === 11 || key === 12) deck.push(await draw({ ...message(0, ''), role: key === 11 ? 'ok' : 'cancel', flashPhase: key === 12 }, SMALL));
      else deck.push(await draw(share(slot++, 13), SMALL));
    }
    await saveSheet('dialog-overlay', deck, 5);
    const layout = questionLayout(question, SMALL, 13);
    expect(layout.pages).toHaveLength(1);
    expect(layout.size).toBeGreaterThan(legibleTextSize(SMALL));
    expect(layout.pages[0]?.flat().join(' ')).toBe(question);
    // The first keys carry text, the rest are plain: nothing to read there.
    expect(differingPixels(deck[0] as RgbImage, deck[1] as RgbImage)).toBeGreaterThan(100);
    expect(differingPixels(deck[13] as RgbImage, deck[14] as RgbImage)).toBe(0);
    // Too few keys for it: pages over the keys, the last key saying which.
    const two = questionLayout(LONG, SMALL, 2);
    expect(two.pages.length).toBeGreaterThan(1);
    expect(two.size).toBe(legibleTextSize(SMALL));
    const lastKey = [await draw({ ...message(0), slot: 1, slots: 2 }, SMALL), await draw({ ...message(1), slot: 1, slots: 2 }, SMALL)];
    expect(differingPixels(lastKey[0] as RgbImage, lastKey[1] as RgbImage, { x: 40, y: 56, width: 28, height: 12 })).toBeGreaterThan(5);
  });

  it('a short message fits on one page: the page counter does not change it', async () => {
    const first = await draw(message(0, 'Stop all channels?'));
    const later = await draw(message(5, 'Stop all channels?'));
    expect(differingPixels(first, later)).toBe(0);
  });
});

describe('recorder groups and disk time (issue 24)', () => {
  it('a group key names the member that does not record in the warning strip; a resources key says the time left, amber then red', async () => {
    const resources = (timeLeft: Extract<Picture, { kind: 'resources' }>['timeLeft']): Picture => ({ kind: 'resources', timeLeft, cpu: 23, ram: 41, disk: { label: 'D:', used: 83 }, warning: false, freshness: 'live' });
    const keys = [
      await draw(channel('idle', { warning: 'BACKUP NOT REC' }), SMALL),
      await draw(channel('offline', { warning: 'BACKUP OFFLINE' }), SMALL),
      await draw(recording({ warning: 'BACKUP DROP 3' }), SMALL),
      await draw(resources({ disk: 'D:', minutes: 95, level: 'ok' }), SMALL),
      await draw(resources({ disk: 'D:', minutes: 24, level: 'amber' }), SMALL),
      await draw(resources({ disk: 'D:', minutes: 7, level: 'red' }), SMALL),
    ];
    await saveSheet('groups-disk', keys);
    // The member's name is in the warning strip at the foot of the key.
    const footer = stateTileLayout(SMALL).footer;
    expect(isColour(keys[0] as RgbImage, footer.x + 2, footer.y + footer.height - 3, WARNING.box, 8)).toBe(true);
    // The title band: neutral with time to spare, amber, then red.
    expect(isColour(keys[3] as RgbImage, 70, 3, WARNING.box, 8)).toBe(false);
    expect(isColour(keys[4] as RgbImage, 70, 3, WARNING.box, 8)).toBe(true);
    expect(isColour(keys[5] as RgbImage, 70, 3, FLASH.failed.tint, 8)).toBe(true);
    // The time itself is written there: 24 and 7 minutes look different.
    expect(differingPixels(keys[4] as RgbImage, await draw(resources({ disk: 'D:', minutes: 7, level: 'amber' }), SMALL))).toBeGreaterThan(20);
  });
});
