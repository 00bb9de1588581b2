// e2e because the editor is the page's own code in a browser (clicks on a deck's canvas, its form's
// fields, a phone's layout): only Debian's chromium shows it. The profile editor in that browser: a key
// changed by clicking it, saved into the YAML file (only that control's line, comments kept), shown on
// the deck and doing the new action; an invalid value refused at its field; a file changed on disk
// meanwhile not overwritten; and "make my own" for a Stream Deck XL (the real library over a fake HID
// device) that then drives it.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { messageOf } from '../../src/api/errors.js';
import type { CommandRecord } from '../../src/engine/log.js';
import { freshnessOf } from '../../src/engine/recorder-state.js';
import { StreamDeckSurface } from '../../src/surfaces/streamdeck/streamdeck-surface.js';
import { connectChromium, screenshot, untilPage } from '../support/chromium.js';
import { openFakeStreamDeck } from '../support/fake-hid.js';
import { pressTrail } from '../support/press-trail.js';
import { startRemoteFixture, TEST_MS, WAIT_MS, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { realTime } from '../../src/engine/engine-time.js';

declare const document: { querySelector(selector: string): { toDataURL(): string; textContent: string | null } | null };

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const SERIAL = 'CL00EDITXL';
let f: RemoteFixture;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let root: string;
let folder: string;
let file: string;
let original: string;
/** Who hears what the page's socket does (a press's trail while it waits). */
const pageSocketNotes = new Set<(what: string) => void>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'recdeck-editor-page-'));
  folder = join(root, 'mine');
  mkdirSync(folder);
  file = join(folder, 'studio-15.yaml');
  copyFileSync(new URL('../../profiles/web-15-keys.yaml', import.meta.url).pathname, file);
  original = readFileSync(file, 'utf8');
  const { deck } = await openFakeStreamDeck(DeviceModelId.XL, { serial: SERIAL });
  const xl = new StreamDeckSurface(deck, { time: realTime, serial: SERIAL, log: quiet, onFailure: () => undefined });
  f = await startRemoteFixture({ ownProfiles: folder, allowEdit: true, surfaces: [xl], pollMs: 250, stillPreviews: true });
  browser = await connectChromium();
  // One context for the file: the phone's page is a second page in it (a new context costs chromium two
  // renderer processes more than a page does).
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  // What the page sends and when its link drops, for a press's trail (pressKey0).
  page.on('websocket', (socket) => {
    for (const note of pageSocketNotes) note(`opened its socket`);
    socket.on('framesent', (frame) => {
      if (typeof frame.payload === 'string' && frame.payload.startsWith('{"type":"input"')) for (const note of pageSocketNotes) note(`sent ${frame.payload}`);
    });
    socket.on('close', () => {
      for (const note of pageSocketNotes) note('lost its socket');
    });
  });
  await page.goto(f.base);
  await untilPage(() => page.locator('canvas[data-surface="web:web-15"][data-control="key0"]').isVisible(), 'the decks', WAIT_MS);
  await page.locator('#edit-toggle').click();
  await editorLoaded('the editor');
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
  await f?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, TEST_MS);

const snapshot = (control: string) => page.evaluate((c) => document.querySelector(`canvas[data-surface="web:web-15"][data-control="${c}"]`)?.toDataURL() ?? '', control);
const field = (path: string) => page.locator(`#inspector-form [data-path="${path}"]`);
const changedLines = (before: string, after: string) => {
  const lines = before.split('\n');
  return after.split('\n').filter((line, i) => line !== lines[i]);
};

/** The editor open with its files loaded (what they bring redraws the inspector: a field filled before would be lost). */
async function editorLoaded(what: string): Promise<void> {
  await untilPage(async () => (await page.locator('#edit-surface option').count()) > 0 && (await page.locator('#editor[data-loading]').count()) === 0, what, WAIT_MS);
}

async function backToEditor(): Promise<void> {
  await page.locator('#edit-toggle').click();
  await editorLoaded('the editor again');
}

/** Presses the test makes when the bridge refuses them on state past its age (see pressKey0). */
const PRESSES = 4;

