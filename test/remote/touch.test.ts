// The web deck on a phone (390x844, touch) and at desk size (1280x800, a touch screen too), in Debian's
// chromium: no sideways scrolling, keys big enough for a finger, a swipe that starts on a key scrolls
// and sends nothing, a tap records, a hold by touch stops, and a dropped link says NO LINK at once.
// What must be read reads whole (issue 20): a failed key pages its whole reason, the sync keys count the
// InSync group, the dialog overlay spreads the question over its free keys and is answered from the page,
// the folded 32-key deck keeps OK and Cancel side by side, and a dial turns by a finger dragged along it
// (screenshots of these go to RECDECK_READABLE_SHOTS, by default a folder under /tmp).
// Touches are real browser touches (CDP Input.dispatchTouchEvent), so the browser's own scrolling and
// pointercancel are part of what is tested.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialogPicture, Picture } from '../../src/engine/picture.js';
import type { SurfaceInput } from '../../src/engine/surface.js';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { launchChromium, openDeckPage } from '../support/chromium.js';

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
interface Box {
  left: number;
  right: number;
  top: number;
  width: number;
}
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(selector: string): { value: string; dispatchEvent(event: unknown): void; toDataURL(): string; style: { gridTemplateColumns: string } } | null;
  querySelectorAll(selector: string): Iterable<{ getBoundingClientRect(): Box }>;
};
declare const window: { scrollY: number; scrollTo(x: number, y: number): void };
declare class Event {
  constructor(type: string);
}

const SHOTS = process.env.RECDECK_READABLE_SHOTS ?? join(tmpdir(), 'recdeck-readable');
mkdirSync(SHOTS, { recursive: true });

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, screenshot: 'web-deck-phone.png' },
  { name: 'desk', viewport: { width: 1280, height: 800 }, isMobile: false, screenshot: null },
] as const;

