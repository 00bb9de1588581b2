// e2e because the page in a browser is the part (clicks, a held mouse button, the wheel, its canvases and
// panels): only Debian's chromium shows it. The web deck in that browser (driven by playwright-core):
// what an operator sees and does, end to end through the bridge to the simulator and back.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/server.js';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { PAGE_POLL, connectChromium, screenshot, untilPage } from '../support/chromium.js';
import { realClock } from '../../src/api/clock.js';

/** The little of the DOM the page functions below use (they run in the browser, not in Node). */
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
  toDataURL(): string;
  getBoundingClientRect(): { top: number };
}
declare const document: { querySelector(selector: string): PageCanvas | null; querySelectorAll(selector: string): Iterable<PageCanvas> };
declare const window: { innerHeight: number };

/** The README's desk size, and the short desk the tests run at (see beforeAll). */
const DESK = { width: 1280, height: 800 };
const SHORT_DESK = { width: 1280, height: 420 };

const RECORDING = [0xd5, 0x5e, 0x00];
/** The hold ring's sky blue (src/render/palette.ts). */
const HOLD_RING = [0x56, 0xb4, 0xe9];

let f: RemoteFixture;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Polled every 150 ms, not 250: stale and offline are counted in polls (3 intervals old, 3 failed
  // reads backing off 2x each), so the recorder's going away and coming back shows that much sooner.
  f = await startRemoteFixture({ pollMs: 150, stillPreviews: true });
  browser = await connectChromium();
  // Desk width, but short: only the 15-key deck at the top is in view (and so drawn and fed) until a test
  // scrolls to another. At 1280x800 the 32-key deck below is in view too, and the bridge fetched its 16
  // previews every second and the plus deck's meters four times a second for the whole file, none of which
  // a test here looks at. The desk picture for the README is taken at 1280x800 (see DESK).
  page = await browser.newPage({ viewport: SHORT_DESK });
  await page.goto(f.base);
  await untilPage(async () => (await share('web:web-15', 'key0', [0x10, 0x10, 0x10], 40)) < 0.99, 'the first key images', WAIT_MS);
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
  await f?.close();
}, TEST_MS);

/** Share of a canvas's pixels near a colour, read in the page. */
function share(surface: string, control: string, rgb: number[], tolerance = 24): Promise<number> {
  return page.evaluate(
    ({ surface, control, rgb, tolerance }) => {
      const canvas = document.querySelector(`canvas[data-surface="${surface}"][data-control="${control}"]`);
      const data = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      if (!data) return 0;
      let near = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs((data[i] as number) - (rgb[0] as number)) <= tolerance && Math.abs((data[i + 1] as number) - (rgb[1] as number)) <= tolerance && Math.abs((data[i + 2] as number) - (rgb[2] as number)) <= tolerance) near++;
      }
      return near / (data.length / 4);
    },
    { surface, control, rgb, tolerance },
  );
}

const snapshot = (surface: string, control: string) => page.evaluate(({ surface, control }) => document.querySelector(`canvas[data-surface="${surface}"][data-control="${control}"]`)?.toDataURL() ?? '', { surface, control });
const key = (surface: string, control: string) => page.locator(`canvas[data-surface="${surface}"][data-control="${control}"]`);
const channelRow = (n: number) => page.locator(`#channels tr[data-channel="${n}"]`);

