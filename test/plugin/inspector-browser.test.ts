// e2e: the property inspector in Debian's chromium is the part (ui/inspector.html and its script, bundled
// for the browser as the build bundles it), started the way the Stream Deck app starts one: its
// connectElgatoStreamDeckSocket called with the app's WebSocket port and the action's info. The fake app
// keeps what the inspector saves and passes it on to the plugin (npm run build's, built-plugin.ts), which
// runs as its own Node process against the simulator. That the package ships this inspector is
// streamdeck-plugin.test.ts's; one pack a run is enough.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkActionSettings, checkGlobalSettings, GlobalSettings } from '../../src/plugin/settings.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { connectChromium, screenshot, untilPage } from '../support/chromium.js';
import { until } from '../support/until.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { builtPluginFolder } from './built-plugin.js';
import { actionUuid, PLUGIN_UUID, type PluginFolder } from './packed-plugin.js';
import { realClock } from '../../src/api/clock.js';

const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const REC_TOGGLE = actionUuid('rec-toggle');

let plugin: PluginFolder;
let sim: RunningSimulator;
let app: FakeStreamDeckApp;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  plugin = await builtPluginFolder({ inspector: true });
  sim = await startSimulator({ port: 0, clock: realClock });
  app = await FakeStreamDeckApp.start(PLUGIN_UUID);
  await app.launch(plugin.folder, [DECK]);
  app.setGlobalSettings({});
  // A key just dragged onto the deck: no settings yet.
  app.willAppear({ action: REC_TOGGLE, context: 'K1', device: 'DEV1', settings: {} });
  browser = await connectChromium();
  // The app's inspector column is about 350 px wide.
  context = await browser.newContext({ viewport: { width: 360, height: 620 } });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await sim?.close();
  plugin?.remove();
});

const lastTile = (key: string) => titleOf(app.images(key).at(-1) ?? '');
const fromInspector = (event: string) => app.fromInspector.filter((m) => m.event === event);
/** The token's secret part: what must never be in the page, the log or an action's settings. */
const secret = () => sim.token.replace('perm:', '');

/**
 * The app's inspector column: a tab in which each test opens the inspector afresh (a new document, as the
 * app loads one each time it shows the inspector), and a second beside it for the test that has two open
 * at once. A new tab costs chromium two renderer processes (its about:blank, then the page: 10 for this
 * file's 5 openings), a new document in the same tab none.
 */
const tabs: Page[] = [];

/** The inspector of K1, opened as the app opens it, in tab 0 (or another tab, for two at once). */
async function openInspector(tab = 0): Promise<Page> {
  const page = (tabs[tab] ??= await context.newPage());
  await page.goto(`file://${join(plugin.folder, 'ui/inspector.html')}`);
  const reads = fromInspector('getGlobalSettings').length;
  const args = app.inspectorArguments(REC_TOGGLE, 'K1', 'DEV1');
  await page.evaluate(`window.connectElgatoStreamDeckSocket(...${JSON.stringify(args)})`);
  await until(() => fromInspector('getGlobalSettings').length > reads, 'the inspector to register and read the recorders');
  return page;
}

/** Closes the inspector as the app does: its document goes, and its socket with it; the tab is kept for the next. */
async function closeInspector(page: Page): Promise<void> {
  await page.goto('about:blank');
}

/** Every field's value in the page, and its whole markup: where a token could show. */
async function pageText(page: Page): Promise<string> {
  const values = await Promise.all((await page.locator('input').all()).map((input) => input.inputValue()));
  return `${await page.content()}\n${values.join('\n')}`;
}

