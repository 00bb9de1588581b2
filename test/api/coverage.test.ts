// The interface's every operation, written out here from the document (not taken from the code), and
// checks that both the client and the simulator cover each one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { operations } from '../../src/api/operations.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

const INTERFACE: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/api/channels'],
  ['GET', '/api/channels/{index}'],
  ['PUT', '/api/channels/count/{grid_size}'],
  ['GET', '/api/channels/{index}/preview'],
  ['PUT', '/api/channels/{index}/set-source/{source_name}'],
  ['PUT', '/api/channels/{index}/unset-source'],
  ['PUT', '/api/channels/{index}/add-dest/{destination_name}'],
  ['PUT', '/api/channels/{index}/delete-dest/{destination_name}'],
  ['PUT', '/api/channels/{index}/sync-on'],
  ['PUT', '/api/channels/{index}/sync-off'],
  ['PUT', '/api/channels/{index}/rec-start'],
  ['PUT', '/api/channels/{index}/rec-pause'],
  ['PUT', '/api/channels/{index}/rec-stop'],
  ['PUT', '/api/channels/sync-rec-start'],
  ['PUT', '/api/channels/sync-rec-pause'],
  ['PUT', '/api/channels/sync-rec-stop'],
  ['POST', '/api/sources'],
  ['PUT', '/api/sources/{index}'],
  ['GET', '/api/sources/{index}'],
  ['GET', '/api/sources'],
  ['DELETE', '/api/sources/{index}'],
  ['POST', '/api/destinations'],
  ['PUT', '/api/destinations/{index}'],
  ['GET', '/api/destinations/{index}'],
  ['GET', '/api/destinations'],
  ['DELETE', '/api/destinations/{index}'],
  ['POST', '/api/presets'],
  ['PUT', '/api/presets/{index}'],
  ['GET', '/api/presets/{index}'],
  ['GET', '/api/presets/{index}/formats'],
  ['GET', '/api/presets/{index}/videoCodecs'],
  ['GET', '/api/presets/{index}/audioCodecs'],
  ['GET', '/api/presets/{index}/timecodes'],
  ['GET', '/api/presets/'],
  ['DELETE', '/api/presets/{index}'],
  ['GET', '/api/devices/audio'],
  ['GET', '/api/devices/video'],
  ['GET', '/api/app/state'],
  ['GET', '/api/app/conversion-lists'],
  ['PUT', '/api/app/conversion-config'],
  ['GET', '/api/app/conversion-config'],
  ['GET', '/api/app/settings'],
  ['PUT', '/api/app/settings'],
  ['PUT', '/api/app/new'],
  ['PUT', '/api/app/save'],
  ['PUT', '/api/app/load'],
  ['GET', '/api/app/resources'],
  ['GET', '/api/app/sync'],
  ['GET', '/api/app/schedule'],
  ['PUT', '/api/app/schedule'],
  ['GET', '/api/app/dialog'],
  ['PUT', '/api/app/dialog/{action}'],
];

const key = (method: string, template: string) => `${method} ${template}`;

