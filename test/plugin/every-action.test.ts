// Integration: the plugin's own wiring (start-plugin.ts: Elgato's SDK, the deck, the engine) runs in this
// process on virtual time, registered with a fake app over a real WebSocket speaking Elgato's protocol,
// against simulators over real HTTP; what is checked is the app's side (every command the plugin sent,
// each key's SVG tile decoded) and the recorder's (its request log, stamped with the virtual clock). The
// packed plugin run by real Node is streamdeck-plugin.test.ts's acceptance check; here polls, holds and
// ages run when the test moves the clock, so each step takes as long as its I/O, not its intervals.
//
// One plugin serves the whole file (the SDK connects once per process): the tests run in order on it,
// each on its own keys (contexts), and each puts the recorder in the state it needs. Two simulators:
// "main" keeps answering; "far" is the one the tile tests slow down and cut off, so main's keys stay live.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YES_NO } from '../../src/api/app.js';
import { PLUGIN_ACTIONS } from '../../src/plugin/plugin-actions.js';
import type { SimulatedRecorder } from '../../src/simulator/recorder.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { until, WAIT_MS } from '../support/until.js';
import { VirtualTime } from '../support/virtual-time.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { startInProcessPlugin, type InProcessPlugin } from './in-process-plugin.js';
import { actionUuid, PLUGIN_UUID } from './packed-plugin.js';

const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const XL: FakeDevice = { id: 'DEV2', name: 'Stream Deck XL', type: 2, size: { columns: 8, rows: 4 } };
const PLUS: FakeDevice = { id: 'DEV3', name: 'Stream Deck +', type: 7, size: { columns: 4, rows: 2 } };
const WRONG_TOKEN = 'perm:00000000-0000-4000-8000-000000000000';
/** Where save-project writes and load-project reads (the simulator's machine is this one). */
const PROJECTS = mkdtempSync(join(tmpdir(), 'recdeck-every-action-'));
const PROJECT_FILE = join(PROJECTS, 'studio.json');
/** The engine's state poll interval (the plugin runs with the engine's default). */
const POLL_MS = 250;

const time = new VirtualTime();
let plugin: InProcessPlugin;
let main: RunningSimulator;
let far: RunningSimulator;
let app: FakeStreamDeckApp;

beforeAll(async () => {
  main = await startSimulator({ port: 0, clock: time });
  far = await startSimulator({ port: 0, clock: time });
  app = await FakeStreamDeckApp.start(PLUGIN_UUID);
  app.stamp = () => main.log.list().at(-1)?.seq ?? 0;
  plugin = await startInProcessPlugin(app, [DECK, XL, PLUS], time);
  app.setGlobalSettings({
    recorders: [
      { name: 'main', url: main.url, token: main.token },
      { name: 'far', url: far.url, token: far.token },
      { name: 'wrong', url: main.url, token: WRONG_TOKEN },
    ],
  });
  // The bound is the first load of the plugin's modules and the SDK on a loaded machine, not a wait.
}, WAIT_MS * 4);

afterAll(async () => {
  // Nothing left for the plugin to poll: it stays loaded in this worker (the SDK cannot be unloaded).
  if (app !== undefined) app.setGlobalSettings({ recorders: [] });
  await plugin?.advance(POLL_MS);
  await app?.close();
  await main?.close();
  await far?.close();
  plugin?.close();
  rmSync(PROJECTS, { recursive: true, force: true });
});

const lastSeq = (sim: RunningSimulator) => sim.log.list().at(-1)?.seq ?? 0;
const requests = (sim: RunningSimulator, since: number) => sim.log.list().filter((r) => r.seq > since);
const writes = (sim: RunningSimulator, since: number) => requests(sim, since).filter((r) => r.method !== 'GET');
const polls = (sim: RunningSimulator, since: number) => requests(sim, since).filter((r) => r.operation === 'listChannels').length;
const operations = (sim: RunningSimulator, operation: string, since = 0) => requests(sim, since).filter((r) => r.operation === operation);
const lastTile = (context: string) => app.images(context).at(-1) ?? '';
const lastTitle = (context: string) => titleOf(lastTile(context));
const pluginLog = () => plugin.log();

