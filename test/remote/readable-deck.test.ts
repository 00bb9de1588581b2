// e2e because what is checked is what the page's canvases show and what real touches on them do: only
// Debian's chromium shows it. What an operator must read on the web deck, in Debian's chromium at desk
// size (1280x800) and on a phone (390x844), both touch screens (issue 20, item 8): a failed key pages its
// whole reason, the sync keys count the InSync group, the dialog overlay spreads the recorder's question
// over its free keys and is answered from the page, a folded 32-key deck keeps OK and Cancel side by
// side, and a dial turns by a finger dragged along it. Touches are real browser touches
// (test/support/touch-screen.ts). Screenshots go to RECDECK_READABLE_SHOTS when it names a folder. The
// page's link is not routed through the test here: what the canvases show is compared with what the
// bridge drew.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DialogPicture, Picture } from '../../src/engine/picture.js';
import type { SurfaceInput } from '../../src/engine/surface.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { PAGE_POLL, connectChromium, openDeckPage, screenshot, untilPage } from '../support/chromium.js';
import { touchScreen } from '../support/touch-screen.js';

// The page's own module, as the browser loads it (a computed name: it is plain JS beside the page).
const { DIAL_HOLD_AFTER_MS } = (await import(new URL('../../src/remote/page/deck-press.js', import.meta.url).href)) as { DIAL_HOLD_AFTER_MS: number };

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
declare const document: { querySelector(selector: string): { toDataURL(): string; style: { gridTemplateColumns: string } } | null };
declare const window: { scrollY: number; scrollTo(x: number, y: number): void };

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { name: 'desk', viewport: { width: 1280, height: 800 }, isMobile: false },
] as const;

// The run's browser for both sizes; each size has a bridge, a context and a page of its own, and the two
// sizes run at once (describe.concurrent; the tests of one size run in order, it.sequential): much of a
// size's time is the bridge's own clock (a failed key reads for 4 s), which the other size's tests use.
// Every test below puts back what it changed on its size's recorder.
let browser: Browser;

beforeAll(async () => {
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
}, TEST_MS);

