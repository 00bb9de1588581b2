// What an operator must read is never cut off (issue 20, item 8), through the real bridge and renderer
// against the simulator, on virtual time: a failed key shows its whole reason a page at a time, each page
// long enough to read; the dialog overlay spreads the recorder's real questions over its free keys so
// that all of it reads at once, at no less than 11 px on a 72 px key; the sync keys say how many channels
// of the InSync group they act on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DialogPicture, Picture } from '../../src/engine/picture.js';
import { REASON_PAGE_MS } from '../../src/engine/session/session-overlays.js';
import { keyGrid, type ControlDefinition, type PixelSize, type RgbImage } from '../../src/engine/surface.js';
import { measureText } from '../../src/render/font.js';
import { questionLayout } from '../../src/render/tiles/dialog.js';
import { legibleTextSize } from '../../src/render/tiles/flow.js';
import { reasonLayout } from '../../src/render/tiles/overlay.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { WEB_LAYOUTS, webControls } from '../../src/surfaces/web/layouts.js';
import { realTime } from '../../src/engine/engine-time.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { differingPixels, inkRuns } from '../render/pixels.js';

/** The smallest text this item promises on a 72 px key: 11 px, capitals 8 px tall. */
const MIN_TEXT_PX = 11;
const KEY_72: PixelSize = { width: 72, height: 72 };

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const session = (fixture: BridgeFixture) => {
  const found = fixture.bridge.session('memory:test');
  if (!found) throw new Error('no session');
  return found;
};
const pictureOf = (fixture: BridgeFixture, control: string): Picture | undefined => session(fixture).describeControls().find((c) => c.control.id === control)?.picture;
const imageOf = (fixture: BridgeFixture, control: string): RgbImage => {
  const image = fixture.surface.images.get(control);
  if (!image) throw new Error(`nothing drawn on ${control}`);
  return image;
};

/**
 * The words of the text, found in order in the lines, each whole on one line unless it alone is wider
 * than a line at that size (then its pieces follow each other). Returns what is wrong, or null.
 */
function wordsInOrder(text: string, lines: readonly string[], size: number, lineWidth: number): string | null {
  const tokens = lines.flatMap((line) => line.split(' ').filter((t) => t !== ''));
  let at = 0;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let joined = tokens[at++] ?? '';
    let pieces = 1;
    while (joined.length < word.length && at < tokens.length) {
      joined += tokens[at++];
      pieces++;
    }
    if (joined !== word) return `expected "${word}", found "${joined}"`;
    if (pieces > 1 && measureText(word, 'regular', size) <= lineWidth) return `"${word}" fits a line but is split`;
  }
  return at === tokens.length ? null : `left over: ${tokens.slice(at).join(' ')}`;
}

/** Where a key's lines of text are drawn: inside the dialog key's outline (7 % of the key) and a pixel more. */
const textArea = (size: PixelSize) => {
  const inset = Math.round(Math.min(size.width, size.height) * 0.07) + 1;
  return { x: inset, y: inset, width: size.width - 2 * inset, height: size.height - 2 * inset };
};