/** One action pressed on a key of its own: the recorder's state it needs, and the one request it must send. */
interface Scenario {
  settings: Record<string, unknown>;
  operation: string;
  /** What the request's path must be (the channel's 0-based index, the name). */
  path?: RegExp;
  setup?: (recorder: SimulatedRecorder) => void;
  /** A read the key needs before a press means anything (a gain step starts from a live gain). */
  reads?: string;
  /** Puts the recorder back for the next action. */
  after?: (recorder: SimulatedRecorder) => void;
}

const HOLD = 300;
const stopAll = (r: SimulatedRecorder) => {
  for (const index of [0, 1, 2]) r.recStop(index);
};
const syncGroup = (r: SimulatedRecorder) => r.syncOn(2);
const syncGroupRecording = (r: SimulatedRecorder) => {
  r.syncOn(2);
  r.syncRecStart();
};
const syncGroupBack = (r: SimulatedRecorder) => {
  r.syncRecStop();
  r.syncOff(2);
};

// Every action the plugin offers, in an order where each leaves the recorder as the next expects; the
// project actions come last (a new session and a load replace the project).
const SCENARIOS: Record<string, Scenario> = {
  'rec-start': { settings: { channel: 1 }, operation: 'recStart', path: /\/channels\/0\/rec-start$/, after: stopAll },
  'rec-pause': { settings: { channel: 1 }, operation: 'recPause', path: /\/channels\/0\/rec-pause$/, setup: (r) => r.recStart(0), after: stopAll },
  'rec-stop': { settings: { channel: 1, holdMs: HOLD }, operation: 'recStop', path: /\/channels\/0\/rec-stop$/, setup: (r) => r.recStart(0) },
  'rec-toggle': { settings: { channel: 2 }, operation: 'recStart', path: /\/channels\/1\/rec-start$/, after: stopAll },
  'pause-toggle': { settings: { channel: 2 }, operation: 'recPause', path: /\/channels\/1\/rec-pause$/, setup: (r) => r.recStart(1), after: stopAll },
  'rec-resume': {
    settings: { channel: 2 },
    operation: 'recStart',
    path: /\/channels\/1\/rec-start$/,
    setup: (r) => {
      r.recStart(1);
      r.recPause(1);
    },
    after: stopAll,
  },
  'sync-on': { settings: { channel: 3 }, operation: 'syncOn', path: /\/channels\/2\/sync-on$/, after: (r) => r.syncOff(2) },
  'sync-off': { settings: { channel: 3 }, operation: 'syncOff', path: /\/channels\/2\/sync-off$/, setup: syncGroup },
  'sync-toggle': { settings: { channel: 3 }, operation: 'syncOn', path: /\/channels\/2\/sync-on$/, after: (r) => r.syncOff(2) },
  'unset-source': { settings: { channel: 4 }, operation: 'unsetChannelSource', path: /\/channels\/3\/unset-source$/, after: (r) => r.setSource(3, 'Cam 4') },
  'set-source': { settings: { channel: 4, source: 'Cam 2' }, operation: 'setChannelSource', path: /\/channels\/3\/set-source\/Cam%202$/, after: (r) => r.setSource(3, 'Cam 4') },
  'add-dest': { settings: { channel: 1, destination: 'Archive ProRes' }, operation: 'addChannelDestination', path: /\/channels\/0\/add-dest\/Archive%20ProRes$/, after: (r) => r.removeDestinationFrom(0, 'Archive ProRes') },
  'delete-dest': { settings: { channel: 1, destination: 'Archive ProRes' }, operation: 'deleteChannelDestination', setup: (r) => r.addDestinationTo(0, 'Archive ProRes') },
  'toggle-dest': { settings: { channel: 1, destination: 'Archive ProRes' }, operation: 'addChannelDestination', after: (r) => r.removeDestinationFrom(0, 'Archive ProRes') },
  'sync-rec-start': { settings: {}, operation: 'syncRecStart', setup: syncGroup, after: syncGroupBack },
  'sync-rec-pause': { settings: {}, operation: 'syncRecPause', setup: syncGroupRecording, after: syncGroupBack },
  'sync-rec-stop': { settings: { holdMs: HOLD }, operation: 'syncRecStop', setup: syncGroupRecording, after: (r) => r.syncOff(2) },
  'sync-rec-toggle': { settings: {}, operation: 'syncRecStart', setup: syncGroup, after: syncGroupBack },
  'sync-rec-pause-toggle': { settings: {}, operation: 'syncRecPause', setup: syncGroupRecording, after: syncGroupBack },
  'dialog-ok': { settings: {}, operation: 'answerDialog', path: /\/dialog\/ok$/, setup: (r) => r.notify('Overwrite the take?', YES_NO) },
  'dialog-cancel': { settings: {}, operation: 'answerDialog', path: /\/dialog\/cancel$/, setup: (r) => r.notify('Overwrite the take?', YES_NO) },
  'schedule-set': { settings: { start: '08:00', stop: '18:00', type: 'All channels' }, operation: 'setSchedule' },
  'schedule-on': { settings: {}, operation: 'setSchedule', after: (r) => r.setSchedule({ IsEnabled: false }) },
  'schedule-off': { settings: {}, operation: 'setSchedule', setup: (r) => r.setSchedule({ IsEnabled: true }) },
  'schedule-toggle': { settings: {}, operation: 'setSchedule', after: (r) => r.setSchedule({ IsEnabled: false }) },
  'conversion-on': { settings: {}, operation: 'setConversionConfig' },
  'conversion-off': { settings: {}, operation: 'setConversionConfig' },
  'conversion-toggle': { settings: {}, operation: 'setConversionConfig' },
  'conversion-set': { settings: { 'frame-rate': '25', interlace: 'Progressive' }, operation: 'setConversionConfig' },
  'settings-set': { settings: { 'preview-refresh': 10 }, operation: 'updateSettings' },
  'gain-set': { settings: { channel: 1, db: -6 }, operation: 'updateSource', reads: 'getSource' },
  'gain-step': { settings: { channel: 1, db: 0.5 }, operation: 'updateSource', reads: 'getSource' },
  'save-project': { settings: { path: PROJECT_FILE }, operation: 'saveProject' },
  'load-project': { settings: { path: PROJECT_FILE, holdMs: HOLD }, operation: 'loadProject' },
  'new-session': { settings: { holdMs: HOLD }, operation: 'newSession' },
};

