// e2e because the browser's own touch handling is the part (its scrolling, pointercancel, a phone's
// layout): only Debian's chromium shows it. The web deck on a phone (390x844, touch) and at desk size
// (1280x800, a touch screen too), in Debian's chromium: no sideways scrolling, keys big enough for a
// finger, a swipe that starts on a key scrolls and sends nothing, a tap records, a hold by touch stops,
// and a dropped link says NO LINK at once. Touches are real browser touches (CDP
// Input.dispatchTouchEvent), so the browser's own scrolling and pointercancel are part of what is tested.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { PAGE_POLL, connectChromium, openDeckPage, screenshot } from '../support/chromium.js';
import { cuttableLink, type CuttableLink } from '../support/cuttable-link.js';
import { touchScreen } from '../support/touch-screen.js';

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
interface Box {
  left: number;
  right: number;
  top: number;
  width: number;
}
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(selector: string): unknown;
  querySelectorAll(selector: string): Iterable<{ getBoundingClientRect(): Box }>;
};
declare const window: { scrollY: number; scrollTo(x: number, y: number): void };

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, readmePicture: 'web-deck-phone.png' },
  { name: 'desk', viewport: { width: 1280, height: 800 }, isMobile: false, readmePicture: null },
] as const;

// The run's browser for both sizes; each size has a bridge, a link to it, a context and a page of its
// own, and the two sizes run at once (describe.concurrent; the tests of one size run in order,
// it.sequential): much of a size's time is the bridge's own clock (a hold of a second, a page's
// reconnect after a second), which the other size's tests use.
let browser: Browser;

beforeAll(async () => {
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
}, TEST_MS);

