// Clickjacking, in the real browser: a foreign page on another loopback port frames the deck and puts
// its key under the visitor's click. The browser must refuse the frame, so the click presses nothing.
// e2e because the refusal is the browser's (it reads the deck's framing headers): only Debian's chromium
// shows that the click lands on nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { connectChromium } from '../support/chromium.js';

declare const document: { querySelector(selector: string): unknown };

let f: RemoteFixture;
let browser: Browser;
let foreign: Server;
let foreignUrl: string;

beforeAll(async () => {
  // Polled once a second: the deck is only to be framed (and refused); no recorder state is checked.
  f = await startRemoteFixture({ pollMs: 1000, stillPreviews: true });
  foreign = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><title>win a prize</title><p>Click the box!</p><iframe id="deck" src="${f.base}/" style="width:1200px;height:700px;opacity:0.5"></iframe>`);
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`;
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
  await f?.close();
}, TEST_MS);

describe('a foreign page framing the deck', { timeout: TEST_MS }, () => {
  it('gets no deck in its frame, and a click there presses nothing', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const refused = page.waitForEvent('console', { predicate: (m) => /frame|ancestor/i.test(m.text()), timeout: WAIT_MS }).then((m) => m.text(), () => 'no console message');
    await page.goto(foreignUrl);
    const before = f.sim.sim.log.list().at(-1)?.seq ?? 0;
    const frame = page.frames().find((fr) => fr !== page.mainFrame());
    expect(frame).toBeDefined();
    expect(await refused).toMatch(/frame-ancestors|X-Frame-Options/);
    // The frame holds the browser's error page in place of the deck, so no deck can appear in it later.
    expect(frame?.url()).toBe('chrome-error://chromewebdata/');
    expect(await frame?.evaluate(() => document.querySelector('canvas') === null)).toBe(true);
    const box = await page.locator('#deck').boundingBox();
    if (!box) throw new Error('no iframe on the foreign page');
    await page.mouse.click(box.x + 60, box.y + 120);
    // Any write would have gone out at once; the recorder's log is read after an answer to a later request.
    await f.call('GET', '/healthz');
    expect(f.sim.sim.log.list().filter((r) => r.seq > before && r.method !== 'GET')).toEqual([]);
    await page.close();
  });
});