/** What a tile shows: its title (the picture in words), its rectangles' colours, the words drawn (its text paths' labels). */
function tileLook(svg: string): { title: string; colours: string[]; words: string[] } {
  return {
    title: titleOf(svg),
    colours: [...svg.matchAll(/<rect[^>]*fill="(#[0-9A-Fa-f]{6})"/g)].map((m) => (m[1] as string).toUpperCase()),
    words: [...svg.matchAll(/<path aria-label="([^"]*)"/g)].map((m) => m[1] as string),
  };
}

describe('each state on the key, as the tile the app is sent', () => {
  const show = async (context: string, recorder: string, settings: Record<string, unknown>, state: RegExp, what: string) => {
    app.willAppear({ action: actionUuid('rec-toggle'), context, device: 'DEV1', settings: { recorder, ...settings }, column: 4, row: 2 });
    await plugin.until(() => state.test(titleOf(lastTile(context))), what);
    return tileLook(lastTile(context));
  };

  it('stopped (READY), recording (REC) and paused (PAUSED), each in its own colour', async () => {
    const ready = await show('TILE-LIVE', 'main', { channel: 4 }, /^channel 4: idle$/, 'channel 4 ready');
    expect(ready.words).toContain('READY');
    expect(ready.colours).toContain('#3C3C3C');
    main.recorder().recStart(3);
    await plugin.until(() => titleOf(lastTile('TILE-LIVE')).startsWith('channel 4: recording'), 'channel 4 recording');
    const recording = tileLook(lastTile('TILE-LIVE'));
    expect(recording.words).toContain('REC');
    expect(recording.colours).toContain('#D55E00');
    main.recorder().recPause(3);
    await plugin.until(() => titleOf(lastTile('TILE-LIVE')).startsWith('channel 4: paused'), 'channel 4 paused');
    const paused = tileLook(lastTile('TILE-LIVE'));
    expect(paused.words).toContain('PAUSED');
    expect(paused.colours).toContain('#F0E442');
    main.recorder().recStop(3);
    await plugin.until(() => titleOf(lastTile('TILE-LIVE')) === 'channel 4: idle', 'channel 4 ready again');
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-LIVE', 'DEV1');
  });

  it('stale while the recorder answers late, OFFLINE when it stops answering, live again when it is back', async () => {
    const live = await show('TILE-FAR', 'far', { channel: 1 }, /^channel 1: idle$/, 'far\'s channel 1 live');
    expect(live.words).toContain('READY');
    // Answers a second and a half late: older than three polls when they come, but never timed out.
    far.faults.set([{ kind: 'latency', probability: 1, latencyMs: 1500, status: 500 }]);
    plugin.answersLate(new URL(far.url).origin, true);
    await plugin.until(() => titleOf(lastTile('TILE-FAR')).startsWith('channel 1: stale'), 'the key stale');
    const stale = tileLook(lastTile('TILE-FAR'));
    // The last state seen (READY), dimmed, and the data's age in words; not the live grey.
    expect(stale.words.some((w) => /READY/.test(w))).toBe(true);
    expect(stale.words.some((w) => /\d+\s*s|STALE/.test(w))).toBe(true);
    expect(stale.colours).not.toContain('#3C3C3C');
    far.faults.set([{ kind: 'reset', probability: 1, latencyMs: 0, status: 500 }]);
    await plugin.until(() => titleOf(lastTile('TILE-FAR')).startsWith('channel 1: offline'), 'the key OFFLINE');
    const offline = tileLook(lastTile('TILE-FAR'));
    expect(offline.words).toContain('OFFLINE');
    expect(offline.colours).toContain('#000000');
    expect(offline.words).not.toContain('READY');
    far.faults.set([]);
    plugin.answersLate(new URL(far.url).origin, false);
    await plugin.until(() => titleOf(lastTile('TILE-FAR')) === 'channel 1: idle', 'the key live again');
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-FAR', 'DEV1');
  });

  it('WRONG TOKEN for a recorder that refuses its token, SETTINGS naming the field for bad settings; neither sends anything', async () => {
    const wrong = await show('TILE-TOKEN', 'wrong', { channel: 1 }, /^WRONG TOKEN/, 'the key saying the token is refused');
    expect(wrong.title).toBe('WRONG TOKEN wrong');
    expect(wrong.words.join(' ')).toMatch(/WRONG TOKEN/);
    const bad = await show('TILE-SETTINGS', 'main', { channel: 0 }, /^SETTINGS/, 'the key saying its settings are wrong');
    expect(bad.title).toBe('SETTINGS channel');
    expect(bad.words.join(' ')).toMatch(/SETTINGS/);
    expect(bad.words.join(' ')).toMatch(/channel/);

    const mark = lastSeq(main);
    for (const context of ['TILE-TOKEN', 'TILE-SETTINGS']) {
      app.actionEvent('keyDown', actionUuid('rec-toggle'), context, 'DEV1');
      app.actionEvent('keyUp', actionUuid('rec-toggle'), context, 'DEV1');
    }
    await plugin.until(() => app.sent('showAlert', 'TILE-TOKEN').length === 1 && app.sent('showAlert', 'TILE-SETTINGS').length === 1, 'both keys alert');
    expect(writes(main, mark)).toEqual([]);
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-TOKEN', 'DEV1');
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-SETTINGS', 'DEV1');
  });
});

