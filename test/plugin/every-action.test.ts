// e2e: the PACKED plugin runs as its own Node process, as the Stream Deck app runs it, against a fake app
// over a real WebSocket and simulators over real HTTP; what is checked is the app's side (every command
// the plugin sent, each key's SVG tile decoded) and the recorder's (its request log).
//
// One build and one plugin process serve the whole file: the tests run in order on the same plugin, each
// on its own keys (contexts), and each puts the recorder in the state it needs. Two simulators: "main"
// keeps answering; "far" is the one the tile tests slow down and cut off, so main's keys stay live.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YES_NO } from '../../src/api/app.js';
import { PLUGIN_ACTIONS } from '../../src/plugin/plugin-actions.js';
import type { SimulatedRecorder } from '../../src/simulator/recorder.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { until } from '../support/until.js';
import { FakeStreamDeckApp, titleOf, type FakeDevice } from './fake-streamdeck-app.js';
import { actionUuid, buildPackedPlugin, PLUGIN_UUID, type PackedPlugin } from './packed-plugin.js';
import { realClock } from '../../src/api/clock.js';

const DECK: FakeDevice = { id: 'DEV1', name: 'Stream Deck', type: 0, size: { columns: 5, rows: 3 } };
const WRONG_TOKEN = 'perm:00000000-0000-4000-8000-000000000000';
/** Where save-project writes and load-project reads (the simulator's machine is this one). */
const PROJECTS = mkdtempSync(join(tmpdir(), 'recdeck-every-action-'));
const PROJECT_FILE = join(PROJECTS, 'studio.json');

let packed: PackedPlugin;
let main: RunningSimulator;
let far: RunningSimulator;
let app: FakeStreamDeckApp;

beforeAll(async () => {
  packed = buildPackedPlugin();
  main = await startSimulator({ port: 0, clock: realClock });
  far = await startSimulator({ port: 0, clock: realClock });
  app = await FakeStreamDeckApp.start(PLUGIN_UUID);
  app.stamp = () => main.log.list().at(-1)?.seq ?? 0;
  await app.launch(packed.folder, [DECK]);
  app.setGlobalSettings({
    recorders: [
      { name: 'main', url: main.url, token: main.token },
      { name: 'far', url: far.url, token: far.token },
      { name: 'wrong', url: main.url, token: WRONG_TOKEN },
    ],
  });
}, 240_000);

afterAll(async () => {
  await app?.close();
  await main?.close();
  await far?.close();
  packed?.remove();
  rmSync(PROJECTS, { recursive: true, force: true });
});

