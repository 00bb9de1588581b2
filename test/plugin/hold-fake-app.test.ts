// e2e: the plugin (npm run build's, in an installed folder: built-plugin.ts) runs as its own Node process
// under the fake Stream Deck app (its documented WebSocket protocol) against the simulator over real
// HTTP: what is shown is that the app's own events (keyDown, then willAppear/willDisappear of other
// actions, then keyUp) reach the plugin's engine so that a stop held on one key still fires. The hold's
// exact timing and its cancelling are shown in process on virtual time (hold-across-rebuild.test.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { realClock } from '../../src/api/clock.js';
import { until } from '../support/until.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { builtPluginFolder } from './built-plugin.js';
import { actionUuid, PLUGIN_UUID, type PluginFolder } from './packed-plugin.js';

const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const XL: FakeDevice = { id: 'DEV2', name: 'Stream Deck XL', type: 2, size: { columns: 8, rows: 4 } };

let plugin: PluginFolder;
beforeAll(async () => {
  plugin = await builtPluginFolder();
});
afterAll(() => plugin.remove());

let sim: RunningSimulator | null = null;
let app: FakeStreamDeckApp | null = null;
afterEach(async () => {
  await app?.close();
  await sim?.close();
  app = null;
  sim = null;
});

describe('a stop held on one key, through the plugin as a process', () => {
  it('fires once when held, though other actions appeared and disappeared (on its device and another) while it was held', async () => {
    sim = await startSimulator({ port: 0, clock: realClock });
    app = await FakeStreamDeckApp.start(PLUGIN_UUID);
    await app.launch(plugin.folder, [DECK, XL]);
    const a = app;
    const s = sim;
    const stops = () => s.log.list().filter((r) => r.operation === 'recStop');
    const lastTitle = (context: string) => titleOf(a.images(context).at(-1) ?? '');
    a.setGlobalSettings({ recorders: [{ name: 'main', url: s.url, token: s.token }] });
    a.willAppear({ action: actionUuid('rec-toggle'), context: 'GONE', device: 'DEV1', settings: { recorder: 'main', channel: 3 }, column: 2 });
    a.willAppear({ action: actionUuid('rec-stop'), context: 'STOP', device: 'DEV1', settings: { recorder: 'main', channel: 1, holdMs: 1500 } });
    await until(() => lastTitle('STOP') === 'channel 1: idle' && lastTitle('GONE') === 'channel 3: idle', 'the keys live');
    a.willAppear({ action: actionUuid('rec-start'), context: 'START', device: 'DEV1', settings: { recorder: 'main', channel: 1 }, column: 1 });
    await until(() => lastTitle('START') === 'channel 1: idle', 'the start key live');
    a.actionEvent('keyDown', actionUuid('rec-start'), 'START', 'DEV1');
    a.actionEvent('keyUp', actionUuid('rec-start'), 'START', 'DEV1');
    await until(() => lastTitle('STOP').startsWith('channel 1: recording'), 'channel 1 recording');

    a.actionEvent('keyDown', actionUuid('rec-stop'), 'STOP', 'DEV1');
    // While it is held: an action appears on this device and on another, and one goes.
    a.willAppear({ action: actionUuid('rec-toggle'), context: 'NEW1', device: 'DEV1', settings: { recorder: 'main', channel: 2 }, column: 3 });
    a.willAppear({ action: actionUuid('rec-toggle'), context: 'NEW2', device: 'DEV2', settings: { recorder: 'main', channel: 4 } });
    a.willDisappear(actionUuid('rec-toggle'), 'GONE', 'DEV1');
    await until(() => lastTitle('NEW1') === 'channel 2: idle' && lastTitle('NEW2') === 'channel 4: idle', 'the new keys drawn while the stop is held');
    await until(() => stops().length > 0, 'the stop once the hold is reached');
    a.actionEvent('keyUp', actionUuid('rec-stop'), 'STOP', 'DEV1');
    await until(() => lastTitle('STOP') === 'channel 1: idle', 'channel 1 stopped');
    expect(stops()).toHaveLength(1);
    // The app's OK mark follows the command's answer, the idle title a poll: either may come first (a
    // paired run, 17:49 UTC, looked for the mark when the title came and found none yet).
    await until(() => a.sent('showOk', 'STOP').length > 0, "the app's OK mark on the key");
    expect(a.sent('showOk', 'STOP')).toHaveLength(1);
    expect(stops()).toHaveLength(1);
  });
});
