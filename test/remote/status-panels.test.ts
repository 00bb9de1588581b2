// e2e because the panels are the page's own drawing in a browser, at two sizes: only Debian's chromium
// shows them. The page's status panels in that browser, at desk size (1280x800) and on a phone (390x844):
// what they say is as true as the keys. A take's clock freezes beside its age as on its key while the
// recorder is away, every panel says NO LINK while the page's link is down (and comes back with it), and
// profiles that tie for a surface are named in its row. The bridge runs on virtual time, so the ages the
// page shows are exact; the page itself is waited on with bounded polls.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import { parseTestProfile } from '../support/bridge.js';
import { PAGE_POLL, connectChromium, screenshot, untilPage } from '../support/chromium.js';
import { cuttableLink, type CuttableLink } from '../support/cuttable-link.js';
import { TEST_MS, WAIT_MS } from '../support/remote.js';
import { until } from '../support/until.js';
import { startVirtualRemote, type VirtualRemote } from '../support/virtual-remote.js';

const PROFILE = (name: string) => `name: ${name}\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 }, press: { action: rec-start, channel: 1 } }\n      key1: { show: { channel: 2 } }\n      key2: { show: status }\n`;

const SIZES = [
  { name: 'desk', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
] as const;

// The run's browser for both sizes; each size has a bridge of its own (on virtual time, so it starts at
// once) and a context of its own, and the two sizes run at once (describe.concurrent; the tests of one
// size run in order, it.sequential): much of a size's time is waiting for its page, which the other
// size's tests use.
let browser: Browser;

beforeAll(async () => {
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
}, TEST_MS);

describe.concurrent.each(SIZES)('the status panels at $name size ($viewport.width x $viewport.height)', { timeout: TEST_MS }, ({ name, viewport, isMobile }) => {
  let r: VirtualRemote;
  let context: BrowserContext;
  let page: Page;
  /** The page's way to the bridge, which the test can cut and keep down. */
  let link: CuttableLink;

  beforeAll(async () => {
    r = await startVirtualRemote({ profile: PROFILE('Studio') });
    await r.f.advance(1000);
    context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile });
    page = await context.newPage();
    link = await cuttableLink(r.server.url);
    await page.goto(link.url);
    await until(() => r.server.webClients() === 1, 'the page to connect', WAIT_MS);
    await untilPage(async () => (await badge().textContent()) === 'LIVE', 'the recorder shown live', WAIT_MS);
  }, TEST_MS);

  afterAll(async () => {
    await context?.close();
    await link?.close();
    await r?.close();
  }, TEST_MS);

  const badge = () => page.locator('#recorders .badge').first();
  const row = (channel: number) => page.locator(`#channels tr[data-channel="${channel}"]`);
  const pictureOf = (control: string): Picture | undefined => r.f.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === control)?.picture;
  /** Screenshots to be looked at go to RECDECK_PANEL_SHOTS when it names a folder; the README's own are renewed elsewhere. */
  const shot = (what: string) => screenshot('RECDECK_PANEL_SHOTS', `recdeck-panels-${name}-${what}.png`, (path) => page.screenshot({ path, fullPage: true }));

  it.sequential("a take's clock freezes beside its age while the recorder is away, exactly as on its key", async ({ expect }) => {
    await r.f.client.recStart(0);
    await r.f.advance(5000);
    await expect.poll(() => row(1).locator('td.take').textContent(), PAGE_POLL).toBe('00:00:05');
    r.f.sim.faults.set([{ kind: 'reset', path: '/api', probability: 1, latencyMs: 0, status: 500 }]);
    await r.f.until(() => (pictureOf('key0') as { state?: string }).state === 'offline', 'the key to show offline', 10_000);
    for (const later of [8000, 5000]) {
      await r.f.advance(later);
      const key = pictureOf('key0') as { state: string; durationS: number; ageS: number };
      expect(key).toMatchObject({ state: 'offline', durationS: 5 });
      await expect.poll(() => row(1).locator('td.take').textContent(), PAGE_POLL).toBe(`00:00:05 · ${key.ageS}s old`);
      expect(await row(1).locator('td.state').textContent()).toBe('offline');
      expect(await badge().textContent()).toBe('OFFLINE');
    }
    await row(1).scrollIntoViewIfNeeded();
    await shot('offline');
    r.f.sim.faults.set([]);
    await r.f.until(() => (pictureOf('key0') as { state?: string }).state === 'recording', 'the key live again', 10_000);
    await r.f.advance(200); // the keys' next frames draw it
    await expect.poll(() => badge().textContent(), PAGE_POLL).toBe('LIVE');
    await expect.poll(() => row(1).locator('td.take').textContent(), PAGE_POLL).toMatch(/^00:00:\d\d$/);
  });

  it.sequential('a dropped link: every panel says NO LINK, not only the decks, and all come back with the link', async ({ expect }) => {
    const banners = page.locator('#status .panel-no-link');
    const panels = await page.locator('#status > section').count();
    expect(panels).toBe(4);
    expect(await banners.first().isVisible()).toBe(false);
    const placed = await page.locator('#status').boundingBox();
    link.cut();
    try {
      await expect.poll(() => page.locator('#status .panel-no-link:visible').count(), PAGE_POLL).toBe(panels);
      for (const text of await banners.allTextContents()) expect(text).toContain('NO LINK');
      // What claimed to be the recorder's state now says NO LINK instead: the badges and each channel's state.
      expect(await page.locator('#recorders .badge').allTextContents()).toEqual(['NO LINK']);
      expect(new Set(await page.locator('#channels td.state').allTextContents())).toEqual(new Set(['no link']));
      expect(await page.locator('.deck:visible .no-link:visible').count()).toBe(await page.locator('.deck:visible').count());
      // The panels stay where they were, the banners inside them.
      const unlinked = await page.locator('#status').boundingBox();
      expect([unlinked?.x, unlinked?.width]).toEqual([placed?.x, placed?.width]);
      for (const section of await page.locator('#status > section').all()) {
        const [box, banner] = [await section.boundingBox(), await section.locator('.panel-no-link').boundingBox()];
        expect(box && banner && banner.y > box.y && banner.y + banner.height < box.y + box.height).toBe(true);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot('no-link');
    } finally {
      link.restore(); // a failure above must not leave the next test's page without its link
    }

    await expect.poll(() => badge().textContent(), PAGE_POLL).toBe('LIVE');
    await expect.poll(() => page.locator('#status .panel-no-link:visible').count(), PAGE_POLL).toBe(0);
    expect(await row(1).locator('td.state').textContent()).toBe('recording');
    expect(await page.locator('.deck .no-link:visible').count()).toBe(0);
  });

  it.sequential("profiles that fit a surface equally: its row names the one in use and the others", async ({ expect }) => {
    r.f.bridge.setProfiles([parseTestProfile(PROFILE('Studio'), '/etc/recdeck/studio.yaml'), parseTestProfile(PROFILE('Studio (backup copy)'), '/etc/recdeck/studio-copy.yaml')]);
    const surfaceRow = page.locator('#surfaces li[data-surface="memory:test"]');
    await expect.poll(() => surfaceRow.locator('.tie').textContent(), PAGE_POLL).toBe('Profile tie: /etc/recdeck/studio-copy.yaml is in use; /etc/recdeck/studio.yaml fits as well and lost by file name only');
    expect(await surfaceRow.textContent()).toContain('Studio (backup copy)');
    await surfaceRow.scrollIntoViewIfNeeded();
    await shot('tie');
  });
});

declare const window: { scrollTo(x: number, y: number): void };