describe.concurrent.each(SIZES)('the web deck at $name size ($viewport.width x $viewport.height), by touch', { timeout: TEST_MS }, ({ viewport, isMobile, readmePicture }) => {
  let f: RemoteFixture;
  /** The page's way to the bridge, which the test can cut and keep down. */
  let link: CuttableLink;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;

  beforeAll(async () => {
    // Polled every 500 ms: what is checked is the page's touches and what they send, and the recorder's own
    // state (the simulator's), never how fresh the bridge's copy is; a poll costs both sides' CPU for as
    // long as the file runs.
    f = await startRemoteFixture({ pollMs: 500, stillPreviews: true });
    link = await cuttableLink(f.base);
    context = await browser.newContext({ viewport, isMobile, hasTouch: true });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await openDeckPage(page, f, link.url);
  }, TEST_MS);

  afterAll(async () => {
    await context?.close();
    await link?.close();
    await f?.close();
  }, TEST_MS);

  const { centre, touch, pick } = touchScreen(() => page, () => cdp);
  const writes = () => f.sim.sim.log.list().filter((r) => r.method !== 'GET');
  /** How far the hold ring on a key has filled (0 when not held), as the bridge draws it. */
  const holdOf = (control: string) =>
    (f.running.bridge.session('web:web-15')?.describeControls().find((c) => c.control.id === control)?.picture as { overlay?: { hold?: number } } | undefined)?.overlay?.hold ?? 0;
  /**
   * Watches for the hold ring on a control from the moment a touch that presses it is sent, and then does
   * what comes next (if anything), without waiting for the browser's answer to the touch first. That
   * answer comes back through the run's playwright server, in the vitest main process, and under load
   * it can come after the whole 1 s hold: busy loops beside chromium throttled 12x, 2026-11-28, the page
   * pressed key2 and the bridge began the hold 1.3 s after the touch was sent, but the answer came 6.2 s
   * later still, the channel stopped by then; a ring looked for only after the answer was never seen.
   * The ring is the bridge's, checked in this process: looked for every 20 ms from before the press, it
   * cannot be missed (the bridge's hold timer, 1 s out, never runs before the next look).
   */
  const heldFrom = async (touching: Promise<unknown>, control: string, then?: () => Promise<unknown>) => {
    const held = until(() => holdOf(control) > 0, `the hold ring on ${control}`, WAIT_MS).then(then);
    await Promise.all([touching, held]);
  };
  const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it.sequential('fits the width: no sideways scroll, keys of at least 56 px, one deck filling a phone', async ({ expect }) => {
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

  it.sequential('a swipe that starts on a key scrolls the page and sends nothing', async ({ expect }) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const before = writes().length;
    const start = await centre('web:web-15', 'key0');
    // The finger's moves follow its touch without waiting for the browser's answer to each (they stay in
    // order on the CDP session): those answers come back through the run's playwright server, and under
    // load a finger that waited for them rested on the key past the page's 150 ms and the bridge's 1 s
    // hold, and the swipe stopped channel 1.
    const moves = Array.from({ length: 20 }, (_, i) => ({ x: start.x, y: start.y - 10 * (i + 1) }));
    await Promise.all([touch('touchStart', start), ...moves.map((at) => touch('touchMove', at))]);
    await touch('touchEnd');
    await expect.poll(() => page.evaluate(() => window.scrollY), PAGE_POLL).toBeGreaterThan(50);
    // Whatever the swipe sent would reach the bridge before the tap below: the tap's request is the first write.
    const key1 = await centre('web:web-15', 'key1');
    await page.touchscreen.tap(key1.x, key1.y);
    await until(() => writes().length > before, 'the tap on key1 to reach the recorder', WAIT_MS);
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/1/rec-start']);
    expect(f.sim.sim.recorder().channels()[0]?.IsRecording).toBe(false);
  });

  it.sequential('a tap records, and the audit log says it in the operator\'s words', async ({ expect }) => {
    const before = writes().length;
    const at = await centre('web:web-15', 'key0');
    await page.touchscreen.tap(at.x, at.y);
    await until(() => writes().length > before, 'the tap on key0 to reach the recorder', WAIT_MS);
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/0/rec-start']);
    const entry = page.locator('#audit li').first();
    await expect.poll(() => entry.textContent(), PAGE_POLL).toContain('CH 1 rec-start');
    expect(await entry.textContent()).toContain('PUT /api/channels/0/rec-start');
    // Nothing of the log is cut off at the side: its lines wrap within the panel.
    expect(await page.evaluate(() => { const log = document.querySelector('#audit') as unknown as { scrollWidth: number; clientWidth: number }; return log.scrollWidth <= log.clientWidth; })).toBe(true);
    if (readmePicture) {
      // The README's picture of the page on a phone (RECDECK_SCREENSHOTS=test/screenshots to refresh it).
      await screenshot('RECDECK_SCREENSHOTS', readmePicture, async (path) => {
        await expect.poll(() => page.locator('#channels tr[data-channel="1"] td.state').textContent(), PAGE_POLL).toBe('recording');
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path });
      });
    }
  });

  it.sequential('a hold by touch shows the ring, then stops the channel', async ({ expect }) => {
    await until(() => f.sim.sim.recorder().channels()[0]?.IsRecording === true, 'channel 1 to record', WAIT_MS);
    const before = writes().length;
    const at = await centre('web:web-15', 'key0');
    expect(holdOf('key0')).toBe(0);
    // The ring is looked for from the moment the finger goes down, not from the browser's answer (heldFrom).
    // The finger is lifted whatever happens: one left down spoils the next test's touches (a failed key0
    // hold that left it down made the key2 hold below fail too).
    try {
      await heldFrom(touch('touchStart', at), 'key0');
      await until(() => writes().length > before, 'the stop', WAIT_MS);
    } finally {
      await touch('touchEnd');
    }
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/0/rec-stop']);
  });

  it.sequential('a hold that then moves lets the key go without firing', async ({ expect }) => {
    const before = writes().length;
    const at = await centre('web:web-15', 'key2');
    expect(holdOf('key2')).toBe(0);
    // The finger moves as soon as the ring shows, without waiting for the browser's answer to the touch
    // (see heldFrom): the move must reach the page within the 1 s hold, and that answer alone can take longer.
    try {
      await heldFrom(touch('touchStart', at), 'key2', () => touch('touchMove', { x: at.x + 40, y: at.y }));
      await until(() => holdOf('key2') === 0, 'key2 to be let go', WAIT_MS);
    } finally {
      await touch('touchEnd');
    }
    // Had it been held on, its hold would stop channel 3 and its release start it: neither happens.
    const key3 = await centre('web:web-15', 'key3');
    await page.touchscreen.tap(key3.x, key3.y);
    await until(() => writes().length > before, 'the tap on key3', WAIT_MS);
    expect(writes().slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/channels/3/rec-start']);
    expect(f.sim.sim.recorder().channels()[2]?.IsRecording).toBe(false);
  });

  it.sequential('a dropped link shows NO LINK on every deck at once, and clears when the link is back', async ({ expect }) => {
    if (isMobile) await pick('web:web-32');
    const noLink = page.locator('.deck:visible .no-link');
    expect(await noLink.first().isVisible()).toBe(false);
    link.cut();
    try {
      await expect.poll(() => noLink.first().isVisible(), PAGE_POLL).toBe(true);
      expect(await noLink.first().textContent()).toContain('NO LINK');
      const visibleDecks = await page.locator('.deck:visible').count();
      expect(await page.locator('.deck:visible .no-link:visible').count()).toBe(visibleDecks);
    } finally {
      link.restore(); // a failure above must not leave the link down for what follows
    }
    await expect.poll(() => noLink.first().isVisible(), PAGE_POLL).toBe(false);
    // One link again, not one per attempt made while it was down.
    expect(f.running.remote?.webClients()).toBe(1);
    // The decks were sent afresh; the phone still shows the deck it had picked.
    if (isMobile) expect(await page.locator('.deck:visible').getAttribute('data-surface')).toBe('web:web-32');
  });
});
