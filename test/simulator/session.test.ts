// Save, load and new session; the schedule; the simulator's control routes and fault injection.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecorderError } from '../../src/api/errors.js';
import { startSimulator } from '../../src/simulator/server.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { until } from '../support/until.js';
import { settle } from '../support/virtual-time.js';
import { realClock } from '../../src/api/clock.js';

let f: SimulatorFixture;
beforeEach(async () => {
  f = await startFixture();
});
afterEach(() => f.close());

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('expected a refusal'), (e: unknown) => e as RecorderError);
const state = () => f.client.getAppState();

describe('save and load', () => {
  it('saves the whole project as JSON, atomically, and loads it back', async () => {
    const path = join(f.folder, 'show.json');
    await f.client.updateSource(0, { AudioGain: -2.5 });
    await f.client.syncOn(1);
    await f.client.setSchedule({ IsEnabled: true, StartTime: '10:00', StopTime: '11:00' });
    await f.client.saveProject(path);
    const saved = JSON.parse(await readFile(path, 'utf8')) as { Sources: { AudioGain: string }[]; Destinations: { StreamKey: string }[] };
    expect(saved.Sources[0]?.AudioGain).toBe('-2.5');
    expect(saved.Destinations.find((d) => d.StreamKey !== '')).toBeDefined(); // the project keeps the key; reads never show it
    expect((await readdir(f.folder)).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const original = await state();
    await f.client.newSession();
    expect((await state()).Sources).toEqual([]);
    await f.client.loadProject(path);
    expect(await state()).toEqual(original);
    expect(await f.client.getSchedule()).toMatchObject({ IsEnabled: true, StartTime: '10:00:00' });
  });

  it('refuses to save into a folder that does not exist', async () => {
    const error = await failure(f.client.saveProject(join(f.folder, 'no', 'such.json')));
    expect(error.serviceMessage).toBe(`Path: the folder ${join(f.folder, 'no')} does not exist`);
  });

  it('a missing file: 400 and the session untouched', async () => {
    const before = await state();
    const error = await failure(f.client.loadProject(join(f.folder, 'absent.json')));
    expect(error.serviceMessage).toBe(`Path: no project file at ${join(f.folder, 'absent.json')}`);
    expect(await state()).toEqual(before);
  });

  it.each([
    ['not JSON', '{"Format": ', /is not valid JSON/],
    ['another format', '{"Format":"other"}', /: Format: expected one of "recdeck-simulator-project", got "other"/],
  ])('a corrupt file (%s): 400 and the session untouched', async (_what, text, message) => {
    const path = join(f.folder, 'bad.json');
    await writeFile(path, text);
    const before = await state();
    expect((await failure(f.client.loadProject(path))).serviceMessage).toMatch(message);
    expect(await state()).toEqual(before);
  });

  it('a file that breaks a rule deep inside is refused whole, naming where', async () => {
    const path = join(f.folder, 'show.json');
    await f.client.saveProject(path);
    const project = JSON.parse(await readFile(path, 'utf8')) as { Channels: { SourceName: string | null }[]; Sources: { VideoFormat: string }[] };
    (project.Sources[3] as { VideoFormat: string }).VideoFormat = '8K 4320p 120';
    await writeFile(path, JSON.stringify(project));
    const before = await state();
    expect((await failure(f.client.loadProject(path))).serviceMessage).toMatch(/^project file .*show\.json: Sources\[3\]: VideoFormat: expected one of/);
    expect(await state()).toEqual(before);

    (project.Sources[3] as { VideoFormat: string }).VideoFormat = 'HD 1080i 50';
    (project.Channels[2] as { SourceName: string | null }).SourceName = 'Ghost';
    await writeFile(path, JSON.stringify(project));
    expect((await failure(f.client.loadProject(path))).serviceMessage).toMatch(/Channels\[2\]: source_name: no source named "Ghost"/);
    expect(await state()).toEqual(before);
  });

  it('load and new while recording ask first; cancel keeps the session, ok replaces it', async () => {
    const path = join(f.folder, 'show.json');
    await f.client.saveProject(path);
    await f.client.updateSource(0, { Name: 'Renamed' });
    await f.client.recStart(0);

    await f.client.loadProject(path);
    expect(await f.client.getDialog()).toEqual({ IsDialog: true, DialogContent: `Channel 1 is recording. Stop recording and load ${path}?`, Buttons: 'Yes_No' });
    await f.client.answerDialog('cancel');
    expect(await f.client.getChannel(0)).toMatchObject({ SourceName: 'Renamed', IsRecording: true });

    await f.client.newSession();
    expect((await f.client.getDialog()).DialogContent).toBe('Channel 1 is recording. Stop recording and start a new session?');
    await f.client.answerDialog('ok');
    expect(await f.client.getChannel(0)).toMatchObject({ SourceName: null, IsRecording: false });
    expect((await state()).Sources).toEqual([]);
    expect((await state()).EncodingPresets.length).toBeGreaterThan(0);
  });

  it('starts from a project file given at start', async () => {
    const path = join(f.folder, 'start.json');
    await f.client.updateSource(0, { Name: 'From File' });
    await f.client.saveProject(path);
    const other = await startSimulator({ clock: realClock, port: 0, tickMs: 0, projectFile: path, recordingsFolder: join(f.folder, 'recordings') });
    try {
      const { RecorderClient } = await import('../../src/api/client.js');
      const client = new RecorderClient({ clock: realClock, url: other.url, token: other.token });
      expect((await client.getChannel(0)).SourceName).toBe('From File');
      await client.close();
    } finally {
      await other.close();
    }
  });
});

describe('schedule', () => {
  const hhmm = (ms: number) => {
    const d = new Date(ms);
    return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  };

  it('All channels: starts every channel that can record at StartTime and stops them at StopTime', async () => {
    f.clock.advanceTo(Math.floor(f.clock.now() / 60_000) * 60_000 + 90_000); // half past a minute
    f.sim.tick();
    await f.client.syncOn(3);
    await f.client.setSchedule({ IsEnabled: true, StartTime: hhmm(f.clock.now() + 60_000), StopTime: hhmm(f.clock.now() + 180_000) });
    f.clock.advance(20_000);
    f.sim.tick();
    expect((await f.client.listChannels()).some((c) => c.IsRecording)).toBe(false);
    f.clock.advance(20_000); // crosses StartTime
    f.sim.tick();
    const started = await f.client.listChannels();
    expect(started.map((c) => c.IsRecording)).toEqual([true, true, true, true]);
    expect(started[3]?.IsInSyncRec).toBe(true);
    f.clock.advance(120_000); // crosses StopTime
    f.sim.tick();
    expect((await f.client.listChannels()).some((c) => c.IsRecording)).toBe(false);
  });

  it('In-sync only: runs the sync group alone', async () => {
    f.clock.advanceTo(Math.floor(f.clock.now() / 60_000) * 60_000 + 90_000);
    f.sim.tick();
    await f.client.syncOn(1);
    await f.client.setSchedule({ IsEnabled: true, StartTime: hhmm(f.clock.now() + 60_000), StopTime: hhmm(f.clock.now() + 120_000), ScheduleType: 'In-sync only' });
    f.clock.advance(40_000);
    f.sim.tick();
    expect((await f.client.listChannels()).map((c) => c.IsRecording)).toEqual([false, true, false, false]);
    expect((await f.client.getSyncState()).IsSyncRecording).toBe(true);
    f.clock.advance(60_000);
    f.sim.tick();
    expect((await f.client.getSyncState()).IsSyncRecording).toBe(false);
  });

  it('a disabled schedule does nothing at its times', async () => {
    f.clock.advanceTo(Math.floor(f.clock.now() / 60_000) * 60_000 + 90_000);
    f.sim.tick();
    await f.client.setSchedule({ IsEnabled: false, StartTime: hhmm(f.clock.now() + 60_000), StopTime: hhmm(f.clock.now() + 120_000) });
    f.clock.advance(40_000);
    f.sim.tick();
    expect((await f.client.listChannels()).some((c) => c.IsRecording)).toBe(false);
  });
});

describe('control routes and faults', () => {
  it('raises a dialog and marks a channel wrong', async () => {
    expect((await f.raw('POST', '/_sim/dialog', { body: '{"content":"Disk almost full","buttons":"Yes_No"}' })).status).toBe(200);
    expect(await f.client.getDialog()).toEqual({ IsDialog: true, DialogContent: 'Disk almost full', Buttons: 'Yes_No' });
    expect((await f.raw('POST', '/_sim/dialog', { body: '{"content":"again"}' })).status).toBe(400);
    await f.raw('POST', '/_sim/channels/2/wrong', { body: '{"wrong":true}' });
    expect((await f.client.getChannel(2)).IsSomethingWrong).toBe(true);
  });

  it('control routes need the token too', async () => {
    expect((await f.raw('GET', '/_sim/requests', { authorization: null })).status).toBe(401);
  });

  it('refuses a malformed fault rule, naming the field', async () => {
    const { status, json } = await f.raw('PUT', '/_sim/faults', { body: '{"rules":[{"kind":"explode"}]}' });
    expect(status).toBe(400);
    expect((json as { Error: string }).Error).toMatch(/^rules\.0\.kind: expected one of "latency"/);
  });

  it('a status fault answers without carrying the request out; a count spends it', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'status', status: 500, path: '/api/channels/0/rec-start', count: 1 }] }) });
    expect((await failure(f.client.recStart(0))).status).toBe(500);
    expect((await f.client.getChannel(0)).IsRecording).toBe(false);
    await f.client.recStart(0);
    expect((await f.client.getChannel(0)).IsRecording).toBe(true);
  });

  it('a malformed answer still carries the request out', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'malformed', path: '/api/channels/1/rec-start', count: 1 }] }) });
    await f.client.recStart(1); // the write's answer is not read as data
    expect((await f.client.getChannel(1)).IsRecording).toBe(true);
  });

  it('latency delays the answer', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'latency', latencyMs: 120, count: 1 }] }) });
    let answered = false;
    const answer = f.client.getSyncState().then(() => (answered = true));
    await until(() => f.clock.nextDue() !== null, 'the request to arrive and wait'); // its delay is the only timer
    f.clock.advance(119);
    await settle(() => true);
    expect(answered).toBe(false);
    f.clock.advance(1);
    await answer;
  });

  it('probabilistic faults replay exactly for the same seed', async () => {
    const outcomes = async (seed: number) => {
      const g = await startFixture({ seed });
      try {
        await g.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'status', status: 503, probability: 0.5 }] }) });
        const results: number[] = [];
        for (let i = 0; i < 24; i++) results.push((await g.raw('GET', '/api/app/sync')).status);
        return results;
      } finally {
        await g.close();
      }
    };
    const first = await outcomes(7);
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await outcomes(7)).toEqual(first);
    expect(await outcomes(8)).not.toEqual(first);
  });

  it('the request log shows what was received, in order', async () => {
    await f.raw('DELETE', '/_sim/requests');
    await f.client.recStart(2);
    await f.client.updateSource(1, { StreamBuffer: 2 });
    const { json } = await f.raw('GET', '/_sim/requests');
    expect((json as { method: string; path: string; operation: string; body: string; status: number }[]).map((r) => [r.method, r.path, r.operation, r.body, r.status])).toEqual([
      ['PUT', '/api/channels/2/rec-start', 'recStart', '', 200],
      ['PUT', '/api/sources/1', 'updateSource', '{"StreamBuffer":2}', 200],
    ]);
  });
});
