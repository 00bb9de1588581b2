// e2e because what a page has in view is the browser's (its viewport, scrolling, a hidden tab): only
// Debian's chromium shows it. The decks a page has in view, in that browser: a phone views the deck it
// picked, a desk page the decks on screen, a hidden tab none. Only the decks some page views are drawn
// and fed previews, and a deck that comes into view shows what is true now, not what it showed when it
// left.
import { firstValueFrom } from 'rxjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSurface } from '../../src/surfaces/web/web-surface.js';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { PAGE_POLL, connectChromium, untilPage } from '../support/chromium.js';

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
declare const document: {
  querySelector(selector: string): { value: string; dispatchEvent(event: unknown): void; toDataURL(): string } | null;
  createElement(tag: 'canvas'): { width: number; height: number; toDataURL(): string };
  dispatchEvent(event: unknown): void;
};
declare class Event {
  constructor(type: string);
}


let f: RemoteFixture;
let browser: Browser;

beforeAll(async () => {
  // Still previews: what is checked is which decks are viewed (watched$) and a channel key's drawing; a
  // moving preview would be fetched, decoded, drawn and sent every second for each preview key in view.
  // Polled every 500 ms: the channel table is waited on, and no check is about how fresh it is.
  f = await startRemoteFixture({ pollMs: 500, stillPreviews: true });
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
  await f?.close();
}, TEST_MS);

const surface = (id: string): WebSurface => {
  const found = f.running.webSurfaces().find((w) => w.id === id);
  if (!found) throw new Error(`no web deck ${id}`);
  return found;
};
const watched = (id: string): Promise<boolean> => firstValueFrom(surface(id).watched$);
const watchedSet = async (): Promise<string[]> => {
  const ids: string[] = [];
  for (const web of f.running.webSurfaces()) if (await watched(web.id)) ids.push(web.id);
  return ids.sort();
};
/** Waits for the page's channel table to show a channel (1-based) in a state. */
const channelRow = (page: Page, channel: number, state: string) => expect.poll(() => page.locator(`#channels tr[data-channel="${channel}"]`).getAttribute('class'), PAGE_POLL).toBe(state);
const keyImage = (page: Page, id: string, control: string) =>
  page.evaluate(({ id, control }) => document.querySelector(`canvas[data-surface="${id}"][data-control="${control}"]`)?.toDataURL() ?? '', { id, control });

async function open(viewport: { width: number; height: number }, isMobile: boolean): Promise<Page> {
  const context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile });
  const page = await context.newPage();
  await page.goto(f.base);
  await until(() => f.running.remote?.webClients() === 1, 'the page to connect', WAIT_MS);
  return page;
}

describe('the decks a page has in view', { timeout: TEST_MS }, () => {
  it('a phone views only the deck it picked; picking another moves the drawing there; a hidden tab views none', async () => {
    const page = await open({ width: 390, height: 844 }, true);
    try {
      await expect.poll(watchedSet, { timeout: WAIT_MS }).toEqual(['web:web-15']);
      await page.selectOption('#deck-picker', 'web:web-32');
      await expect.poll(watchedSet, { timeout: WAIT_MS }).toEqual(['web:web-32']);
      await page.evaluate(() => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await expect.poll(watchedSet, { timeout: WAIT_MS }).toEqual([]);
    } finally {
      await page.context().close();
    }
    await until(() => f.running.remote?.webClients() === 0, 'the page gone', WAIT_MS);
  });

  it('a desk page views the decks on screen; a deck scrolled back into view shows the state of now', async () => {
    // Short enough that the decks below the first are off screen until scrolled to.
    const page = await open({ width: 1280, height: 420 }, false);
    // A key's canvas before any image: blank at its size.
    const blank = await page.evaluate(() => {
      const canvas = document.createElement('canvas');
      canvas.width = 96;
      canvas.height = 96;
      return canvas.toDataURL();
    });
    try {
      // Until the page says, every deck counts as viewed: then the top one only, not the last one far below.
      await expect.poll(async () => { const set = await watchedSet(); return set.includes('web:web-15') && !set.includes('web:web-plus'); }, { timeout: WAIT_MS }).toBe(true);
      await untilPage(async () => (await keyImage(page, 'web:web-15', 'key0')) !== blank, 'the key drawn', WAIT_MS);
      await page.locator('.deck[data-surface="web:web-plus"]').scrollIntoViewIfNeeded();
      // Whatever else shows at this scroll position, the 15-key deck at the top does not.
      await expect.poll(async () => (await watchedSet()).includes('web:web-15'), { timeout: WAIT_MS }).toBe(false);
      expect(await watchedSet()).toContain('web:web-plus');
      // Frames already on their way land before anything the bridge sends after the view changed: a take
      // on channel 16 (no key of web-15 shows it) reaches the page's channel table after them.
      await f.sim.client.recStart(15);
      await channelRow(page, 16, 'recording');
      const before = await keyImage(page, 'web:web-15', 'key0');

      // Channel 1 starts recording while its web-15 key is off screen: that deck is not drawn meanwhile.
      await f.sim.client.recStart(0);
      // Its key image would have been sent before the state that the channel table shows (pushed at most every 250 ms).
      await channelRow(page, 1, 'recording');
      expect(await keyImage(page, 'web:web-15', 'key0')).toBe(before);

      await page.locator('.deck[data-surface="web:web-15"]').scrollIntoViewIfNeeded();
      await expect.poll(watchedSet, { timeout: WAIT_MS }).toContain('web:web-15');
      await untilPage(async () => (await keyImage(page, 'web:web-15', 'key0')) !== before, 'the key to show the recording', WAIT_MS);
    } finally {
      await page.context().close();
    }
  });
});