function templateOf(method: string, path: string): string | undefined {
  const pathOnly = path.split('?')[0] as string;
  const candidates = INTERFACE.filter(([m, template]) => {
    if (m !== method) return false;
    const pattern = new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`);
    return pattern.test(pathOnly);
  }).map(([, template]) => template);
  // A literal segment is more specific than a parameter (count/4 is not channel "count").
  return candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

type OperationMethod = Exclude<keyof RecorderClient, 'url' | 'send' | 'observe' | 'close'>;

/** One call per client method; the mapped type makes the compiler demand every one. */
const calls = (folder: string): Record<OperationMethod, (c: RecorderClient) => Promise<unknown>> => ({
  listChannels: (c) => c.listChannels(),
  getChannel: (c) => c.getChannel(0),
  setChannelCount: (c) => c.setChannelCount(4),
  getChannelPreview: (c) => c.getChannelPreview(0),
  setChannelSource: (c) => c.setChannelSource(0, 'Cam 2'),
  unsetChannelSource: (c) => c.unsetChannelSource(1),
  addChannelDestination: (c) => c.addChannelDestination(0, 'Archive ProRes'),
  deleteChannelDestination: (c) => c.deleteChannelDestination(0, 'Archive ProRes'),
  syncOn: (c) => c.syncOn(2),
  syncOff: (c) => c.syncOff(2),
  recStart: (c) => c.recStart(0),
  recPause: (c) => c.recPause(0),
  recStop: (c) => c.recStop(0),
  syncRecStart: (c) => c.syncOn(3).then(() => c.syncRecStart()),
  syncRecPause: (c) => c.syncRecPause(),
  syncRecStop: (c) => c.syncRecStop(),
  addSource: (c) => c.addSource({ Name: 'Extra' }),
  updateSource: (c) => c.updateSource(0, { AudioGain: -3 }),
  getSource: (c) => c.getSource(0),
  listSources: (c) => c.listSources(),
  deleteSource: (c) => c.listSources().then((s) => c.deleteSource(s.length - 1)),
  addDestination: (c) => c.addDestination({ Name: 'Spare' }),
  updateDestination: (c) => c.updateDestination(0, { NamingTemplate: '%source%' }),
  getDestination: (c) => c.getDestination(0),
  listDestinations: (c) => c.listDestinations(),
  deleteDestination: (c) => c.listDestinations().then((d) => c.deleteDestination(d.length - 1)),
  addPreset: (c) => c.addPreset({ Name: 'Spare preset' }),
  updatePreset: (c) => c.updatePreset(0, { VideoBitrate: '9000' }),
  getPreset: (c) => c.getPreset(0),
  getPresetFormats: (c) => c.getPresetFormats(0),
  getPresetVideoCodecs: (c) => c.getPresetVideoCodecs(0),
  getPresetAudioCodecs: (c) => c.getPresetAudioCodecs(0),
  getPresetTimecodes: (c) => c.getPresetTimecodes(0),
  listPresets: (c) => c.listPresets(),
  deletePreset: (c) => c.listPresets().then((p) => c.deletePreset(p.length - 1)),
  getAudioDevices: (c) => c.getAudioDevices(),
  getVideoDevices: (c) => c.getVideoDevices(),
  getAppState: (c) => c.getAppState(),
  getConversionLists: (c) => c.getConversionLists(),
  setConversionConfig: (c) => c.setConversionConfig({ IsEnabled: true }),
  getConversionConfig: (c) => c.getConversionConfig(),
  getSettings: (c) => c.getSettings(),
  updateSettings: (c) => c.updateSettings({ PreviewStretch: true }),
  newSession: (c) => c.newSession(),
  saveProject: (c) => c.saveProject(`${folder}/coverage.json`),
  loadProject: (c) => c.loadProject(`${folder}/coverage.json`),
  getResources: (c) => c.getResources(),
  getSyncState: (c) => c.getSyncState(),
  getSchedule: (c) => c.getSchedule(),
  setSchedule: (c) => c.setSchedule({ StartTime: '08:00', StopTime: '09:00' }),
  getDialog: (c) => c.getDialog(),
  // A start with no source (the loaded project is empty) raises the dialog this answers.
  answerDialog: (c) => c.recStart(0).catch(() => undefined).then(() => c.answerDialog('cancel')),
});

describe('the interface has 52 operations', () => {
  let f: SimulatorFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(() => f.close());

  it('lists 52 distinct operations, and the operation table holds exactly them', () => {
    expect(INTERFACE).toHaveLength(52);
    expect(new Set(INTERFACE.map(([m, p]) => key(m, p))).size).toBe(52);
    const table = Object.values(operations).map((o) => key(o.method, o.path));
    expect(new Set(table)).toEqual(new Set(INTERFACE.map(([m, p]) => key(m, p))));
  });

  it('the client sends every one of them, each with its own method', async () => {
    const methods = Object.getOwnPropertyNames(RecorderClient.prototype).filter(
      (name) => !['constructor', 'send', 'exchange', 'observe', 'close'].includes(name),
    );
    const plan = calls(f.folder);
    expect(methods.sort()).toEqual(Object.keys(plan).sort());
    f.sim.log.clear();
    for (const [name, call] of Object.entries(plan)) {
      await call(f.client).catch((error: unknown) => {
        throw new Error(`${name}: ${String(error)}`);
      });
    }
    const sent = new Set(f.sim.log.list().map((r) => key(r.method, templateOf(r.method, r.path) ?? `unmatched ${r.path}`)));
    for (const [method, template] of INTERFACE) expect(sent, `${method} ${template}`).toContain(key(method, template));
    expect([...sent].filter((k) => k.includes('unmatched'))).toEqual([]);
  });

  it('the simulator answers every one of them as an operation (never 404 or 405)', async () => {
    const sample: Record<string, string> = { index: '0', grid_size: '4', source_name: 'Cam%201', destination_name: 'Local%20Disk', action: 'cancel' };
    for (const [method, template] of INTERFACE) {
      const path = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => sample[name] as string);
      const before = f.sim.log.list().length;
      const { status } = await f.raw(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
      expect([404, 405], `${method} ${path} answered ${status}`).not.toContain(status);
      const logged = f.sim.log.list().slice(before);
      expect(logged.at(-1)?.operation, `${method} ${path}`).not.toBeNull();
    }
  });
});