describe('the web deck in a browser', { timeout: TEST_MS }, () => {
  it('a click on a channel key records: the key turns to the recording colour and its clock ticks', async () => {
    await key('web:web-15', 'key0').click();
    await untilPage(async () => (await share('web:web-15', 'key0', RECORDING)) > 0.15, 'key0 in the recording colour', WAIT_MS);
    expect(f.sim.sim.recorder().channels()[0]?.IsRecording).toBe(true);
    await expect.poll(() => channelRow(1).locator('td.state').textContent(), PAGE_POLL).toBe('recording');
    const first = await snapshot('web:web-15', 'key0');
    const time = await channelRow(1).locator('td').nth(4).textContent();
    await untilPage(async () => (await snapshot('web:web-15', 'key0')) !== first && (await channelRow(1).locator('td').nth(4).textContent()) !== time, 'the clock to tick', WAIT_MS);
    await expect.poll(() => page.locator('#audit li').first().textContent(), PAGE_POLL).toContain('CH 1 rec-start ok');
    expect(await page.locator('#audit li').first().textContent()).toContain('PUT /api/channels/0/rec-start · web:web-15 key0');
    // The README's picture of the page at desk size (RECDECK_SCREENSHOTS=test/screenshots to refresh it).
    await screenshot('RECDECK_SCREENSHOTS', 'web-deck-desk.png', async (path) => {
      // At full desk size, once every deck that comes into view has been drawn (a canvas drawn has opaque pixels).
      await page.setViewportSize(DESK);
      const drawn = () => [...document.querySelectorAll('canvas.key')].filter((canvas) => canvas.getBoundingClientRect().top < window.innerHeight).every((canvas) => canvas.getContext('2d')?.getImageData(0, 0, 1, 1).data[3] !== 0);
      await page.waitForFunction(drawn, undefined, { timeout: WAIT_MS, polling: 100 });
      await page.screenshot({ path });
      await page.setViewportSize(SHORT_DESK);
    });
  });

  it('holding the key shows the ring, then stops the channel', async () => {
    const box = await key('web:web-15', 'key0').boundingBox();
    if (!box) throw new Error('key0 is not on the page');
    // The ring is sky blue (the key's hold mark in its corner is too): while held, more of the key is.
    const unheld = await share('web:web-15', 'key0', HOLD_RING, 12);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const down = Date.now();
    await page.mouse.down();
    await until(async () => (await share('web:web-15', 'key0', HOLD_RING, 12)) > unheld, 'the hold ring on key0', WAIT_MS);
    await until(() => f.sim.sim.recorder().channels()[0]?.IsRecording === false, 'the stop', WAIT_MS);
    // Not before the hold's second: the press alone stops nothing.
    expect(Date.now() - down).toBeGreaterThanOrEqual(1000);
    await page.mouse.up();
    await untilPage(async () => (await share('web:web-15', 'key0', RECORDING)) < 0.01, 'key0 to leave the recording colour', WAIT_MS);
    await expect.poll(() => channelRow(1).locator('td.state').textContent(), PAGE_POLL).toBe('idle');
  });

  it('a dialog on the recorder: the overlay page shows it, OK and Cancel flash, OK clears it', async () => {
    await f.sim.raw('POST', '/_sim/dialog', { body: JSON.stringify({ content: 'Disk D: almost full', buttons: 'Yes_No' }) });
    await expect.poll(() => page.locator('#surfaces').textContent(), PAGE_POLL).toContain('Web 15 keys, page 1/3 Dialog');
    const seen = new Set<string>();
    await untilPage(async () => {
      seen.add(await snapshot('web:web-15', 'key11'));
      return seen.size >= 2;
    }, 'the OK key to flash (500 ms a phase)', WAIT_MS);
    await key('web:web-15', 'key11').click(); // OK: where it is on every page
    await until(() => !f.sim.sim.recorder().dialogState().IsDialog, 'the dialog to be answered', WAIT_MS);
    await expect.poll(() => page.locator('#surfaces').textContent(), PAGE_POLL).toContain('Web 15 keys, page 1/3 Channels 1-8');
    await expect.poll(() => page.locator('#audit li').first().textContent(), PAGE_POLL).toContain('dialog-ok ok');
    expect(await page.locator('#audit li').first().textContent()).toContain('PUT /api/app/dialog/ok');
  });

  it('the wheel over a dial turns it: the source gain steps by the dial\'s step', async () => {
    const session = () => f.running.bridge.session('web:web-plus');
    const dial = page.locator('.dial[data-surface="web:web-plus"][data-control="dial0"]');
    // In view first: a source's gain is read for the dials a page views.
    await dial.scrollIntoViewIfNeeded();
    await until(() => (session()?.describeControls().find((c) => c.control.id === 'dial0')?.picture as { gainDb?: number | null }).gainDb === 0, 'the gain of Cam 1 to be known', WAIT_MS);
    const box = await dial.boundingBox();
    if (!box) throw new Error('dial0 is not on the page');
    const before = f.sim.sim.log.list().at(-1)?.seq ?? 0;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -100); // one notch up
    await until(() => f.sim.sim.log.list().some((r) => r.seq > before && r.method === 'PUT'), 'the gain request', WAIT_MS);
    const sent = f.sim.sim.log.list().filter((r) => r.seq > before && r.method === 'PUT').map((r) => `${r.path} ${r.body}`);
    expect(sent).toEqual(['/api/sources/0 {"AudioGain":"0.5"}']);
  });

  it('the page\'s own rules: the audit log counts channels and sources from 1, and wide decks fold by whole rows', async () => {
    const record = (request: string | null, action: string) => ({ at: 0, surface: 's', control: 'c', action, recorder: 'backup', request, result: 'ok', message: null, latencyMs: 1 });
    const records = [record('PUT /api/channels/1/rec-start', 'rec-start'), record('PUT /api/channels/count/9', 'grid'), record('PUT /api/sources/0', 'gain-step'), record('PUT /api/channels/sync-rec-start', 'sync-rec-start'), record(null, 'rec-toggle')];
    // The page's own modules, as the browser loads them (a string, so that the test runner leaves its import() alone).
    const result = (await page.evaluate(`(async (records) => {
      const audit = await import('/deck-audit.js');
      const layout = await import('/deck-layout.js');
      return {
        words: records.map((r) => audit.operatorWords(r, false)),
        several: audit.operatorWords(records[0], true),
        phone32: layout.fitKeys(8, 96, 358, 6, true),
        phone15: layout.fitKeys(5, 96, 358, 6, true),
        desk32: layout.fitKeys(8, 96, 1000, 6, false),
        narrowDesk32: layout.fitKeys(8, 96, 700, 6, false),
        folded: layout.foldedCell(1, 5, 8, 4),
      };
    })(${JSON.stringify(records)})`)) as Record<string, unknown>;
    expect(result.words).toEqual(['CH 2 rec-start', 'grid 9', 'source 1 gain-step', 'sync-rec-start', 'rec-toggle']);
    expect(result.several).toBe('backup CH 2 rec-start');
    expect(result.phone32).toEqual({ columns: 4, keyPx: 85 });
    expect(result.phone15).toEqual({ columns: 5, keyPx: 66 });
    expect(result.desk32).toEqual({ columns: 8, keyPx: 96 });
    expect(result.narrowDesk32).toEqual({ columns: 8, keyPx: 82 });
    expect(result.folded).toEqual({ row: 3, column: 1 }); // channel 14 of a 4x8 deck, shown 4 across: after 13, before 15
  });

  it('the page says how many image messages it has drawn as it draws them: never more than it was sent, never held back nor cut off for it', async () => {
    // A page of its own, watched from its first frame (playwright's record of its WebSocket's frames).
    const watched = await browser.newPage({ viewport: SHORT_DESK });
    try {
      let received = 0;
      let closed = false;
      const told: Array<{ images: number; received: number }> = [];
      watched.on('websocket', (socket) => {
        socket.on('framereceived', ({ payload }) => void (typeof payload === 'string' ? undefined : received++));
        socket.on('framesent', ({ payload }) => {
          const message = typeof payload === 'string' ? (JSON.parse(payload) as { type: string; images?: number }) : null;
          if (message?.type === 'drawn') told.push({ images: message.images as number, received });
        });
        socket.on('close', () => (closed = true));
      });
      await watched.goto(f.base);
      // Channel 2's clock draws its key each second: image messages after the first ones.
      await f.sim.client.recStart(1);
      await until(() => (told.at(-1)?.images ?? 0) >= 6, 'six image messages drawn and said', WAIT_MS);
      expect(told[0]).toEqual({ images: 0, received: 0 }); // said at once: the bridge paces it from its first image
      for (const [i, { images, received: by }] of told.entries()) {
        expect(images).toBeLessThanOrEqual(by);
        expect(images).toBeGreaterThanOrEqual(told[i - 1]?.images ?? 0);
      }
      expect(closed).toBe(false);
      expect(f.logs.filter((line) => line.includes('closed a client'))).toEqual([]);
    } finally {
      await f.sim.client.recStop(1);
      await watched.close();
    }
  });

  it('when the recorder goes away the keys go stale then offline, and they recover when it is back', async () => {
    const { port, token } = f.sim.sim;
    // Earlier tests scrolled away from it; only the decks in view are drawn.
    await key('web:web-15', 'key0').scrollIntoViewIfNeeded();
    const live = await snapshot('web:web-15', 'key0');
    // First it answers every read badly (reachable, so its data only ages: stale for as long as that
    // lasts), then it is gone (unreachable: offline). Closing it at once would make the data too old
    // and the recorder unreachable within the same few polls, a moment of STALE a busy page can miss.
    await f.sim.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'status', status: 503, method: 'GET', path: '/api/' }] }) });
    const badge = page.locator('#recorders .badge');
    await expect.poll(() => badge.textContent(), PAGE_POLL).toBe('STALE');
    await untilPage(async () => (await snapshot('web:web-15', 'key0')) !== live, 'the key to show stale', WAIT_MS);
    const stale = await snapshot('web:web-15', 'key0');
    await f.sim.sim.close();
    await expect.poll(() => badge.textContent(), PAGE_POLL).toBe('OFFLINE');
    await untilPage(async () => (await snapshot('web:web-15', 'key0')) !== stale, 'the key to show offline', WAIT_MS);
    await expect.poll(() => channelRow(1).locator('td.state').textContent(), PAGE_POLL).toBe('offline');
    const again = await startSimulator({ clock: realClock, port, token, grid: 16, tickMs: 0 });
    try {
      await expect.poll(() => badge.textContent(), PAGE_POLL).toBe('LIVE');
      await expect.poll(() => channelRow(1).locator('td.state').textContent(), PAGE_POLL).toBe('idle');
    } finally {
      await again.close();
    }
  });
});