describe('the property inspector in chromium', () => {
  it('refuses bad recorders with the schema\'s messages and saves good ones, the token masked and never put back into the page', async () => {
    const page = await openInspector();
    // The plugin answers the inspector's status request: this key has no recorder yet.
    await untilPage(async () => /The plugin says: settings: recorder/.test(await page.locator('#action-problems').innerText()), 'the plugin\'s word on the key');

    const row = page.locator('.recorder').first();
    await row.locator('input[name="name"]').fill('Main');
    await row.locator('input[name="url"]').fill('ftp://recorder');
    await row.locator('input[name="token"]').fill('perm:typed-secret');
    await page.locator('#save-recorders').click();
    const problems = await page.locator('#recorders-problems').innerText();
    // The very messages of the schema the plugin checks with, naming each field.
    const expected = GlobalSettings.safeParse({ recorders: [{ name: 'Main', url: 'ftp://recorder', token: 'perm:typed-secret' }] });
    expect(expected.success).toBe(false);
    for (const issue of expected.error?.issues ?? []) expect(problems).toContain(`${issue.path.join('.')}: ${issue.message}`);
    expect(problems).toContain('expected a recorder name');
    expect(problems).toContain('http://host:port');
    expect(problems).not.toContain('typed-secret');
    expect(fromInspector('setGlobalSettings')).toHaveLength(0);

    await row.locator('input[name="name"]').fill('main');
    await row.locator('input[name="url"]').fill(sim.url);
    await row.locator('input[name="token"]').fill(sim.token);
    await page.locator('#save-recorders').click();
    await until(() => fromInspector('setGlobalSettings').length === 1, 'the recorders saved');
    expect(app.globalSettings).toEqual({ recorders: [{ name: 'main', url: sim.url, token: sim.token }] });
    expect(await page.locator('#recorders-problems').innerText()).toBe('');
    expect(await page.locator('#recorders-status').innerText()).toBe('Saved');
    // Saved, the token is gone from the page: an empty password field that says one is kept.
    const token = page.locator('.recorder input[name="token"]').first();
    expect(await token.inputValue()).toBe('');
    expect(await token.getAttribute('type')).toBe('password');
    expect(await token.getAttribute('placeholder')).toMatch(/saved/);
    expect(await pageText(page)).not.toContain(secret());
    await closeInspector(page);
  });

  it('edits the action\'s recorder and channel: channel 0 refused with the schema\'s message, channel 1 saved without any token, and the key goes live', async () => {
    const page = await openInspector();
    await untilPage(async () => (await page.locator('#recorder option').allInnerTexts()).includes('main'), 'the saved recorder offered');
    await page.locator('#recorder').selectOption('main');
    const channel = page.locator('#parameters input[data-parameter="channel"]');
    await channel.fill('0');
    await page.locator('#save-action').click();
    const refused = checkActionSettings('rec-toggle', { recorder: 'main', channel: 0 });
    expect(refused.ok).toBe(false);
    const message = refused.ok ? '' : (refused.problems[0] as string);
    expect(message).toMatch(/^channel: /);
    expect(await page.locator('#action-problems').innerText()).toContain(message);
    expect(fromInspector('setSettings')).toHaveLength(0);

    await channel.fill('1');
    await page.locator('#save-action').click();
    await until(() => fromInspector('setSettings').length === 1, 'the action saved');
    const saved = fromInspector('setSettings')[0];
    expect(saved?.context).toBe('K1');
    expect(saved?.payload).toEqual({ recorder: 'main', channel: 1 });
    expect(JSON.stringify(fromInspector('setSettings'))).not.toContain(secret());
    // The plugin takes the saved settings: the key shows channel 1 live.
    await until(() => lastTile('K1') === 'channel 1: idle', 'the key live on channel 1');
    await closeInspector(page);
  });

  it('opened again with the saved recorders, shows no token; a saved token is kept when its field is left empty', async () => {
    const page = await openInspector();
    await untilPage(async () => (await page.locator('.recorder input[name="name"]').first().inputValue()) === 'main', 'the saved recorder shown');
    // The app handed the page the global settings with the token; the page shows none of it.
    expect(await pageText(page)).not.toContain(secret());
    expect(await page.locator('#parameters input[data-parameter="channel"]').inputValue()).toBe('1');

    await page.locator('.recorder input[name="url"]').first().fill(sim.url.replace('127.0.0.1', 'localhost'));
    await page.locator('#save-recorders').click();
    await until(() => fromInspector('setGlobalSettings').length === 2, 'the address saved');
    expect(app.globalSettings).toEqual({ recorders: [{ name: 'main', url: sim.url.replace('127.0.0.1', 'localhost'), token: sim.token }] });
    expect(await pageText(page)).not.toContain(secret());
    await until(() => lastTile('K1') === 'channel 1: idle', 'the key still live through the new address');

    // A second recorder named like the first is refused, naming the rule.
    await page.locator('#add-recorder').click();
    const second = page.locator('.recorder').nth(1);
    await second.locator('input[name="name"]').fill('main');
    await second.locator('input[name="url"]').fill(sim.url);
    await second.locator('input[name="token"]').fill(sim.token);
    await page.locator('#save-recorders').click();
    expect(await page.locator('#recorders-problems').innerText()).toContain('a recorder name is used twice');
    expect(fromInspector('setGlobalSettings')).toHaveLength(2);
    await second.locator('button.remove').click();
    await screenshot('RECDECK_SCREENSHOTS', 'plugin-inspector.png', (path) => page.screenshot({ path, fullPage: true }));
    await closeInspector(page);

    // Nothing the inspector sent reached the plugin's log with its token.
    const logs = readFileSync(join(plugin.folder, 'logs', `${PLUGIN_UUID}.0.log`), 'utf8');
    expect(logs).not.toContain(secret());
  });

  it('switches to a facility: a bad broker URL refused with the schema\'s message, a good one saved as the schema has it, no password in the page; switching back keeps the recorders', async () => {
    const page = await openInspector();
    await untilPage(async () => (await page.locator('.recorder input[name="name"]').first().inputValue()) === 'main', 'the saved recorder shown');
    expect(await page.locator('#facility').isVisible()).toBe(false);
    await page.getByLabel('Facility (MQTT bus)').check();
    expect(await page.locator('#facility').isVisible()).toBe(true);
    expect(await page.locator('#recorders').isVisible()).toBe(false);
    // Choosing saves nothing: the plugin still polls the recorders.
    expect(fromInspector('setGlobalSettings')).toHaveLength(2);
    // The broker's password is a file on the desk, never a field of the page.
    expect(await page.locator('#facility input[type="password"]').count()).toBe(0);

    const facility = { url: 'http://broker:1883', id: 'desk-1', keyFile: '/nonexistent/desk-1.key', facilityFile: '/nonexistent/facility.yaml', username: 'desk-1', passwordFile: '/nonexistent/broker-password' };
    for (const [key, value] of Object.entries(facility)) await page.locator(`#mqtt-${key}`).fill(value);
    await page.locator('#save-facility').click();
    // As the plugin checks them: the field and its rule, not the union's "Invalid input".
    const refused = checkGlobalSettings({ mqtt: facility });
    expect(refused.success).toBe(false);
    const problems = await page.locator('#facility-problems').innerText();
    for (const issue of refused.error?.issues ?? []) expect(problems).toContain(`${issue.path.join('.')}: ${issue.message}`);
    expect(problems).toContain('mqtt.url: expected the broker as mqtt://host:1883');
    expect(problems).not.toContain('Invalid input');
    expect(await page.locator('#mqtt-url').getAttribute('aria-invalid')).toBe('true');
    expect(fromInspector('setGlobalSettings')).toHaveLength(2);

    await page.locator('#mqtt-url').fill('mqtt://127.0.0.1:1883');
    await page.locator('#save-facility').click();
    await until(() => fromInspector('setGlobalSettings').length === 3, 'the facility saved');
    const good = { ...facility, url: 'mqtt://127.0.0.1:1883' };
    // Exactly what the schema makes of it: the optional caFile left out, not saved empty.
    expect(app.globalSettings).toStrictEqual({ mqtt: good });
    expect(GlobalSettings.parse(app.globalSettings)).toStrictEqual({ mqtt: good });
    expect(await page.locator('#facility-problems').innerText()).toBe('');
    expect(await page.locator('#facility-status').innerText()).toBe('Saved');
    expect(await page.locator('#mqtt-url').getAttribute('aria-invalid')).toBeNull();
    expect(await pageText(page)).not.toContain(secret());
    // The plugin takes the facility: its facility file is not on this machine, and the key says so.
    await until(() => lastTile('K1').startsWith('NO FACILITY'), 'the key to say NO FACILITY', 20_000);
    await screenshot('RECDECK_SCREENSHOTS', 'plugin-inspector-facility.png', (path) => page.screenshot({ path, fullPage: true }));

    // Opened again, the inspector starts on the facility, its fields as saved.
    const again = await openInspector(1);
    await untilPage(async () => (await again.locator('#mqtt-url').inputValue()) === good.url, 'the saved facility shown');
    expect(await again.locator('#source-facility').isChecked()).toBe(true);
    for (const [key, value] of Object.entries(good)) expect(await again.locator(`#mqtt-${key}`).inputValue()).toBe(value);
    expect(await again.locator('#mqtt-caFile').inputValue()).toBe('');
    await closeInspector(again);

    // Back to the recorders: still in the form, their token kept; saving them makes the desk poll again.
    await page.getByLabel('Recorders (direct)').check();
    expect(await page.locator('#recorders').isVisible()).toBe(true);
    expect(await page.locator('#facility').isVisible()).toBe(false);
    expect(await page.locator('.recorder input[name="name"]').first().inputValue()).toBe('main');
    await page.locator('#save-recorders').click();
    await until(() => fromInspector('setGlobalSettings').length === 4, 'the recorders saved again');
    expect(app.globalSettings).toEqual({ recorders: [{ name: 'main', url: sim.url.replace('127.0.0.1', 'localhost'), token: sim.token }] });
    expect(await pageText(page)).not.toContain(secret());
    await until(() => lastTile('K1') === 'channel 1: idle', 'the key live again on the recorder', 20_000);
    await closeInspector(page);
  });
});
