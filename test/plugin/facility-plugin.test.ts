// e2e: the plugin in facility mode (global settings `{ mqtt: … }`) runs as its own Node process, as the
// Stream Deck app runs it (npm run build's plugin in an installed folder, built-plugin.ts; the packed one
// is streamdeck-plugin.test.ts's), joining a real Mosquitto as a panel, with a poller holding the
// simulator's token: a press travels app → plugin → broker → poller → recorder over real sockets and a
// real broker, so it must be e2e.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedFacility, startPoller, type PollerProcess } from '../support/facility.js';
import { HOLDER_LAPSED, PANEL_LAPSED } from '../support/lease-stalls.js';
import { startBroker, type RestartableBroker } from '../support/mosquitto.js';
import { lastSeq, startFixture, type SimulatorFixture } from '../support/simulator.js';
import { until } from '../support/until.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { builtPluginFolder } from './built-plugin.js';
import { actionUuid, PLUGIN_UUID, type PluginFolder } from './packed-plugin.js';

const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const POLL_MS = 250;

let plugin: PluginFolder;
let broker: RestartableBroker;
let sim: SimulatorFixture;
let poller: PollerProcess;
let files: { facility: string; keyFile: string };
let work: string;
let app: FakeStreamDeckApp;

beforeAll(async () => {
  plugin = await builtPluginFolder();
  work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-facility-'));
  broker = await startBroker();
  sim = await startFixture();
  const members = generatedFacility('main', ['poller-main'], ['desk-1']);
  files = await members.writeFiles(work, 'desk-1');
  poller = await startPoller(broker, sim, POLL_MS, { authority: members.authority('poller-main') });
  // One plugin process for the file: each test gives it the global settings it needs (a new facility
  // entry is joined afresh) and uses keys of its own.
  app = await FakeStreamDeckApp.start(PLUGIN_UUID);
  await app.launch(plugin.folder, [DECK]);
});

afterAll(async () => {
  await app?.close();
  poller?.kill();
  await poller?.mqtt.endAsync(true);
  await sim?.close();
  await broker?.stop();
  plugin?.remove();
  rmSync(work, { recursive: true, force: true });
});

const pluginLog = () => readFileSync(join(plugin.folder, 'logs', `${PLUGIN_UUID}.0.log`), 'utf8');
const lastTitle = (context: string) => titleOf(app.images(context).at(-1) ?? '');

/**
 * A press refused because what the key knew had aged past use by the time it was read: the toggle's state
 * past its age, the poller's lease lapsed in the panel's view, or the poller's own renewal not back within
 * the lease's TTL (it acts on nothing then). On a machine this busy (a paired run, load 11-13) the plugin
 * or the poller can be held past a 250 ms poll's ages; nothing is sent to the recorder, and an operator
 * presses again.
 */
const STALL = new RegExp(`: (refused|failed): (the recorder's state is stale|${PANEL_LAPSED.source}|.*(${HOLDER_LAPSED.source}))`);

/**
 * Presses a key (down, up) until the plugin runs it: again on a stall refusal (at most 4 presses), at once
 * a failure naming the plugin's log on any other alert or when neither comes (a paired run's failure said
 * only "timed out waiting for the recording tile"). Answers how many messages the app had before the press
 * that ran.
 */
async function pressUntilRun(context: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const before = app.received.length;
    const logBefore = pluginLog().length;
    app.actionEvent('keyDown', actionUuid('rec-toggle'), context, 'DEV1');
    app.actionEvent('keyUp', actionUuid('rec-toggle'), context, 'DEV1');
    const told = () => `; the plugin logged since the press: ${pluginLog().slice(logBefore) || 'nothing'}`;
    await until(() => app.sent('showOk', context, before).length > 0 || app.sent('showAlert', context, before).length > 0, `the press's outcome on ${context} (OK or alert)`, 20_000).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}${told()}`);
    });
    if (app.sent('showAlert', context, before).length === 0) return before;
    // The alert's reason is logged as the alert is sent: read it once it is there.
    await until(() => pluginLog().slice(logBefore).includes(`${context} (rec-toggle): `), `the plugin's reason for the alert on ${context}`);
    if (attempt === 4 || !STALL.test(pluginLog().slice(logBefore))) throw new Error(`press ${attempt} on ${context} refused${told()}`);
  }
}

describe('the plugin as a panel of a facility', () => {
  it('a rec-toggle key goes live from the bus, and a press reaches the recorder exactly once through the poller; no token on the desk', async () => {
    const settings = { mqtt: { url: broker.url, id: 'desk-1', keyFile: files.keyFile, facilityFile: files.facility } };
    // What the desk holds: no recorder token anywhere in its settings.
    expect(JSON.stringify(settings)).not.toContain(sim.sim.token);
    app.setGlobalSettings(settings);
    app.willAppear({ action: actionUuid('rec-toggle'), context: 'K1', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await until(() => lastTitle('K1') === 'channel 1: idle', 'the key to show channel 1 idle and live, from the bus', 20_000);

    const mark = lastSeq(sim.sim);
    const sentBefore = await pressUntilRun('K1');
    await until(() => app.images('K1', sentBefore).some((svg) => titleOf(svg).startsWith('channel 1: recording')), 'the recording tile', 20_000);
    await until(() => app.sent('showOk', 'K1', sentBefore).length > 0, "the app's OK mark on the key");
    // Exactly one write reached the recorder, and it came through the poller (its audit names the desk).
    expect(sim.sim.log.list().filter((r) => r.seq > mark && r.method !== 'GET').map((r) => r.operation)).toEqual(['recStart']);
    expect(poller.audit.filter((record) => record.action === 'recStart' || /rec-?start/i.test(record.action))).toHaveLength(1);
    // The plugin never held the token: not in what it was given, nor in anything it logged.
    expect(pluginLog()).not.toContain(sim.sim.token.replace('perm:', ''));
    expect(pluginLog()).toContain('the panel "desk-1"');
    app.willDisappear(actionUuid('rec-toggle'), 'K1', 'DEV1');
  });

  it('a key file that is not there: the key says NO KEY and the log names the file; nothing is sent', async () => {
    const missing = join(work, 'no-such-key.pem');
    const mark = lastSeq(sim.sim);
    app.setGlobalSettings({ mqtt: { url: broker.url, id: 'desk-1', keyFile: missing, facilityFile: files.facility } });
    app.willAppear({ action: actionUuid('rec-toggle'), context: 'K2', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await until(() => lastTitle('K2').startsWith('NO KEY'), 'the key to say NO KEY', 20_000);
    await until(() => pluginLog().includes(`keyFile: cannot read ${missing}: no such file`), 'the log to name the key file');
    const before = app.received.length;
    app.actionEvent('keyDown', actionUuid('rec-toggle'), 'K2', 'DEV1');
    app.actionEvent('keyUp', actionUuid('rec-toggle'), 'K2', 'DEV1');
    await until(() => app.sent('showAlert', 'K2', before).length > 0, 'the press refused with an alert');
    expect(sim.sim.log.list().filter((r) => r.seq > mark && r.method !== 'GET')).toEqual([]);
  });
});
