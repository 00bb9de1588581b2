// e2e: the PACKED plugin (npm run plugin's .streamDeckPlugin, unzipped) runs as its own Node process, as
// the Stream Deck app runs it, against a fake app over a real WebSocket and the simulator over real HTTP.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { until } from '../support/until.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { realClock } from '../../src/api/clock.js';

const UUID = 'com.recdeck.recorder';
const ROOT = new URL('../..', import.meta.url).pathname;
const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const action = (name: string) => `${UUID}.${name}`;

let work: string;
let folder: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-plugin.mjs'), '--out', work], { stdio: 'pipe' });
  // What an operator installs: the package, unpacked as the app unpacks it.
  execFileSync('unzip', ['-q', join(work, `${UUID}.streamDeckPlugin`), '-d', join(work, 'installed')]);
  folder = join(work, 'installed', `${UUID}.sdPlugin`);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

let sim: RunningSimulator | null = null;
let app: FakeStreamDeckApp | null = null;

afterEach(async () => {
  await app?.close();
  await sim?.close();
  app = null;
  sim = null;
});

async function started(devices: FakeDevice[] = [DECK]): Promise<{ sim: RunningSimulator; app: FakeStreamDeckApp }> {
  sim = await startSimulator({ port: 0, clock: realClock });
  app = await FakeStreamDeckApp.start(UUID);
  const log = sim.log;
  app.stamp = () => log.list().at(-1)?.seq ?? 0;
  await app.launch(folder, devices);
  return { sim, app };
}

const requests = (s: RunningSimulator, operation: string, since = 0) => s.log.list().filter((r) => r.seq > since && r.operation === operation);
const lastTitle = (a: FakeStreamDeckApp, context: string) => titleOf(a.images(context).at(-1) ?? '');