describe.each(SIZES)('the web deck at $name size ($viewport.width x $viewport.height), by touch', ({ name, viewport, isMobile, screenshot }) => {
  let f: RemoteFixture;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  /** The page's live links, as the test sees them (it can cut them and keep the page from reconnecting). */
  const links: WebSocketRoute[] = [];
  let linkAllowed = true;

  beforeAll(async () => {
    f = await startRemoteFixture({ pollMs: 250 });
    browser = await launchChromium();
    context = await browser.newContext({ viewport, isMobile, hasTouch: true });
    page = await context.newPage();
    await page.routeWebSocket(/\/ws$/, (ws) => {
      if (!linkAllowed) return ws.close({ code: 4000, reason: 'the test keeps the link down' });
      links.push(ws);
      ws.connectToServer();
    });
    cdp = await context.newCDPSession(page);
    await openDeckPage(page, f);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  const key = (surface: string, control: string) => page.locator(`canvas[data-surface="${surface}"][data-control="${control}"]`);
  const writes = () => f.sim.sim.log.list().filter((r) => r.method !== 'GET');
  /** How far the hold ring on a key has filled (0 when not held), as the bridge draws it. */
  const holdOf = (control: string) =>
    (f.running.bridge.session('web:web-15')?.describeControls().find((c) => c.control.id === control)?.picture as { overlay?: { hold?: number } } | undefined)?.overlay?.hold ?? 0;
  /** Where to touch a control, in the viewport (scrolled into view first: a touch lands where the finger is). */
  const middle = async (locator: ReturnType<Page['locator']>) => {
    await locator.scrollIntoViewIfNeeded();
    const box = await locator.boundingBox();
    if (!box) throw new Error('the control is not on the page');
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const centre = (surface: string, control: string) => middle(key(surface, control));
  const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: at ? [{ x: at.x, y: at.y, id: 1 }] : [] });
  const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  const pick = (surface: string) =>
    page.evaluate((surface) => {
      const picker = document.querySelector('#deck-picker');
      if (!picker) throw new Error('no deck picker');
      picker.value = surface;
      picker.dispatchEvent(new Event('change'));
    }, surface);

  it('fits the width: no sideways scroll, keys of at least 56 px, one deck filling a phone', async () => {
    expect(await noSidewaysScroll()).toBe(true);
    const decks = isMobile ? ['web:web-15', 'web:web-32', 'web:web-plus'] : ['web:web-15'];
    for (const surface of decks) {
      if (isMobile) await pick(surface);
      const boxes = await page.evaluate((surface) => [...document.querySelectorAll(`canvas.key[data-surface="${surface}"]`)].map((k) => k.getBoundingClientRect()), surface);
      const sizes = boxes.map((b) => b.width);
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(56);
      expect(await noSidewaysScroll()).toBe(true);
      if (!isMobile) continue;
      // Only the picked deck is shown, and it fills the width.
      expect(await page.locator('.deck:visible').count()).toBe(1);
      const top = boxes.filter((b) => b.top === boxes[0]?.top);
      expect(Math.max(...top.map((b) => b.right)) - Math.min(...top.map((b) => b.left))).toBeGreaterThan(viewport.width - 60);
    }
    if (isMobile) {
      await pick('web:web-15');
      // The status panels come below the deck, as wide as it.
      const deck = await page.locator('.deck.picked').boundingBox();
      const status = await page.locator('#status').boundingBox();
      expect(status && deck && status.y > deck.y + deck.height && status.width > viewport.width - 40).toBe(true);
    } else {
      // At desk size the decks stay side by side with the status panels, all of them shown.
      expect(await page.locator('.deck:visible').count()).toBe(3);
      const deck = await page.locator('.deck').first().boundingBox();
      const status = await page.locator('#status').boundingBox();
      expect(status && deck && status.x >= deck.x + deck.width).toBe(true);
    }
  });

  it('a swipe that starts on a key scrolls the page and sends nothing', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const before = writes().length;
    const start = await centre('web:web-15', 'key0');
    await touch('touchStart', start);
    for (let dy = 10; dy <= 200; dy += 10) await touch('touchMove', { x: start.x, y: start.y - dy });
    await touch('touchEnd');
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 3000 }).toBeGreaterThan(50);
    // Whatever the swipe sent would reach the bridge before the tap below: the tap's request is the first write.
    const key1 = await centre('web:web-15', 'key1');
    await page.touchscreen.tap(key1.x, key1.y);
    await until(() => writes().length > before, 'the tap on key1 to reach the recorder');
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/1/rec-start']);
    expect(f.sim.sim.recorder().channels()[0]?.IsRecording).toBe(false);
  });

  it('a tap records, and the audit log says it in the operator\'s words', async () => {
    const before = writes().length;
    const at = await centre('web:web-15', 'key0');
    await page.touchscreen.tap(at.x, at.y);
    await until(() => writes().length > before, 'the tap on key0 to reach the recorder');
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/0/rec-start']);
    const entry = page.locator('#audit li').first();
    await expect.poll(() => entry.textContent(), { timeout: 3000 }).toContain('CH 1 rec-start');
    expect(await entry.textContent()).toContain('PUT /api/channels/0/rec-start');
    // Nothing of the log is cut off at the side: its lines wrap within the panel.
    expect(await page.evaluate(() => { const log = document.querySelector('#audit') as unknown as { scrollWidth: number; clientWidth: number }; return log.scrollWidth <= log.clientWidth; })).toBe(true);
    if (screenshot) {
      // The README's picture of the page on a phone (RECDECK_SCREENSHOTS=test/screenshots to refresh it).
      await expect.poll(() => page.locator('#channels tr[data-channel="1"] td.state').textContent(), { timeout: 3000 }).toBe('recording');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(process.env.RECDECK_SCREENSHOTS ?? f.sim.folder, screenshot) });
    }
  });

  it('a hold by touch shows the ring, then stops the channel', async () => {
    await until(() => f.sim.sim.recorder().channels()[0]?.IsRecording === true, 'channel 1 to record');
    const before = writes().length;
    await touch('touchStart', await centre('web:web-15', 'key0'));
    await until(() => holdOf('key0') > 0, 'the hold ring on key0');
    await until(() => writes().length > before, 'the stop', 3000);
    await touch('touchEnd');
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/0/rec-stop']);
  });

  it('a hold that then moves lets the key go without firing', async () => {
    const before = writes().length;
    const at = await centre('web:web-15', 'key2');
    await touch('touchStart', at);
    await until(() => holdOf('key2') > 0, 'the hold ring on key2');
    await touch('touchMove', { x: at.x + 40, y: at.y });
    await until(() => holdOf('key2') === 0, 'key2 to be let go');
    await touch('touchEnd');
    // Had it been held on, its hold would stop channel 3 and its release start it: neither happens.
    const key3 = await centre('web:web-15', 'key3');
    await page.touchscreen.tap(key3.x, key3.y);
    await until(() => writes().length > before, 'the tap on key3');
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/3/rec-start']);
    expect(f.sim.sim.recorder().channels()[2]?.IsRecording).toBe(false);
  });

  const deck = (surface: string) => page.locator(`.deck[data-surface="${surface}"]`);
  const pictureOf = (surface: string, control: string): Picture | undefined => f.running.bridge.session(surface)?.describeControls().find((c) => c.control.id === control)?.picture;
  const snapshot = (surface: string, control: string) =>
    page.evaluate(({ surface, control }) => document.querySelector(`canvas[data-surface="${surface}"][data-control="${control}"]`)?.toDataURL() ?? '', { surface, control });
  /** The deck in front: picked on a phone, scrolled to at a desk. */
  const bringUp = (surface: string) => (isMobile ? pick(surface) : deck(surface).scrollIntoViewIfNeeded());
  const tap = async (surface: string, control: string) => {
    const at = await centre(surface, control);
    await page.touchscreen.tap(at.x, at.y);
  };
  const shot = (what: string, locator = deck('web:web-15')) => locator.screenshot({ path: join(SHOTS, `${name}-${what}.png`) });

  it('a failed key shows its whole reason, a page at a time', async () => {
    await bringUp('web:web-15');
    // key9 pauses the sync take; nothing records in sync, so the recorder refuses.
    await tap('web:web-15', 'key9');
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.flash === 'failed', 'the failure on key9');
    expect(pictureOf('web:web-15', 'key9')?.overlay?.reason).toBe('Synchronous recording is not running; there is nothing to pause');
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.reasonPage === 0, 'its first page');
    const first = await snapshot('web:web-15', 'key9');
    await shot('failed-reason-page-1');
    // The next page comes while the key still flashes: the canvas shows other words.
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.reasonPage === 1, 'its second page', 4000);
    await until(async () => (await snapshot('web:web-15', 'key9')) !== first, 'the second page on the canvas');
    await shot('failed-reason-page-2');
    await until(() => pictureOf('web:web-15', 'key9')?.overlay === undefined, 'the flash to end', 6000);
  }, 30_000);

  it('the sync keys count the InSync group they act on', async () => {
    const group = [9, 10, 11];
    for (const index of group) await f.sim.client.syncOn(index);
    await until(() => {
      const picture = pictureOf('web:web-15', 'key8');
      return picture?.kind === 'sync' && picture.members.length === 3;
    }, 'three channels in sync on key8');
    const before = await snapshot('web:web-15', 'key8');
    await f.sim.client.syncOn(12);
    // "START 3 CH" becomes "START 4 CH" on the page.
    await until(async () => (await snapshot('web:web-15', 'key8')) !== before, 'the sync key to count four');
    await shot('sync-keys');
    for (const index of [...group, 12]) await f.sim.client.syncOff(index);
  });

  it('the dialog overlay shows the whole question at once on its free keys; a folded 32-key deck keeps OK and Cancel side by side; Cancel on the page answers', async () => {
    const { client } = f.sim;
    for (const index of [4, 5, 6]) await client.recStart(index);
    await client.setChannelCount(4);
    expect((await client.getDialog()).DialogContent).toBe('Channels 5, 6 and 7 are recording. Stop them and change the grid to 4 channels?');
    await until(() => f.running.bridge.session('web:web-15')?.currentPage.name === 'Dialog', 'the overlay on the 15-key deck');
    const shares = (f.running.bridge.session('web:web-15')?.describeControls() ?? []).filter((c) => c.picture.kind === 'dialog' && c.picture.role === 'message');
    expect(shares.map((c) => (c.picture as DialogPicture).slots)).toEqual(Array(13).fill(13));
    // The first keys carry words of the question, each its own share: their canvases all differ.
    const firstKeys = shares.slice(0, 3).map((c) => c.control.id);
    await until(async () => new Set(await Promise.all(firstKeys.map((id) => snapshot('web:web-15', id)))).size === 3, 'three keys of words');
    await shot('dialog-overlay');
    // Folded on a phone (8 across become 4), the 32-key deck keeps OK and Cancel side by side in a row.
    await bringUp('web:web-32');
    await until(() => f.running.bridge.session('web:web-32')?.currentPage.name === 'Dialog', 'the overlay on the 32-key deck');
    expect([pictureOf('web:web-32', 'key18'), pictureOf('web:web-32', 'key19')]).toMatchObject([{ kind: 'dialog', role: 'ok' }, { kind: 'dialog', role: 'cancel' }]);
    const [ok, cancel] = [await key('web:web-32', 'key18').boundingBox(), await key('web:web-32', 'key19').boundingBox()];
    expect(ok && cancel && Math.abs(ok.y - cancel.y) < 1 && cancel.x > ok.x && cancel.x - (ok.x + ok.width) < 16).toBe(true);
    if (isMobile) expect(await page.evaluate(() => document.querySelector('.deck.picked .keys')?.style.gridTemplateColumns)).toMatch(/^repeat\(4, /);
    await shot('dialog-overlay-32', deck('web:web-32'));
    // Answered from the page: Cancel drops the grid change, the channels go on recording.
    await tap('web:web-32', 'key19');
    await until(async () => (await client.getDialog()).IsDialog === false, 'the dialog answered');
    expect(f.sim.sim.recorder().channels()[4]?.IsRecording).toBe(true);
    for (const index of [4, 5, 6]) await client.recStop(index);
  }, 30_000);

  it('a dial turns by a finger dragged along it, in the drag\'s direction and as far; a tap presses it; the page does not scroll under it', async () => {
    await bringUp('web:web-plus');
    const surface = f.running.webSurfaces.find((w) => w.id === 'web:web-plus');
    if (!surface) throw new Error('no web-plus deck');
    const inputs: SurfaceInput[] = [];
    const subscription = surface.input.subscribe((input) => inputs.push(input));
    const dial = page.locator('.dial[data-surface="web:web-plus"][data-control="dial0"]');
    const turned = () => inputs.reduce((sum, input) => sum + (input.type === 'rotate' ? input.amount : 0), 0);
    const drag = async (dx: number, dy: number) => {
      const start = await middle(dial);
      const scrolled = await page.evaluate(() => window.scrollY);
      inputs.length = 0;
      await touch('touchStart', start);
      // 10 px a move: the first is already past the slop, so the finger is taken for a drag at once.
      const steps = Math.max(Math.abs(dx), Math.abs(dy)) / 10;
      for (let step = 1; step <= steps; step++) await touch('touchMove', { x: start.x + (dx * step) / steps, y: start.y + (dy * step) / steps });
      await touch('touchEnd');
      // 12 px a detent: up and right turn clockwise.
      const detents = Math.trunc((Math.abs(dx) >= Math.abs(dy) ? dx : -dy) / 12);
      await until(() => turned() === detents, `${detents} detents from a drag of ${dx},${dy}`);
      expect(inputs.every((input) => input.type === 'rotate')).toBe(true);
      expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    };
    const gain = () => f.sim.sim.recorder().project.sources.find((s) => s.Name === 'Cam 1')?.AudioGain ?? 0;
    const before = gain();
    await drag(0, -60);
    await until(() => gain() > before, 'the gain of channel 1 to go up');
    await drag(40, 0);
    await drag(0, 30);
    // A tap on the dial presses it (it selects its channel on this deck).
    inputs.length = 0;
    const at = await middle(dial);
    await page.touchscreen.tap(at.x, at.y);
    await until(() => inputs.some((input) => input.type === 'up'), 'the tap to reach the dial');
    expect(inputs.map((input) => input.type)).toEqual(['down', 'up']);
    // A swipe that starts on a key still scrolls the page, and turns nothing.
    inputs.length = 0;
    await page.evaluate(() => window.scrollTo(0, 0));
    const from = await centre('web:web-plus', 'key4');
    await touch('touchStart', from);
    for (let dy = 10; dy <= 200; dy += 10) await touch('touchMove', { x: from.x, y: from.y - dy });
    await touch('touchEnd');
    if (isMobile) await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 3000 }).toBeGreaterThan(0);
    expect(turned()).toBe(0);
    subscription.unsubscribe();
    await shot('plus', deck('web:web-plus'));
  }, 30_000);

  it('a dropped link shows NO LINK on every deck at once, and clears when the link is back', async () => {
    if (isMobile) await pick('web:web-32');
    const noLink = page.locator('.deck:visible .no-link');
    expect(await noLink.first().isVisible()).toBe(false);
    linkAllowed = false;
    for (const link of links.splice(0)) await link.close({ code: 4001, reason: 'the test cut the link' });
    await expect.poll(() => noLink.first().isVisible(), { timeout: 3000 }).toBe(true);
    expect(await noLink.first().textContent()).toContain('NO LINK');
    const visibleDecks = await page.locator('.deck:visible').count();
    expect(await page.locator('.deck:visible .no-link:visible').count()).toBe(visibleDecks);
    linkAllowed = true;
    await expect.poll(() => noLink.first().isVisible(), { timeout: 8000 }).toBe(false);
    expect(links.length).toBe(1);
    // The decks were sent afresh; the phone still shows the deck it had picked.
    if (isMobile) expect(await page.locator('.deck:visible').getAttribute('data-surface')).toBe('web:web-32');
  }, 15_000);
});