/**
 * Clicks key0 (down and up, a tap: its hold is 1 s) and waits for what the bridge did with it, the press's
 * command as audited, which must be key0's new action, sent as `request`. A toggle is decided only from
 * live state, by design (truth under load): at this fixture's 250 ms poll the channels read is live for
 * 750 ms, and on a loaded machine the poll is held up long enough that the press finds it past its age
 * and is refused, saying so on its key. Reproduced under a CPU quota (40 % of a core per 1 s period on
 * the run) and beside busy loops: refused "the recorder's state is stale (read 0 s ago)", the click
 * reaching the bridge 0.9-1.1 s after the bridge was seen live. An operator presses again once the key is
 * live; so does this test, for that refusal only, up to PRESSES times. Anything else the bridge did with
 * the press (another action, a hold fired, a failure, no command at all) fails at once, with the trail.
 */
async function pressKey0(request: string, annotate: (message: string) => Promise<unknown>): Promise<void> {
  const trail = pressTrail(f, 'web:web-15', 'key0');
  const onSocket = (what: string) => trail.note(`the page ${what} (as chromium reports it, after the fact)`);
  pageSocketNotes.add(onSocket);
  const fail = (why: string) => new Error(`${why}\n${trail.told()}`);
  try {
    for (let press = 1; ; press++) {
      await until(() => f.running.bridge.recorderStates().every((state) => freshnessOf(state, Date.now()) === 'live'), 'the bridge live on the recorder', WAIT_MS).catch((error: Error) => {
        throw fail(error.message);
      });
      const before = trail.commands.length;
      trail.note(`click ${press}`);
      await page.locator('canvas[data-surface="web:web-15"][data-control="key0"]').click();
      trail.note(`click ${press} done`);
      await until(() => trail.commands.length > before, `the bridge's outcome for press ${press} of key0 (${request})`, WAIT_MS).catch((error: Error) => {
        throw fail(error.message);
      });
      const outcome = trail.commands[before] as CommandRecord;
      const refusedAsStale = outcome.action === 'rec-toggle' && outcome.result === 'refused' && /state is stale/.test(outcome.message ?? '');
      if (refusedAsStale && press < PRESSES) {
        await annotate(`key0 pressed again for ${request}: press ${press} refused: ${outcome.message ?? ''}`);
        continue;
      }
      if (outcome.action !== 'rec-toggle' || outcome.result !== 'ok' || outcome.request !== request || trail.commands.length > before + 1) {
        throw fail(`press ${press} of key0 did not send ${request} (rec-toggle)`);
      }
      return;
    }
  } finally {
    pageSocketNotes.delete(onSocket);
    trail.stop();
  }
}

/** Picks a control by clicking it on the deck itself (edit mode: a click picks, it does not press). */
async function pickOnDeck(control: string): Promise<void> {
  await page.locator(`canvas[data-surface="web:web-15"][data-control="${control}"]`).click();
  await untilPage(async () => ((await page.locator('#inspector-title').textContent()) ?? '').startsWith(`${control} `), `the inspector on ${control}`, WAIT_MS);
}