describe('the packed plugin', () => {
  it('is a folder with the manifest, one bundled file and no node_modules or native module', () => {
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { CodePath: string; Nodejs: { Version: string; Debug?: string }; Actions: Array<{ UUID: string }> };
    expect(manifest.Nodejs.Version).toBe('20');
    // No --inspect port on a desk: the folder says 'disabled', and Elgato's pack leaves the setting out
    // of the package (absent is the app's default, disabled); 'enabled' must never ship.
    expect(manifest.Nodejs.Debug ?? 'disabled').toBe('disabled');
    expect(manifest.Actions.map((a) => a.UUID)).toContain(action('rec-toggle'));
    expect(manifest.Actions.map((a) => a.UUID)).not.toContain(action('page-next'));
    expect(existsSync(join(folder, manifest.CodePath))).toBe(true);
    expect(execFileSync('find', [folder, '-name', 'node_modules', '-o', '-name', '*.node'], { encoding: 'utf8' })).toBe('');
  });

  it('done when: a rec-toggle press sends exactly one rec-start, the key shows it within 2 polls, and OFFLINE within 3 failed polls', async () => {
    const { sim, app } = await started();
    app.setGlobalSettings({ recorders: [{ name: 'main', url: sim.url, token: sim.token }] });
    app.willAppear({ action: action('rec-toggle'), context: 'K1', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await until(() => lastTitle(app, 'K1') === 'channel 1: idle', 'the key to show channel 1 idle and live');

    const mark = sim.log.list().at(-1)?.seq ?? 0;
    const sentBefore = app.received.length;
    app.actionEvent('keyDown', action('rec-toggle'), 'K1', 'DEV1');
    app.actionEvent('keyUp', action('rec-toggle'), 'K1', 'DEV1');
    await until(() => app.images('K1', sentBefore).some((svg) => titleOf(svg).startsWith('channel 1: recording')), 'the recording tile');
    const start = requests(sim, 'recStart', mark);
    expect(start).toHaveLength(1);
    expect(start[0]?.path).toBe('/api/channels/0/rec-start');
    // Polls of the channels after the command, before the recording tile came.
    const shown = app.sent('setImage', 'K1', sentBefore).find((m) => titleOf(decodeURIComponent(String(m.payload?.['image']).split(',')[1] ?? '')).startsWith('channel 1: recording'));
    const pollsBetween = requests(sim, 'listChannels', start[0]?.seq ?? 0).filter((r) => r.seq <= (shown?.stamp ?? 0));
    expect(pollsBetween.length).toBeLessThanOrEqual(2);
    await until(() => app.sent('showOk', 'K1', sentBefore).length > 0, 'the app\'s OK mark on the key');
    expect(app.sent('showOk', 'K1', sentBefore)).toHaveLength(1);
    // No second command came of it.
    expect(sim.log.list().filter((r) => r.seq > mark && r.method !== 'GET').map((r) => r.operation)).toEqual(['recStart']);

    // The recorder goes away: every request is dropped.
    const gone = sim.log.list().at(-1)?.seq ?? 0;
    const beforeGone = app.received.length;
    sim.faults.set([{ kind: 'reset', probability: 1, latencyMs: 0, status: 500 }]);
    await until(() => app.images('K1', beforeGone).some((svg) => titleOf(svg).startsWith('channel 1: offline')), 'the key to show OFFLINE');
    const offline = app.sent('setImage', 'K1', beforeGone).find((m) => titleOf(decodeURIComponent(String(m.payload?.['image']).split(',')[1] ?? '')).startsWith('channel 1: offline'));
    const failedPolls = requests(sim, 'listChannels', gone).filter((r) => r.seq <= (offline?.stamp ?? 0));
    expect(failedPolls.length).toBeLessThanOrEqual(3);
  });
});

describe('keys, dials and bad input through the packed plugin', () => {
  const main = (s: RunningSimulator) => ({ recorders: [{ name: 'main', url: s.url, token: s.token }] });

  it('fires a stop only after a hold between keyDown and keyUp; a tap sends nothing', async () => {
    const { sim, app } = await started();
    app.setGlobalSettings(main(sim));
    app.willAppear({ action: action('rec-start'), context: 'START', device: 'DEV1', settings: { recorder: 'main', channel: 2 } });
    app.willAppear({ action: action('rec-stop'), context: 'STOP', device: 'DEV1', settings: { recorder: 'main', channel: 2, holdMs: 400 }, column: 1 });
    await until(() => lastTitle(app, 'STOP') === 'channel 2: idle', 'the stop key live');
    app.actionEvent('keyDown', action('rec-start'), 'START', 'DEV1');
    app.actionEvent('keyUp', action('rec-start'), 'START', 'DEV1');
    await until(() => lastTitle(app, 'STOP').startsWith('channel 2: recording'), 'channel 2 recording');

    const mark = sim.log.list().at(-1)?.seq ?? 0;
    app.actionEvent('keyDown', action('rec-stop'), 'STOP', 'DEV1');
    app.actionEvent('keyUp', action('rec-stop'), 'STOP', 'DEV1');
    // The tap is answered on the key (HOLD), and nothing goes to the recorder.
    await until(() => app.received.some((m) => m.event === 'setImage' && m.context === 'STOP' && (m.stamp ?? 0) > mark && titleOf(decodeURIComponent(String(m.payload?.['image']).split(',')[1] ?? '')).startsWith('channel 2: recording')), 'the key redrawn after the tap');
    expect(requests(sim, 'recStop', mark)).toHaveLength(0);

    app.actionEvent('keyDown', action('rec-stop'), 'STOP', 'DEV1');
    await until(() => requests(sim, 'recStop', mark).length === 1, 'the stop after the hold');
    app.actionEvent('keyUp', action('rec-stop'), 'STOP', 'DEV1');
    await until(() => lastTitle(app, 'STOP') === 'channel 2: idle', 'channel 2 stopped');
    expect(requests(sim, 'recStop', mark)).toHaveLength(1);
  });

  it('polls a recorder once for keys on two devices, and not at all when no action is visible', async () => {
    const { sim, app } = await started([DECK, { id: 'DEV2', name: 'Stream Deck XL', type: 2, size: { columns: 8, rows: 4 } }]);
    app.setGlobalSettings(main(sim));
    app.willAppear({ action: action('rec-toggle'), context: 'A', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    app.willAppear({ action: action('pause-toggle'), context: 'B', device: 'DEV2', settings: { recorder: 'main', channel: 1 } });
    await until(() => lastTitle(app, 'A') === 'channel 1: idle' && lastTitle(app, 'B') === 'channel 1: idle', 'both keys live');
    // Over the next 12 channel reads, no two come within a tenth of the interval of each other: one poller.
    const mark = sim.log.list().at(-1)?.seq ?? 0;
    await until(() => requests(sim, 'listChannels', mark).length >= 12, '12 channel reads');
    const at = requests(sim, 'listChannels', mark).map((r) => r.receivedAt);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThan(25);

    app.willDisappear(action('rec-toggle'), 'A', 'DEV1');
    app.willDisappear(action('pause-toggle'), 'B', 'DEV2');
    // Nothing visible: the reads stop (a second passes with none).
    await until(() => {
      const last = sim.log.list().at(-1);
      return last !== undefined && performance.timeOrigin + performance.now() - last.receivedAt > 1000;
    }, 'the recorder left alone');
  });

  it('turns gain on a Stream Deck + dial from a live read, and a press sets it back to 0 dB', async () => {
    const { sim, app } = await started([{ id: 'DEV2', name: 'Stream Deck +', type: 7, size: { columns: 4, rows: 2 } }]);
    app.setGlobalSettings(main(sim));
    app.willAppear({ action: action('gain-step'), context: 'D', device: 'DEV2', controller: 'Encoder', settings: { recorder: 'main', channel: 1, db: 0.5 } });
    // A step starts from a live gain: the strip cell shows one first.
    const stripTitle = () => titleOf(decodeURIComponent(String(app.sent('setFeedback', 'D').at(-1)?.payload?.['full-canvas'] ?? '').split(',')[1] ?? ''));
    await until(() => /^meter 1: -?[\d.]+ dB, live$/.test(stripTitle()), 'the strip cell showing the live gain');
    const mark = sim.log.list().at(-1)?.seq ?? 0;
    app.dialRotate(action('gain-step'), 'D', 'DEV2', 2);
    await until(() => requests(sim, 'updateSource', mark).length === 1, 'the gain written');
    // The wire carries the gain as text ("-6.0"); two detents of 0.5 dB from a live read land on a half dB.
    const gainOf = (i: number) => Number((JSON.parse(requests(sim, 'updateSource', mark)[i]?.body ?? '{}') as { AudioGain: string }).AudioGain);
    expect(Number.isInteger(gainOf(0) * 2)).toBe(true);
    app.actionEvent('dialDown', action('gain-step'), 'D', 'DEV2', 'Encoder');
    app.actionEvent('dialUp', action('gain-step'), 'D', 'DEV2', 'Encoder');
    await until(() => requests(sim, 'updateSource', mark).length === 2, 'the gain reset');
    expect(gainOf(1)).toBe(0);
  });

  it('says what is wrong on the key and sends nothing: channel 0, an unknown recorder; survives a malformed message', async () => {
    const { sim, app } = await started();
    app.setGlobalSettings(main(sim));
    app.raw('{ this is not JSON');
    app.willAppear({ action: action('rec-start'), context: 'ZERO', device: 'DEV1', settings: { recorder: 'main', channel: 0 } });
    app.willAppear({ action: action('rec-start'), context: 'OTHER', device: 'DEV1', settings: { recorder: 'backup', channel: 1 }, column: 1 });
    await until(() => lastTitle(app, 'ZERO').startsWith('SETTINGS channel') && lastTitle(app, 'OTHER') === 'NO RECORDER backup', 'both keys saying what is wrong');
    const mark = sim.log.list().at(-1)?.seq ?? 0;
    app.actionEvent('keyDown', action('rec-start'), 'OTHER', 'DEV1');
    app.actionEvent('keyUp', action('rec-start'), 'OTHER', 'DEV1');
    await until(() => app.sent('showAlert', 'OTHER').length === 1, 'the alert on the key');
    expect(sim.log.list().filter((r) => r.seq > mark && r.method !== 'GET')).toEqual([]);
    // Fixed settings take effect, and the plugin still runs after the malformed message.
    app.didReceiveSettings(action('rec-start'), 'ZERO', 'DEV1', { recorder: 'main', channel: 3 });
    await until(() => lastTitle(app, 'ZERO') === 'channel 3: idle', 'the fixed key live');
    expect(app.exited).toBe(false);
  });

  it('shows a wrong token on its keys and never writes the token to the log', async () => {
    const { sim, app } = await started();
    app.setGlobalSettings({ recorders: [{ name: 'main', url: sim.url, token: 'perm:00000000-0000-4000-8000-000000000000' }] });
    app.willAppear({ action: action('rec-toggle'), context: 'K', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await until(() => lastTitle(app, 'K') === 'WRONG TOKEN main', 'the key saying the token is refused');
    const logs = execFileSync('cat', [join(folder, 'logs', `${UUID}.0.log`)], { encoding: 'utf8' });
    expect(logs).not.toContain('00000000-0000-4000-8000-000000000000');
    expect(logs).not.toContain(sim.token.replace('perm:', ''));
  });
});