describe('a failed key shows its whole reason, a page at a time', () => {
  it('every page fits the key at a legible size, each stays up a reading period, and all of them give the whole reason', async () => {
    f = await startBridgeFixture({
      profile: `
name: reasons
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: { label: "PAUSE SYNC" }, press: { action: sync-rec-pause } }
`,
      controls: keyGrid(3, 5, 72),
    });
    const fixture = f;
    await fixture.until(() => fixture.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    const failed = fixture.nextCommand('key0');
    fixture.surface.press('key0'); // nothing records in sync: the simulator refuses the pause
    const message = 'Synchronous recording is not running; there is nothing to pause';
    expect(await failed).toMatchObject({ result: 'failed', message });
    await fixture.until(() => pictureOf(fixture, 'key0')?.overlay?.flash === 'failed', 'the failure on the key');
    // The key carries the whole message (before: "Synchronous recording is n…").
    expect(pictureOf(fixture, 'key0')?.overlay?.reason).toBe(message);

    // Its pages as the renderer lays them out on this key: legible, whole lines, all the words in order.
    const layout = reasonLayout(message, KEY_72);
    expect(layout.pages.length).toBeGreaterThanOrEqual(2);
    expect(layout.size).toBeGreaterThanOrEqual(MIN_TEXT_PX);
    for (const page of layout.pages) expect(page[0]?.length ?? 0).toBeLessThanOrEqual(layout.linesPerBox);
    expect(wordsInOrder(message, layout.pages.map((page) => page[0] ?? []).flat(), layout.size, 68)).toBeNull();

    // On virtual time, frame by frame: which page the key shows, and for how long.
    const began = session(fixture).sessionState.flashes.get('key0')?.at as number;
    const shown: Array<{ page: number; from: number; to: number; image: RgbImage }> = [];
    while (pictureOf(fixture, 'key0')?.overlay?.flash === 'failed') {
      const page = pictureOf(fixture, 'key0')?.overlay?.reasonPage ?? -1;
      await fixture.settle();
      const last = shown.at(-1);
      if (last?.page === page) last.to = fixture.now();
      else shown.push({ page, from: fixture.now(), to: fixture.now(), image: imageOf(fixture, 'key0') });
      await fixture.advance(100);
      if (fixture.now() - began > 20_000) throw new Error('the flash never ended');
    }
    expect(shown.map((s) => s.page)).toEqual(layout.pages.map((_, i) => i));
    // Each page held a whole reading period (frames come every 100 ms), and the flash ends after the last.
    for (const page of shown) expect(page.to - page.from).toBeGreaterThanOrEqual(REASON_PAGE_MS - 100);
    expect(fixture.now() - began).toBeGreaterThanOrEqual(layout.pages.length * REASON_PAGE_MS);
    expect(fixture.now() - began).toBeLessThanOrEqual(layout.pages.length * REASON_PAGE_MS + 200);
    // The key's pixels follow: each page draws its own lines, as many as it has, each at least a legible
    // capital tall, on the solid flash colour below the word.
    const reasonArea = { x: 2, y: Math.round(72 * 0.32) + 1, width: 68, height: 72 - Math.round(72 * 0.32) - 3 };
    shown.forEach((page, i) => {
      const runs = inkRuns(page.image, reasonArea);
      expect(runs).toHaveLength(layout.pages[i]?.[0]?.length ?? 0);
      expect(Math.max(...runs)).toBeGreaterThanOrEqual(8);
    });
    expect(differingPixels(shown[0]?.image as RgbImage, shown[1]?.image as RgbImage, reasonArea)).toBeGreaterThan(100);
  });
});

/** A shipped profile as a memory surface's profile: the same pages, matched to the test's surface (or by `match`). */
function shipped(file: string, match = '{ kind: memory }'): string {
  return readFileSync(join(import.meta.dirname, '../../profiles', file), 'utf8').replace(/^match: .*$/m, `match: ${match}`);
}

const DECKS: Array<{ file: string; controls: ControlDefinition[] }> = [
  { file: 'streamdeck-15-keys.yaml', controls: keyGrid(3, 5, 72) },
  { file: 'web-15-keys.yaml', controls: keyGrid(3, 5, 72) },
  { file: 'streamdeck-xl.yaml', controls: keyGrid(4, 8, 72) },
  { file: 'web-32-keys.yaml', controls: keyGrid(4, 8, 72) },
  { file: 'streamdeck-mini.yaml', controls: keyGrid(2, 3, 72) },
  { file: 'streamdeck-plus.yaml', controls: webControls({ ...(WEB_LAYOUTS['web-plus'] as NonNullable<(typeof WEB_LAYOUTS)['web-plus']>), keySize: 72 }) },
  { file: 'web-plus.yaml', controls: webControls({ ...(WEB_LAYOUTS['web-plus'] as NonNullable<(typeof WEB_LAYOUTS)['web-plus']>), keySize: 72 }) },
];

describe('the dialog overlay spreads the question over its free keys', () => {
  it(`legibleTextSize is ${MIN_TEXT_PX} px on a 72 px key`, () => {
    expect(legibleTextSize(KEY_72)).toBe(MIN_TEXT_PX);
  });

  // One recorder and one bridge for every deck (a memory surface each, bound to its shipped profile by
  // serial): each question the simulator raises is checked on all of them at once, as each deck alone
  // was before.
  it('every word of the simulator\'s questions reads at once, in order, at 11 px or more on 72 px keys, on each shipped deck', async () => {
    const [first, ...others] = DECKS as [(typeof DECKS)[number], ...typeof DECKS];
    f = await startBridgeFixture({ profile: shipped(first.file), controls: first.controls });
    const fixture = f;
    const { client } = fixture;
    const decks = [{ file: first.file, surface: fixture.surface }];
    for (const [i, deck] of others.entries()) {
      const serial = `deck-${i + 1}`;
      decks.push({ file: deck.file, surface: new MemorySurface({ time: realTime, id: `memory:${serial}`, model: 'test', serial, controls: deck.controls }) });
    }
    fixture.bridge.setProfiles([
      ...fixture.bridge.loadedProfiles(),
      ...others.map((deck, i) => parseTestProfile(shipped(deck.file, `{ kind: memory, serial: deck-${i + 1} }`), deck.file)),
    ]);
    for (const { surface } of decks.slice(1)) fixture.bridge.addSurface(surface);
    const sessionOf = (surface: MemorySurface) => {
      const found = fixture.bridge.session(surface.id);
      if (!found) throw new Error(`no session for ${surface.id}`);
      return found;
    };
    for (const { file, surface } of decks.slice(1)) expect(sessionOf(surface).profileFile).toBe(file); // the first is the fixture's own
    await fixture.until(() => fixture.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');

    /** Reads the dialog the recorder raised, checks each deck's overlay shows it whole, and answers it. */
    const check = async (answer: 'ok' | 'cancel') => {
      const text = (await client.getDialog()).DialogContent;
      const overlaid = (surface: MemorySurface) => sessionOf(surface).currentPage.name === 'Dialog' && sessionOf(surface).describeControls().find((c) => c.control.id === 'key0')?.picture.kind === 'dialog';
      await fixture.until(() => decks.every(({ surface }) => overlaid(surface)), `the overlay for "${text}" on every deck`);
      await fixture.advance(150); // the next frame draws it
      for (const { file, surface } of decks) {
        const described = sessionOf(surface).describeControls();
        const question = described.filter((c) => c.picture.kind === 'dialog' && c.picture.role === 'message').map((c) => ({ id: c.control.id, picture: c.picture as DialogPicture }));
        const slots = question.length;
        expect(slots, file).toBeGreaterThanOrEqual(3);
        // Each key knows its place among them, in reading order (the surface's key order).
        expect(question.map((q) => [q.picture.slot, q.picture.slots]), file).toEqual(question.map((_, i) => [i, slots]));
        const layout = questionLayout(text, KEY_72, slots);
        expect(layout.pages, `${file}: "${text}" on ${slots} keys`).toHaveLength(1);
        expect(layout.size, file).toBeGreaterThanOrEqual(MIN_TEXT_PX);
        const shares = layout.pages[0] as string[][];
        expect(wordsInOrder(text, shares.flat(), layout.size, 64), file).toBeNull();
        // The keys' pixels: each draws its share's lines, at least a legible capital tall; the rest are plain.
        question.forEach((q, i) => {
          const image = surface.images.get(q.id);
          if (!image) throw new Error(`${file}: nothing drawn on ${q.id}`);
          const runs = inkRuns(image, textArea(KEY_72));
          expect(runs, `${file}: ${q.id}: ${JSON.stringify(shares[i])}`).toHaveLength(shares[i]?.length ?? 0);
          if (runs.length > 0) expect(Math.max(...runs), `${file}: ${q.id}`).toBeGreaterThanOrEqual(8);
        });
        // OK and Cancel show their button words only: the question is on the keys beside them.
        for (const c of described) if (c.picture.kind === 'dialog' && c.picture.role !== 'message') expect(c.picture.text, `${file}: ${c.control.id}`).toBe('');
      }
      await client.answerDialog(answer);
      await fixture.until(() => decks.every(({ surface }) => sessionOf(surface).currentPage.name !== 'Dialog'), 'the overlay to go on every deck');
    };

    // Shrinking the grid over recording channels.
    for (const index of [4, 5, 6]) await client.recStart(index);
    await client.setChannelCount(4);
    await check('cancel');
    for (const index of [4, 5, 6]) await client.recStop(index);
    // A new session while a channel records.
    await client.recStart(0);
    await client.newSession();
    await check('cancel');
    await client.recStop(0);
    // A start the recorder cannot make: no source, then a destination folder that does not exist.
    await client.unsetChannelSource(2);
    await expect(client.recStart(2)).rejects.toThrow(/no source/);
    await check('ok');
    await client.addDestination({ Name: 'Studio B archive', Location: '/srv/recordings/studio-b/archive' });
    await client.addChannelDestination(3, 'Studio B archive');
    await expect(client.recStart(3)).rejects.toThrow(/does not exist/);
    await check('ok');
  }, 60_000);
});

describe('the sync keys name the InSync group they act on', () => {
  it('their footers say what a press does to how many channels, and follow the group', async () => {
    f = await startBridgeFixture({
      profile: `
name: sync
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: sync, press: { action: sync-rec-start }, hold: { ms: 1000, do: { action: sync-rec-stop } } }
      key1: { show: sync, press: { action: sync-rec-pause-toggle } }
`,
      controls: keyGrid(3, 5, 72),
    });
    const fixture = f;
    const { client } = fixture;
    for (const index of [0, 1, 2]) await client.syncOn(index);
    await fixture.until(() => {
      const picture = pictureOf(fixture, 'key0');
      return picture?.kind === 'sync' && picture.members.length === 3;
    }, 'three channels in the group');
    await fixture.settle();
    const { footer } = stateTileLayout(KEY_72);
    const footerRect = { x: 0, y: Math.round(footer.y), width: 72, height: Math.round(footer.height) };
    const three = { start: imageOf(fixture, 'key0'), pause: imageOf(fixture, 'key1') };
    // Start and pause keys of the group read apart.
    expect(differingPixels(three.start, three.pause, footerRect)).toBeGreaterThan(40);
    await client.syncOn(3);
    await fixture.until(() => {
      const picture = pictureOf(fixture, 'key0');
      return picture?.kind === 'sync' && picture.members.length === 4;
    }, 'a fourth channel in the group');
    await fixture.settle();
    // "START 3 CH" became "START 4 CH": the footer counts the group (before: "START ALL", whatever it held).
    expect(differingPixels(three.start, imageOf(fixture, 'key0'), footerRect)).toBeGreaterThan(10);
    expect(differingPixels(three.pause, imageOf(fixture, 'key1'), footerRect)).toBeGreaterThan(10);
  });
});