describe('holds, dials, polls and bad input', () => {
  it('fires a stop only after a hold between keyDown and keyUp; a tap sends nothing', async () => {
    app.willAppear({ action: actionUuid('rec-start'), context: 'HOLD-START', device: 'DEV1', settings: { recorder: 'main', channel: 2 } });
    app.willAppear({ action: actionUuid('rec-stop'), context: 'HOLD-STOP', device: 'DEV1', settings: { recorder: 'main', channel: 2, holdMs: 400 }, column: 1 });
    await plugin.until(() => lastTitle('HOLD-STOP') === 'channel 2: idle', 'the stop key live');
    app.actionEvent('keyDown', actionUuid('rec-start'), 'HOLD-START', 'DEV1');
    app.actionEvent('keyUp', actionUuid('rec-start'), 'HOLD-START', 'DEV1');
    await plugin.until(() => lastTitle('HOLD-STOP').startsWith('channel 2: recording'), 'channel 2 recording');

    const mark = lastSeq(main);
    const sentBefore = app.received.length;
    app.actionEvent('keyDown', actionUuid('rec-stop'), 'HOLD-STOP', 'DEV1');
    app.actionEvent('keyUp', actionUuid('rec-stop'), 'HOLD-STOP', 'DEV1');
    // The tap is answered on the key (redrawn, still recording), and nothing goes to the recorder, even
    // after the hold time has long passed.
    await plugin.until(() => app.images('HOLD-STOP', sentBefore).some((svg) => titleOf(svg).startsWith('channel 2: recording')), 'the key redrawn after the tap');
    await plugin.advance(1000);
    expect(operations(main, 'recStop', mark)).toHaveLength(0);

    const downAt = time.now();
    app.actionEvent('keyDown', actionUuid('rec-stop'), 'HOLD-STOP', 'DEV1');
    await plugin.until(() => operations(main, 'recStop', mark).length === 1, 'the stop after the hold');
    expect(operations(main, 'recStop', mark)[0]?.receivedAt).toBeGreaterThanOrEqual(downAt + 400);
    app.actionEvent('keyUp', actionUuid('rec-stop'), 'HOLD-STOP', 'DEV1');
    await plugin.until(() => lastTitle('HOLD-STOP') === 'channel 2: idle', 'channel 2 stopped');
    expect(operations(main, 'recStop', mark)).toHaveLength(1);
    app.willDisappear(actionUuid('rec-start'), 'HOLD-START', 'DEV1');
    app.willDisappear(actionUuid('rec-stop'), 'HOLD-STOP', 'DEV1');
  });

  it('polls a recorder once for keys on two devices, and not at all when no action is visible', async () => {
    app.willAppear({ action: actionUuid('rec-toggle'), context: 'TWO-A', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    app.willAppear({ action: actionUuid('pause-toggle'), context: 'TWO-B', device: 'DEV2', settings: { recorder: 'main', channel: 1 } });
    await plugin.until(() => lastTitle('TWO-A') === 'channel 1: idle' && lastTitle('TWO-B') === 'channel 1: idle', 'both keys live');
    // Over the next 12 channel reads, no two come within a tenth of the interval of each other: one poller.
    const mark = lastSeq(main);
    await plugin.until(() => operations(main, 'listChannels', mark).length >= 12, '12 channel reads', 12 * 2 * POLL_MS);
    const at = operations(main, 'listChannels', mark).map((r) => r.receivedAt);
    const gaps = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThan(POLL_MS / 10);

    app.willDisappear(actionUuid('rec-toggle'), 'TWO-A', 'DEV1');
    app.willDisappear(actionUuid('pause-toggle'), 'TWO-B', 'DEV2');
    // Nothing visible: once what was under way is answered, a second passes with no read at all.
    await plugin.advance(POLL_MS);
    const quiet = lastSeq(main);
    await plugin.advance(1000);
    expect(requests(main, quiet)).toEqual([]);
  });

  it('turns gain on a Stream Deck + dial from a live read, and a press sets it back to 0 dB', async () => {
    app.willAppear({ action: actionUuid('gain-step'), context: 'DIAL', device: 'DEV3', controller: 'Encoder', settings: { recorder: 'main', channel: 1, db: 0.5 } });
    // A step starts from a live gain: the strip cell shows one first.
    const stripTitle = () => titleOf(decodeURIComponent(String(app.sent('setFeedback', 'DIAL').at(-1)?.payload?.['full-canvas'] ?? '').split(',')[1] ?? ''));
    await plugin.until(() => /^meter 1: -?[\d.]+ dB, live$/.test(stripTitle()), 'the strip cell showing the live gain');
    const mark = lastSeq(main);
    app.dialRotate(actionUuid('gain-step'), 'DIAL', 'DEV3', 2);
    await plugin.until(() => operations(main, 'updateSource', mark).length === 1, 'the gain written');
    // The wire carries the gain as text ("-6.0"); two detents of 0.5 dB from a live read land on a half dB.
    const gainOf = (i: number) => Number((JSON.parse(operations(main, 'updateSource', mark)[i]?.body ?? '{}') as { AudioGain: string }).AudioGain);
    expect(Number.isInteger(gainOf(0) * 2)).toBe(true);
    app.actionEvent('dialDown', actionUuid('gain-step'), 'DIAL', 'DEV3', 'Encoder');
    app.actionEvent('dialUp', actionUuid('gain-step'), 'DIAL', 'DEV3', 'Encoder');
    await plugin.until(() => operations(main, 'updateSource', mark).length === 2, 'the gain reset');
    expect(gainOf(1)).toBe(0);
    app.willDisappear(actionUuid('gain-step'), 'DIAL', 'DEV3');
  });

  it('says what is wrong on the key and sends nothing: an unknown recorder; survives a malformed message, and fixed settings take effect', async () => {
    app.raw('{ this is not JSON');
    app.willAppear({ action: actionUuid('rec-start'), context: 'BAD-ZERO', device: 'DEV1', settings: { recorder: 'main', channel: 0 } });
    app.willAppear({ action: actionUuid('rec-start'), context: 'BAD-OTHER', device: 'DEV1', settings: { recorder: 'backup', channel: 1 }, column: 1 });
    await plugin.until(() => lastTitle('BAD-ZERO').startsWith('SETTINGS channel') && lastTitle('BAD-OTHER') === 'NO RECORDER backup', 'both keys saying what is wrong');
    const mark = lastSeq(main);
    app.actionEvent('keyDown', actionUuid('rec-start'), 'BAD-OTHER', 'DEV1');
    app.actionEvent('keyUp', actionUuid('rec-start'), 'BAD-OTHER', 'DEV1');
    await plugin.until(() => app.sent('showAlert', 'BAD-OTHER').length === 1, 'the alert on the key');
    await plugin.advance(2 * POLL_MS);
    expect(writes(main, mark)).toEqual([]);
    // Fixed settings take effect, and the plugin still runs after the malformed message.
    app.didReceiveSettings(actionUuid('rec-start'), 'BAD-ZERO', 'DEV1', { recorder: 'main', channel: 3 });
    await plugin.until(() => lastTitle('BAD-ZERO') === 'channel 3: idle', 'the fixed key live');
    app.willDisappear(actionUuid('rec-start'), 'BAD-ZERO', 'DEV1');
    app.willDisappear(actionUuid('rec-start'), 'BAD-OTHER', 'DEV1');
  });
});

describe('every action the plugin offers', () => {
  // The plugin reads only what visible keys need: most actions' keys here read no channel list, some
  // nothing at all. This key keeps the channel list read for the whole block, the clock each scenario
  // counts polls by (its key drawn after the recorder was set up, time for a second request to show).
  beforeAll(() => app.willAppear({ action: actionUuid('rec-toggle'), context: 'EVERY-POLLS', device: 'DEV1', settings: { recorder: 'main', channel: 4 } }));
  afterAll(() => app.willDisappear(actionUuid('rec-toggle'), 'EVERY-POLLS', 'DEV1'));

  it('has a scenario here for each, and for nothing else', () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual(PLUGIN_ACTIONS.map((a) => a.name).sort());
  });

  it.each(Object.entries(SCENARIOS))('%s sends its request exactly once, and the app marks the key OK', async (name, scenario) => {
    const context = `EVERY-${name}`;
    const uuid = actionUuid(name);
    const guarded = 'holdMs' in scenario.settings;
    scenario.setup?.(main.recorder());
    const ready = lastSeq(main);
    app.willAppear({ action: uuid, context, device: 'DEV1', settings: { recorder: 'main', ...scenario.settings } });
    // The key drawn from reads made after the recorder was put in its state (two polls of the fast group).
    await plugin.until(() => app.images(context).length > 0 && polls(main, ready) >= 2, `${name}: its key drawn from fresh reads`);
    if (scenario.reads !== undefined) await plugin.until(() => requests(main, ready).some((r) => r.operation === scenario.reads && r.status === 200), `${name}: ${scenario.reads} read`);

    const mark = lastSeq(main);
    const sentBefore = app.received.length;
    const downAt = time.now();
    app.actionEvent('keyDown', uuid, context, 'DEV1');
    if (guarded) await plugin.until(() => writes(main, mark).length > 0, `${name}: the request after the hold`);
    app.actionEvent('keyUp', uuid, context, 'DEV1');
    await plugin.until(() => app.received.slice(sentBefore).some((m) => m.context === context && (m.event === 'showOk' || m.event === 'showAlert')), `${name}: the result on the key`);
    // Two more polls: a second request, had one been sent, would be in the log by then.
    const answered = lastSeq(main);
    await plugin.until(() => polls(main, answered) >= 2, `${name}: two polls after the result`);

    const sent = writes(main, mark);
    // On a miss, what the plugin said about it (its log) comes with the failure.
    expect(sent.map((r) => r.operation), `${name}; the plugin's log ends:\n${pluginLog().split('\n').slice(-6).join('\n')}`).toEqual([scenario.operation]);
    expect(sent[0]?.status, `${name}: the recorder took it`).toBe(200);
    if (scenario.path !== undefined) expect(sent[0]?.path).toMatch(scenario.path);
    // A guarded action fires once the key has been held its time, not before.
    if (guarded) expect(sent[0]?.receivedAt ?? 0).toBeGreaterThanOrEqual(downAt + HOLD);
    expect(app.sent('showOk', context, sentBefore), name).toHaveLength(1);
    expect(app.sent('showAlert', context, sentBefore), name).toHaveLength(0);

    app.willDisappear(uuid, context, 'DEV1');
    scenario.after?.(main.recorder());
  });
});

describe('the plugin\'s log', () => {
  it('holds no token from messages the SDK cannot read, yet says they came; the plugin runs on', async () => {
    const typed = 's3cret-desk-token';
    const settings = JSON.stringify({ event: 'didReceiveGlobalSettings', payload: { settings: { recorders: [{ name: 'x', url: main.url, token: typed }, { name: 'y', url: main.url, token: WRONG_TOKEN }] } } });
    app.raw(settings.slice(0, -9));
    app.raw(JSON.stringify({ payload: { settings: { recorders: [{ name: 'x', url: main.url, token: typed }] } } }));
    const log = pluginLog;
    await until(() => /Failed to parse message \(\d+ characters/.test(log()) && /Received unknown message \(\d+ characters/.test(log()), 'both messages logged without their text');
    expect(log()).not.toContain(typed);
    expect(log()).not.toContain(WRONG_TOKEN.slice(5));
    expect(log()).not.toContain(main.token.slice(5));
    app.willAppear({ action: actionUuid('rec-toggle'), context: 'LOG', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await plugin.until(() => /^channel 1: /.test(titleOf(lastTile('LOG'))), 'a key still drawn after them');
  });
});