// The phone's test opens a page of its own and changes nothing: it runs beside the desk page's tests
// (describe.concurrent; the desk page's tests run in order, it.sequential), its page load and first
// drawing overlapping their waits for the bridge.
describe.concurrent('the profile editor in a browser, at desk size', { timeout: TEST_MS }, () => {
  it.sequential('key0 from rec-start to rec-toggle with a hold to stop: the file changes at key0 only, the deck shows it, a press toggles', async ({ expect, annotate }) => {
    await page.locator('#edit-surface').selectOption('web:web-15');
    await editorLoaded('the surface\'s file');
    expect(await page.locator('#edit-file').textContent()).toMatch(/^studio-15\.yaml \(your own\)/);
    const before = await snapshot('key0');
    const mark = f.sim.sim.log.list().at(-1)?.seq ?? 0;
    await pickOnDeck('key0');
    expect(f.sim.sim.log.list().filter((r) => r.seq > mark && r.method === 'PUT')).toEqual([]); // picked, not pressed
    expect(await field('press.action').inputValue()).toBe('rec-start');
    await field('show.channel').selectOption('2');
    await field('press.action').selectOption('rec-toggle');
    await field('press.channel').selectOption('2');
    await field('hold.do.action').selectOption('rec-stop');
    await field('hold.do.channel').selectOption('2');
    await field('hold.ms').fill('1000');
    expect(await page.locator('#inspector .cue').textContent()).toContain('hold 1 s for rec-stop');
    // The README's picture of the editor (RECDECK_SCREENSHOTS=test/screenshots to refresh it), and the refusal's below.
    await screenshot('RECDECK_SCREENSHOTS', 'editor-inspector.png', (path) => page.screenshot({ path }));
    await page.locator('#edit-save').click();
    await untilPage(async () => (await page.locator('#edit-message .saved').count()) > 0, 'the save', WAIT_MS);
    const written = readFileSync(file, 'utf8');
    expect(changedLines(original, written)).toEqual(['      key0: { show: { channel: 2 }, press: { action: rec-toggle, channel: 2 }, hold: { ms: 1000, do: { action: rec-stop, channel: 2 } } }']);
    expect(written).toContain('# Channel keys: press starts (or resumes) recording; hold 1 s to stop (a ring fills while held).');
    // The bridge on the new binding first, then the page's canvas: a canvas that differs from before the
    // edit is not enough alone (paired run 136, both copies: key0's picture changed for another reason,
    // the press came while the bridge still bound key0 to rec-start on channel 1, and started it).
    const rebound = () => {
      const key0 = f.running.bridge.session('web:web-15')?.describeControls().find((c) => c.control.id === 'key0');
      return key0?.binding?.press?.action === 'rec-toggle' && key0.picture.kind === 'channel' && key0.picture.channel === 2;
    };
    await until(rebound, 'the bridge to bind key0 to rec-toggle on channel 2', WAIT_MS);
    await untilPage(async () => (await snapshot('key0')) !== before, 'the deck to show channel 2 on key0', WAIT_MS);
    await page.locator('#edit-toggle').click(); // done editing: a click presses again
    try {
      await pressKey0('PUT /api/channels/1/rec-start', annotate);
      await until(() => f.sim.sim.recorder().channels()[1]?.IsRecording === true, 'channel 2 to record', WAIT_MS);
      await until(async () => (await f.running.bridge.recorderStates()[0]?.channels?.[1]?.IsRecording) === true, 'the bridge to see it', WAIT_MS);
      await pressKey0('PUT /api/channels/1/rec-stop', annotate);
      await until(() => f.sim.sim.recorder().channels()[1]?.IsRecording === false, 'the toggle to stop channel 2', WAIT_MS);
    } catch (error) {
      // Back to the editor even when a press failed: the file's next tests edit, and would fail behind this one.
      await backToEditor().catch(() => undefined);
      throw error;
    }
    await backToEditor();
  });

  it.sequential('an invalid value is refused at its field, in the loader\'s words; the file is unchanged', async ({ expect }) => {
    await page.locator('#edit-surface').selectOption('web:web-15');
    await editorLoaded('the surface\'s file'); // read afresh: a field filled before it is in would be drawn over
    await pickOnDeck('key1');
    const before = readFileSync(file, 'utf8');
    await field('hold.ms').fill('50');
    await page.locator('#edit-save').click();
    await untilPage(async () => (await page.locator('#inspector-form .field-error').count()) > 0, 'the refusal', WAIT_MS);
    expect(await page.locator('#inspector-form .field-error').first().textContent()).toMatch(/^pages\[0\]\.controls\.key1\.hold\.ms: .*200/);
    expect(await field('hold.ms').getAttribute('class')).toContain('invalid');
    expect(readFileSync(file, 'utf8')).toBe(before);
    await screenshot('RECDECK_SCREENSHOTS', 'editor-refused.png', (path) => page.screenshot({ path }));
  });

  it.sequential('a file changed on disk meanwhile is not overwritten; the page shows what changed', async ({ expect }) => {
    await pickOnDeck('key2');
    const changed = `${readFileSync(file, 'utf8')}# changed by hand meanwhile\n`;
    writeFileSync(file, changed);
    await field('press.action').selectOption('rec-toggle');
    await page.locator('#edit-save').click();
    await untilPage(async () => (await page.locator('#edit-message .diff').count()) > 0, 'the conflict', WAIT_MS);
    expect(await page.locator('#edit-message .refusal').textContent()).toContain('changed on disk since you read it');
    expect(await page.locator('#edit-message .diff').textContent()).toContain('+ # changed by hand meanwhile');
    expect(readFileSync(file, 'utf8')).toBe(changed);
  });

  it.sequential('"make my own" on a Stream Deck XL writes a copy pinned to its serial, which then drives the XL', async ({ expect }) => {
    await page.locator('#edit-surface').selectOption(`streamdeck:${SERIAL}`);
    await untilPage(async () => ((await page.locator('#edit-file').textContent()) ?? '').startsWith('shipped:streamdeck-xl.yaml (shipped'), 'the shipped file', WAIT_MS);
    await page.locator('#edit-own').click();
    // On a miss (paired run 140 a, load 9.5: not in use after 15 s), what the page and the bridge said. The
    // bound is two long waits: the step is the copy's write, the bridge reading the folder and binding the
    // XL, and the page asking /profiles every 200 ms until it drives (paired run 175 b, load 9-10: the page
    // showed the copy in use, and the bridge had bound it, just after 15 s).
    await untilPage(async () => ((await page.locator('#edit-file').textContent()) ?? '').startsWith(`streamdeck-xl-${SERIAL}.yaml (your own)`), 'the copy in use', 2 * WAIT_MS).catch(async (error: unknown) => {
      const said = await page.evaluate(() => ['#edit-file', '#edit-message'].map((selector) => document.querySelector(selector)?.textContent ?? '(none)'));
      throw new Error(`${messageOf(error)}; the page's file and message: ${JSON.stringify(said)}; the copy on disk: ${existsSync(join(folder, `streamdeck-xl-${SERIAL}.yaml`))}; the bridge's last lines: ${JSON.stringify(f.logs.slice(-6))}`);
    });
    const copy = join(folder, `streamdeck-xl-${SERIAL}.yaml`);
    expect(readdirSync(folder)).toContain(`streamdeck-xl-${SERIAL}.yaml`);
    expect(readFileSync(copy, 'utf8')).toContain(`match: { kind: streamdeck, model: xl, serial: ${SERIAL} }`);
    await until(() => f.running.bridge.session(`streamdeck:${SERIAL}`)?.profileFile === copy, 'the copy to drive the XL', WAIT_MS);
    // And it is edited like any file of one's own: key0 of the XL toggles now.
    await page.locator('#edit-controls button[data-control="key0"]').click();
    await field('press.action').selectOption('rec-toggle');
    await page.locator('#edit-save').click();
    await untilPage(async () => (await page.locator('#edit-message .saved').count()) > 0, 'the save', WAIT_MS);
    const xlKey0 = () => f.running.bridge.session(`streamdeck:${SERIAL}`)?.describeControls().find((c) => c.control.id === 'key0')?.binding?.press;
    await until(() => (xlKey0() as { action?: string } | undefined)?.action === 'rec-toggle', 'the XL to take the edit', WAIT_MS);
  });
});

describe.concurrent('the profile editor in a browser, on a phone', { timeout: TEST_MS }, () => {
  it('a phone views the decks but is offered no editor', async ({ expect }) => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    try {
      await phone.goto(f.base);
      await untilPage(() => phone.locator('canvas[data-surface="web:web-15"][data-control="key0"]').isVisible(), 'the deck on the phone', WAIT_MS);
      expect(await phone.locator('#edit-toggle').isVisible()).toBe(false);
      expect(await phone.locator('#editor').isVisible()).toBe(false);
    } finally {
      await phone.close();
    }
  });
});
