// e2e because one test runs the built `recdeck watch` as a process (JSON lines on its stdout, its stop on
// SIGTERM); the others run its poller and printer in this process, on virtual time.
// `recdeck watch`: the recorder's state changes as JSON lines, through the bridge's own poller.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { startWatch, stateChanges, type WatchEvent } from '../../src/cli/watch.js';
import { RequestCounter, VirtualTime, advanceWithIo } from '../support/virtual-time.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { channelOf } from '../support/channels.js';
import { until } from '../support/until.js';


const channel = (over: Parameters<typeof channelOf>[1] = {}) => channelOf(0, over);

describe('what counts as a change', () => {
  const initial = initialRecorderState('main', 250);
  const base: RecorderState = { ...initial, lastGoodAt: 1, readAt: { ...initial.readAt, channels: 1, sync: 1, dialog: 1 }, channels: [channel()] };

  it('the first answer connects and gives every channel; later only the fields that changed', () => {
    expect(stateChanges(initialRecorderState('main', 250), base, { counters: false })).toEqual([{ event: 'connected' }, { event: 'channels', channels: [channel()] }]);
    const recording = { ...base, lastGoodAt: 2, channels: [channel({ IsRecording: true, RecordingDuration: 1 })] };
    expect(stateChanges(base, recording, { counters: false })).toEqual([{ event: 'channel', index: 0, changed: { IsRecording: true } }]);
    expect(stateChanges(base, recording, { counters: true })).toEqual([{ event: 'channel', index: 0, changed: { IsRecording: true, RecordingDuration: 1 } }]);
    const ticking = { ...recording, lastGoodAt: 3, channels: [channel({ IsRecording: true, RecordingDuration: 2, RecordingFPS: 25 })] };
    expect(stateChanges(recording, ticking, { counters: false })).toEqual([]);
  });

  it('a failure is told once per message, and the recovery once', () => {
    const failing = { ...base, failures: 1, lastError: 'GET /api/channels failed (network): ECONNREFUSED', unreachable: true };
    expect(stateChanges(base, failing, { counters: false })).toEqual([{ event: 'error', error: failing.lastError, unreachable: true }]);
    expect(stateChanges(failing, { ...failing, failures: 2 }, { counters: false })).toEqual([]);
    expect(stateChanges({ ...failing, failures: 2 }, { ...base, lastGoodAt: 9 }, { counters: false })).toEqual([{ event: 'connected' }]);
  });
});

describe('watching the simulator', () => {
  let f: SimulatorFixture;
  let stop: (() => void) | undefined;
  beforeEach(async () => {
    f = await startFixture();
  });
  afterEach(async () => {
    stop?.();
    await f.close();
  });

  it('prints a line for each change a command makes, as JSON with time and recorder', async () => {
    const lines: string[] = [];
    const time = new VirtualTime();
    const requests = new RequestCounter(f.client, time);
    const advance = (ms: number) => advanceWithIo(time, ms, requests.quiet);
    stop = startWatch({ name: 'main', client: f.client, pollMs: 50, counters: false, write: (line) => lines.push(line), time });
    const events = () => lines.map((line) => JSON.parse(line) as WatchEvent);
    await advance(0);
    expect(events()[0]).toEqual({ at: new Date(time.now()).toISOString(), recorder: 'main', event: 'connected' });
    expect(events().map((e) => e.event)).toEqual(expect.arrayContaining(['channels', 'schedule']));

    const before = lines.length;
    await f.client.recStart(2);
    await advance(50);
    expect(events().slice(before).filter((e) => e.event === 'channel')).toEqual([{ at: new Date(time.now()).toISOString(), recorder: 'main', event: 'channel', index: 2, changed: { IsRecording: true } }]);

    const beforeDialog = lines.length;
    await f.raw('POST', '/_sim/dialog', { body: '{"content":"Disk almost full","buttons":"OK"}' });
    await advance(50);
    expect(events().slice(beforeDialog).find((e) => e.event === 'dialog')).toMatchObject({ changed: { IsDialog: true, DialogContent: 'Disk almost full', Buttons: 'OK' } });
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
  });

  it('the built command prints JSON lines and stops on SIGTERM', async () => {
    const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
    const child = spawn(process.execPath, [main, 'watch', '--poll-ms', '50'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, RECDECK_RECORDER: f.sim.url, RECDECK_TOKEN: f.sim.token },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = once(child, 'exit');
    // A failed check below must not leave the watch polling for the rest of the suite.
    onTestFinished(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exit;
    });
    await until(() => stdout.includes('"event":"channels"'), 'the first lines');
    await f.client.recStart(1);
    await until(() => stdout.includes('"index":1,"changed":{"IsRecording":true}'), 'the change');
    child.kill('SIGTERM');
    expect(await exit).toEqual([0, null]);
    for (const line of stdout.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ recorder: 'main', event: expect.any(String) });
  });
});