describe.concurrent.each(SIZES)('the web deck at $name size ($viewport.width x $viewport.height): what must be read reads whole', { timeout: TEST_MS }, ({ name, viewport, isMobile }) => {
  let f: RemoteFixture;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;

  beforeAll(async () => {
    // Polled every 500 ms: what is checked is what the keys show once the bridge has read a change (waited
    // for), never how soon; a poll costs both sides' CPU for as long as the file runs.
    f = await startRemoteFixture({ pollMs: 500, stillPreviews: true });
    context = await browser.newContext({ viewport, isMobile, hasTouch: true });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await openDeckPage(page, f);
  }, TEST_MS);

  afterAll(async () => {
    await context?.close();
    await f?.close();
  }, TEST_MS);

  /** The end of the failed key's flash, waited for after the test that follows it (set by the failed key's test). */
  let flashOver = (): Promise<void> => Promise.reject(new Error('the failed key\'s test did not run'));
  const { key, middle, centre, touch, pick } = touchScreen(() => page, () => cdp);
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
  const shot = (what: string, locator = deck('web:web-15')) => screenshot('RECDECK_READABLE_SHOTS', `${name}-${what}.png`, (path) => locator.screenshot({ path }));

  it.sequential('a failed key shows its whole reason, a page at a time', async ({ expect }) => {
    await bringUp('web:web-15');
    // key9 pauses the sync take; nothing records in sync, so the recorder refuses.
    await tap('web:web-15', 'key9');
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.flash === 'failed', 'the failure on key9', WAIT_MS);
    expect(pictureOf('web:web-15', 'key9')?.overlay?.reason).toBe('Synchronous recording is not running; there is nothing to pause');
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.reasonPage === 0, 'its first page', WAIT_MS);
    const first = await snapshot('web:web-15', 'key9');
    await shot('failed-reason-page-1');
    // The next page comes while the key still flashes: the canvas shows other words.
    await until(() => pictureOf('web:web-15', 'key9')?.overlay?.reasonPage === 1, 'its second page', WAIT_MS);
    await untilPage(async () => (await snapshot('web:web-15', 'key9')) !== first, 'the second page on the canvas', WAIT_MS);
    await shot('failed-reason-page-2');
    // That the flash ends once read is checked after the next test (which does not touch key9), so that
    // its last page is read meanwhile instead of waited for.
    flashOver = () => until(() => pictureOf('web:web-15', 'key9')?.overlay === undefined, 'the flash on key9 to end', WAIT_MS);
  });

  it.sequential('the sync keys count the InSync group they act on', async ({ expect }) => {
    const group = [9, 10, 11];
    const { footer } = stateTileLayout({ width: 96, height: 96 });
    const rows = { y: Math.round(footer.y), height: Math.round(footer.height) };
    /** The footer rows of key8's image, as the bridge drew it and as the page shows it (RGB). */
    const drawn = () => {
      const image = f.running.webSurfaces().find((w) => w.id === 'web:web-15')?.output.shown().images.get('key8');
      return image ? [...image.data.subarray(rows.y * 96 * 3, (rows.y + rows.height) * 96 * 3)].join(',') : '';
    };
    const shown = () =>
      page.evaluate(({ y, height }) => {
        const canvas = document.querySelector('canvas[data-surface="web:web-15"][data-control="key8"]') as unknown as { getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
        return [...canvas.getContext('2d').getImageData(0, y, 96, height).data].filter((_, i) => i % 4 !== 3).join(',');
      }, rows);
    const members = () => {
      const picture = pictureOf('web:web-15', 'key8');
      return picture?.kind === 'sync' ? picture.members.length : -1;
    };
    for (const index of group) await f.sim.client.syncOn(index);
    await untilPage(async () => members() === 3 && (await shown()) === drawn(), 'three channels in sync, on the page', WAIT_MS);
    const three = await shown();
    await f.sim.client.syncOn(12);
    // The picture is derived on asking; the key is drawn from it a moment later (changes coalesce): waited
    // for until the drawing differs too, and the page shows it.
    await untilPage(async () => members() === 4 && drawn() !== three && (await shown()) === drawn(), 'four channels in sync, drawn and on the page', WAIT_MS);
    // "START 3 CH" became "START 4 CH" on the page.
    expect(await shown()).not.toBe(three);
    await shot('sync-keys');
    for (const index of [...group, 12]) await f.sim.client.syncOff(index);
    await flashOver();
  });

  it.sequential('the dialog overlay shows the whole question at once on its free keys; a folded 32-key deck keeps OK and Cancel side by side; Cancel on the page answers', async ({ expect }) => {
    const { client } = f.sim;
    for (const index of [4, 5, 6]) await client.recStart(index);
    await client.setChannelCount(4);
    expect((await client.getDialog()).DialogContent).toBe('Channels 5, 6 and 7 are recording. Stop them and change the grid to 4 channels?');
    await until(() => f.running.bridge.session('web:web-15')?.currentPage.name === 'Dialog', 'the overlay on the 15-key deck', WAIT_MS);
    const shares = (f.running.bridge.session('web:web-15')?.describeControls() ?? []).filter((c) => c.picture.kind === 'dialog' && c.picture.role === 'message');
    expect(shares.map((c) => (c.picture as DialogPicture).slots)).toEqual(Array(13).fill(13));
    // The first keys carry words of the question, each its own share: their canvases all differ.
    const firstKeys = shares.slice(0, 3).map((c) => c.control.id);
    await untilPage(async () => new Set(await Promise.all(firstKeys.map((id) => snapshot('web:web-15', id)))).size === 3, 'three keys of words', WAIT_MS);
    await shot('dialog-overlay');
    // Folded on a phone (8 across become 4), the 32-key deck keeps OK and Cancel side by side in a row.
    await bringUp('web:web-32');
    await until(() => f.running.bridge.session('web:web-32')?.currentPage.name === 'Dialog', 'the overlay on the 32-key deck', WAIT_MS);
    expect([pictureOf('web:web-32', 'key18'), pictureOf('web:web-32', 'key19')]).toMatchObject([{ kind: 'dialog', role: 'ok' }, { kind: 'dialog', role: 'cancel' }]);
    const [ok, cancel] = [await key('web:web-32', 'key18').boundingBox(), await key('web:web-32', 'key19').boundingBox()];
    expect(ok && cancel && Math.abs(ok.y - cancel.y) < 1 && cancel.x > ok.x && cancel.x - (ok.x + ok.width) < 16).toBe(true);
    if (isMobile) expect(await page.evaluate(() => document.querySelector('.deck.picked .keys')?.style.gridTemplateColumns)).toMatch(/^repeat\(4, /);
    await shot('dialog-overlay-32', deck('web:web-32'));
    // Answered from the page: Cancel drops the grid change, the channels go on recording.
    await tap('web:web-32', 'key19');
    await until(async () => (await client.getDialog()).IsDialog === false, 'the dialog answered', WAIT_MS);
    expect(f.sim.sim.recorder().channels()[4]?.IsRecording).toBe(true);
    for (const index of [4, 5, 6]) await client.recStop(index);
  });

  it.sequential('a dial turns by a finger dragged along it, in the drag\'s direction and as far; a tap presses it; the page does not scroll under it', async ({ expect, onTestFailed }) => {
    // Beside a second suite this test ran out of its 60 s, saying nothing (paired runs 99, 100): each step
    // is stamped, and a failure (the timeout too) prints the last of them.
    const testBegan = performance.now();
    const steps: string[] = [];
    const step = (what: string) => void steps.push(`${Math.round(performance.now() - testBegan)} ms ${what}`);
    onTestFailed(() => console.log(`readable-deck's dial test at ${name} size, its last steps: ${steps.slice(-12).join('; ')}`));
    step('bring up web-plus');
    await bringUp('web:web-plus');
    const surface = f.running.webSurfaces().find((w) => w.id === 'web:web-plus');
    if (!surface) throw new Error('no web-plus deck');
    const inputs: SurfaceInput[] = [];
    const subscription = surface.input.subscribe((input) => inputs.push(input));
    const dial = page.locator('.dial[data-surface="web:web-plus"][data-control="dial0"]');
    const turned = () => inputs.reduce((sum, input) => sum + (input.type === 'rotate' ? input.amount : 0), 0);
    /**
     * A drag, made again while the browser gave its first move to the page only after the hold had begun
     * (at most DRAGS times in all). Unbounded, a browser that stayed that slow (two suites beside each other,
     * paired run 86) made drag after drag until the test's 60 s ran out, saying nothing. After DRAGS such
     * drags the test says so and stops: what follows (the gain stepped by a quick drag) cannot be checked
     * on a drag that began as a hold (taking the last one as given, paired run 97 then waited in vain for
     * the gain to go up).
     */
    const DRAGS = 3;
    const drag = async (dx: number, dy: number, made = 1): Promise<void> => {
      step(`drag ${dx},${dy} (${made}): the dial's middle`);
      const start = await middle(dial);
      const scrolled = await page.evaluate(() => window.scrollY);
      inputs.length = 0;
      const began = performance.now();
      // 10 px a move: the first is already past the slop, so the finger is taken for a drag at once. The
      // first move is sent with the touch, not after its answer: on a loaded machine one CDP round trip
      // can outlast DIAL_HOLD_AFTER_MS, and a drag that waited for it would never be a quick one.
      const moves = Math.max(Math.abs(dx), Math.abs(dy)) / 10;
      const at = (move: number) => ({ x: start.x + (dx * move) / moves, y: start.y + (dy * move) / moves });
      await Promise.all([touch('touchStart', start), touch('touchMove', at(1))]);
      const firstMoveMs = performance.now() - began;
      step(`first move sent and answered in ${Math.round(firstMoveMs)} ms`);
      for (let move = 2; move <= moves; move++) await touch('touchMove', at(move));
      await touch('touchEnd');
      step('touch ended');
      // 12 px a detent: up and right turn clockwise.
      const detents = Math.trunc((Math.abs(dx) >= Math.abs(dy) ? dx : -dy) / 12);
      await until(() => turned() === detents, `${detents} detents from a drag of ${dx},${dy}`, WAIT_MS);
      // A finger still on a dial for DIAL_HOLD_AFTER_MS presses it. A browser so busy that the first move
      // reached it that late (this is an upper bound of the page's gap) was not given the quick drag this
      // checks: the drag is made again.
      if (firstMoveMs >= DIAL_HOLD_AFTER_MS && inputs.some((input) => input.type !== 'rotate')) {
        await until(() => inputs.some((input) => input.type === 'up' || input.type === 'lost'), 'the held dial to be let go (up, or lost when the drag cancels it)', WAIT_MS);
        if (made < DRAGS) return drag(dx, dy, made + 1);
        throw new Error(`the browser gave the page the first move of each of ${DRAGS} drags of ${dx},${dy} after the dial's ${DIAL_HOLD_AFTER_MS} ms hold (the last ${Math.round(firstMoveMs)} ms after the touch): no quick drag to check`);
      }
      expect(inputs.every((input) => input.type === 'rotate')).toBe(true);
      expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    };
    const gain = () => f.sim.sim.recorder().project.sources.find((s) => s.Name === 'Cam 1')?.AudioGain ?? 0;
    const before = gain();
    await drag(0, -60);
    step('the gain of channel 1 to go up');
    await until(() => gain() > before, 'the gain of channel 1 to go up', WAIT_MS);
    await drag(40, 0);
    await drag(0, 30);
    // A tap on the dial presses it (it selects its channel on this deck).
    step('a tap on the dial');
    inputs.length = 0;
    const at = await middle(dial);
    await page.touchscreen.tap(at.x, at.y);
    await until(() => inputs.some((input) => input.type === 'up'), 'the tap to reach the dial', WAIT_MS);
    expect(inputs.map((input) => input.type)).toEqual(['down', 'up']);
    // A swipe that starts on a key still scrolls the page, and turns nothing.
    step('a swipe from key4');
    inputs.length = 0;
    await page.evaluate(() => window.scrollTo(0, 0));
    const from = await centre('web:web-plus', 'key4');
    await touch('touchStart', from);
    for (let dy = 10; dy <= 200; dy += 10) await touch('touchMove', { x: from.x, y: from.y - dy });
    await touch('touchEnd');
    if (isMobile) await expect.poll(() => page.evaluate(() => window.scrollY), PAGE_POLL).toBeGreaterThan(0);
    expect(turned()).toBe(0);
    subscription.unsubscribe();
    await shot('plus', deck('web:web-plus'));
  });
});
