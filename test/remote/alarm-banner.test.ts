// The web page's alarms in Debian's chromium, at desk size (1280x800) and on a phone (390x844). e2e
// because the banner, the Acknowledge button's request with the page's own origin, Web Audio's rule that
// sound starts only after a gesture, and the notification permission are the browser's, not ours: only a
// real browser shows them. The bridge and its alarm engine run on virtual time against the simulator;
// the page is waited on with bounded polls. An init script counts the page's AudioContexts, its tones
// (OscillatorNode.start, with the audio's state as each starts) and its notifications.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startAlarms, type RunningAlarms } from '../../src/cli/alarm-setup.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { realTime } from '../../src/engine/engine-time.js';
import { AlarmsMessage } from '../../src/remote/deck-protocol.js';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { connectChromium, screenshot, untilPage } from '../support/chromium.js';
import { TEST_MS, WAIT_MS } from '../support/remote.js';
import { until } from '../support/until.js';

const PROFILE = 'name: alarms page\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n';

const SIZES = [
  { name: 'desk', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
] as const;

/** Counts what the page does with sound and notifications, before any of its own scripts run. */
const COUNTING = `
window.__alarmProbe = { contexts: 0, tones: 0, notifications: [], tonesWhile: [] };
const OriginalContext = window.AudioContext;
window.AudioContext = class extends OriginalContext { constructor(...args) { super(...args); window.__alarmProbe.contexts++; window.__alarmAudio = this; } };
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__alarmProbe.tones++; window.__alarmProbe.tonesWhile.push(this.context.state); return start.apply(this, args); };
const OriginalNotification = window.Notification;
if (OriginalNotification) {
  window.Notification = class extends OriginalNotification { constructor(title, options) { super(title, options); window.__alarmProbe.notifications.push(title); } };
  Object.defineProperty(window.Notification, 'permission', { get: () => OriginalNotification.permission });
  window.Notification.requestPermission = (...args) => OriginalNotification.requestPermission(...args);
}
`;

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Probe {
  contexts: number;
  tones: number;
  notifications: string[];
  /** The audio's state as each tone was started: a tone sounds only in a running AudioContext. */
  tonesWhile: string[];
}

// The run's browser for both sizes; each size has a bridge, a remote server, a context and a page of its
// own, and the two sizes run at once (describe.concurrent; the tests of one size run in order,
// it.sequential): much of a size's time is waiting for its page, which the other size's tests use.
let browser: Browser;

beforeAll(async () => {
  browser = await connectChromium();
}, TEST_MS);

afterAll(async () => {
  await browser?.close();
}, TEST_MS);

describe.concurrent.each(SIZES)('the alarm banner at $name size ($viewport.width x $viewport.height)', { timeout: TEST_MS }, ({ name, viewport, isMobile }) => {
  let f: BridgeFixture;
  let alarms: RunningAlarms;
  let server: RunningRemoteServer;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    f = await startBridgeFixture({ profile: PROFILE, simulator: { grid: 4 } });
    alarms = startAlarms(f.bridge, { settings: AlarmSettings.parse({ raisePolls: 2, clearPolls: 2 }), webhooks: [], secret: null }, silent, null);
    server = await startRemoteServer({ bridge: f.bridge, log: silent, port: 0, password: null, time: realTime, alarms: alarms.monitor });
    await f.advance(500);
    // Reduced motion: the page then shows a waiting banner steady instead of pulsing (deck.css). The pulse
    // is a filter animated at the compositor's 60 frames a second for as long as an alarm waits, which
    // kept chromium's renderer and compositor busy for most of this file (measured 2026-11-29: ~0.13 s
    // of CPU a second of pulse), and nothing here checks the pulse: the banner's marks, words, sound and
    // notifications are what is checked, the same either way.
    context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, reducedMotion: 'reduce' });
    await context.grantPermissions(['notifications'], { origin: server.url });
    await context.addInitScript(COUNTING);
    page = await context.newPage();
    await page.goto(server.url);
    await until(() => server.webClients() === 1, 'the page to connect', WAIT_MS);
  }, TEST_MS);

  afterAll(async () => {
    await context?.close();
    alarms?.stop();
    await server?.close();
    await f?.close();
  }, TEST_MS);

  const banner = () => page.locator('#alarm-banner');
  /** The banner's marks (its classes), in order. */
  const marks = async () => ((await banner().getAttribute('class')) ?? '').split(' ').filter(Boolean).sort();
  const probe = () => page.evaluate(() => (globalThis as unknown as { __alarmProbe: Probe }).__alarmProbe);
  /** The page's AudioContext's state now ('none' before it makes one). */
  const audioState = () => page.evaluate(() => (globalThis as unknown as { __alarmAudio?: { state: string } }).__alarmAudio?.state ?? 'none');
  const shot = (what: string) => screenshot('RECDECK_ALARM_SHOTS', `alarm-banner-${name}-${what}.png`, (path) => page.screenshot({ path }));

  /** Records channel `index` (0-based) and marks it wrong or right at the simulator. */
  async function fault(index: number, wrong: boolean): Promise<void> {
    if (wrong) await f.client.recStart(index);
    const answer = await f.raw('POST', `/_sim/channels/${index}/wrong`, { body: JSON.stringify({ wrong }) });
    if (answer.status !== 200) throw new Error(`the simulator refused the fault: ${answer.text}`);
  }

  it.sequential('a fault raises the banner (count and worst), silently before the operator has touched the page', async ({ expect }) => {
    expect(await banner().isHidden()).toBe(true);
    await fault(0, true);
    await f.until(() => alarms.monitor.active().length === 1, 'the alarm to be raised', 5000);
    await untilPage(() => banner().isVisible(), 'the banner', WAIT_MS);
    expect(await page.locator('#alarm-count').textContent()).toBe('1 alarm');
    expect(await page.locator('#alarm-worst').textContent()).toMatch(/^FAULT main CH1: .*channel 1/);
    expect(await marks()).toEqual(['critical', 'waiting']);
    // Notifications were allowed: the raise is notified. No gesture yet: no sound was even made ready.
    expect(await page.locator('#alarm-notify').textContent()).toBe('Alarm notifications on');
    await untilPage(async () => (await probe()).notifications.length === 1, 'the notification', WAIT_MS);
    expect(await probe()).toEqual({ contexts: 0, tones: 0, notifications: ['recdeck alarm: FAULT main CH1'], tonesWhile: [] });
    await shot('raised');
    // What the socket carries is its schema's: a socket of our own is sent it on connect.
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, { headers: { origin: server.url } });
    const messages: unknown[] = [];
    socket.on('message', (data: Buffer, binary: boolean) => {
      if (!binary) messages.push(JSON.parse(data.toString()));
    });
    try {
      await until(() => messages.some((m) => (m as { type?: string }).type === 'alarms'), 'the alarms message', WAIT_MS);
      const sent = AlarmsMessage.parse(messages.find((m) => (m as { type?: string }).type === 'alarms'));
      expect(sent.active.map((a) => `${a.state} ${a.id}`)).toEqual(['raised channel-fault:main:ch1']);
    } finally {
      socket.close();
    }
  });

  it.sequential('Acknowledge acknowledges it through POST /alarms/{id}/ack: the banner stops asking', async ({ expect }) => {
    await page.locator('#alarm-ack').click();
    await until(() => alarms.monitor.active()[0]?.ackedAt !== null, 'the acknowledgement', WAIT_MS);
    expect(alarms.monitor.active()[0]?.ackedBy).toBe('127.0.0.1 (remote API)');
    await untilPage(async () => (await page.locator('#alarm-count').textContent()) === '1 alarm, acknowledged', 'the banner to say so', WAIT_MS);
    expect(await marks()).toEqual(['critical']);
    expect(await page.locator('#alarm-ack').isDisabled()).toBe(true);
    // The click was the operator's gesture: the page's sound is ready now, and has made no sound. It waits
    // suspended: a running AudioContext plays silence, keeping the audio output and its thread awake.
    expect(await probe()).toMatchObject({ contexts: 1, tones: 0 });
    await untilPage(async () => (await audioState()) === 'suspended', 'the ready sound to wait suspended', WAIT_MS);
    await shot('acknowledged');
  });

  it.sequential('a second raise beeps and asks again; the faults cleared, the banner goes', async ({ expect }) => {
    await fault(1, true);
    await f.until(() => alarms.monitor.active().length === 2, 'the second alarm', 5000);
    await untilPage(async () => (await probe()).tones > 0, 'the beep', WAIT_MS);
    expect(await page.locator('#alarm-count').textContent()).toBe('2 alarms, 1 waiting');
    expect(await marks()).toEqual(['critical', 'waiting']);
    expect((await probe()).notifications).toEqual(['recdeck alarm: FAULT main CH1', 'recdeck alarm: FAULT main CH2']);
    // The beep sounded (its audio resumed for it: a tone started in a suspended one is silent), and the
    // audio is suspended again once it has ended.
    await untilPage(async () => (await probe()).tones === 3, 'the beep\'s three tones', WAIT_MS);
    expect((await probe()).tonesWhile).toEqual(['running', 'running', 'running']);
    await untilPage(async () => (await audioState()) === 'suspended', 'the audio to be suspended after the beep', WAIT_MS);
    await shot('second');
    await fault(0, false);
    await fault(1, false);
    await f.until(() => alarms.monitor.active().length === 0, 'the alarms to clear', 5000);
    await untilPage(() => banner().isHidden(), 'the banner to go', WAIT_MS);
    const tones = (await probe()).tones;
    expect(tones).toBe(3); // one critical beep (three tones), and nothing for the clears
  });
});