const lastSeq = (sim: RunningSimulator) => sim.log.list().at(-1)?.seq ?? 0;
const requests = (sim: RunningSimulator, since: number) => sim.log.list().filter((r) => r.seq > since);
const writes = (sim: RunningSimulator, since: number) => requests(sim, since).filter((r) => r.method !== 'GET');
const polls = (sim: RunningSimulator, since: number) => requests(sim, since).filter((r) => r.operation === 'listChannels').length;
const lastTile = (context: string) => app.images(context).at(-1) ?? '';
const pluginLog = () => readFileSync(join(packed.folder, 'logs', `${PLUGIN_UUID}.0.log`), 'utf8');

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
    await until(() => state.test(titleOf(lastTile(context))), what);
    return tileLook(lastTile(context));
  };

  it('stopped (READY), recording (REC) and paused (PAUSED), each in its own colour', async () => {
    const ready = await show('TILE-LIVE', 'main', { channel: 4 }, /^channel 4: idle$/, 'channel 4 ready');
    expect(ready.words).toContain('READY');
    expect(ready.colours).toContain('#3C3C3C');
    main.recorder().recStart(3);
    await until(() => titleOf(lastTile('TILE-LIVE')).startsWith('channel 4: recording'), 'channel 4 recording');
    const recording = tileLook(lastTile('TILE-LIVE'));
    expect(recording.words).toContain('REC');
    expect(recording.colours).toContain('#D55E00');
    main.recorder().recPause(3);
    await until(() => titleOf(lastTile('TILE-LIVE')).startsWith('channel 4: paused'), 'channel 4 paused');
    const paused = tileLook(lastTile('TILE-LIVE'));
    expect(paused.words).toContain('PAUSED');
    expect(paused.colours).toContain('#F0E442');
    main.recorder().recStop(3);
    await until(() => titleOf(lastTile('TILE-LIVE')) === 'channel 4: idle', 'channel 4 ready again');
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-LIVE', 'DEV1');
  });

  it('stale while the recorder answers late, OFFLINE when it stops answering, live again when it is back', async () => {
    const live = await show('TILE-FAR', 'far', { channel: 1 }, /^channel 1: idle$/, 'far\'s channel 1 live');
    expect(live.words).toContain('READY');
    // Answers a second and a half late: older than three polls when they come, but never timed out.
    far.faults.set([{ kind: 'latency', probability: 1, latencyMs: 1500, status: 500 }]);
    await until(() => titleOf(lastTile('TILE-FAR')).startsWith('channel 1: stale'), 'the key stale');
    const stale = tileLook(lastTile('TILE-FAR'));
    // The last state seen (READY), dimmed, and the data's age in words; not the live grey.
    expect(stale.words.some((w) => /READY/.test(w))).toBe(true);
    expect(stale.words.some((w) => /\d+\s*s|STALE/.test(w))).toBe(true);
    expect(stale.colours).not.toContain('#3C3C3C');
    far.faults.set([{ kind: 'reset', probability: 1, latencyMs: 0, status: 500 }]);
    await until(() => titleOf(lastTile('TILE-FAR')).startsWith('channel 1: offline'), 'the key OFFLINE');
    const offline = tileLook(lastTile('TILE-FAR'));
    expect(offline.words).toContain('OFFLINE');
    expect(offline.colours).toContain('#000000');
    expect(offline.words).not.toContain('READY');
    far.faults.set([]);
    await until(() => titleOf(lastTile('TILE-FAR')) === 'channel 1: idle', 'the key live again');
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
    await until(() => app.sent('showAlert', 'TILE-TOKEN').length === 1 && app.sent('showAlert', 'TILE-SETTINGS').length === 1, 'both keys alert');
    expect(writes(main, mark)).toEqual([]);
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-TOKEN', 'DEV1');
    app.willDisappear(actionUuid('rec-toggle'), 'TILE-SETTINGS', 'DEV1');
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
    await until(() => app.images(context).length > 0 && polls(main, ready) >= 2, `${name}: its key drawn from fresh reads`);
    if (scenario.reads !== undefined) await until(() => requests(main, ready).some((r) => r.operation === scenario.reads && r.status === 200), `${name}: ${scenario.reads} read`);

    const mark = lastSeq(main);
    const sentBefore = app.received.length;
    app.actionEvent('keyDown', uuid, context, 'DEV1');
    if (guarded) await until(() => writes(main, mark).length > 0, `${name}: the request after the hold`);
    app.actionEvent('keyUp', uuid, context, 'DEV1');
    await until(() => app.received.slice(sentBefore).some((m) => m.context === context && (m.event === 'showOk' || m.event === 'showAlert')), `${name}: the result on the key`);
    // Two more polls: a second request, had one been sent, would be in the log by then.
    const answered = lastSeq(main);
    await until(() => polls(main, answered) >= 2, `${name}: two polls after the result`);

    const sent = writes(main, mark);
    // On a miss, what the plugin said about it (its log) comes with the failure.
    expect(sent.map((r) => r.operation), `${name}; the plugin's log ends:\n${pluginLog().split('\n').slice(-6).join('\n')}`).toEqual([scenario.operation]);
    expect(sent[0]?.status, `${name}: the recorder took it`).toBe(200);
    if (scenario.path !== undefined) expect(sent[0]?.path).toMatch(scenario.path);
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
    const logFile = join(packed.folder, 'logs', `${PLUGIN_UUID}.0.log`);
    const log = () => readFileSync(logFile, 'utf8');
    await until(() => /Failed to parse message \(\d+ characters/.test(log()) && /Received unknown message \(\d+ characters/.test(log()), 'both messages logged without their text');
    expect(log()).not.toContain(typed);
    expect(log()).not.toContain(WRONG_TOKEN.slice(5));
    expect(log()).not.toContain(main.token.slice(5));
    app.willAppear({ action: actionUuid('rec-toggle'), context: 'LOG', device: 'DEV1', settings: { recorder: 'main', channel: 1 } });
    await until(() => /^channel 1: /.test(titleOf(lastTile('LOG'))), 'a key still drawn after them');
  });
});
