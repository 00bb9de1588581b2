// The rules that decide what one action sends, without a recorder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCommand } from '../../src/engine/actions/index.js';
import { resolveSelected } from '../../src/engine/actions/parameters.js';
import { describeCall, sendCall, type PlanInputs } from '../../src/engine/command-plan.js';
import { initialRecorderState, type RecorderState } from '../../src/engine/recorder-state.js';
import { RecorderAction } from '../../src/profiles/schema.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { channelOf } from '../support/channels.js';

const state = (over: Partial<RecorderState> = {}): RecorderState => ({
  ...initialRecorderState('main', 250),
  lastGoodAt: 1000,
  readAt: { channels: 1000, sync: 1000, dialog: 1000, sources: 1000, resources: 1000, schedule: 1000, conversion: 1000 },
  channels: [channelOf(0), channelOf(1, { IsRecording: true }), channelOf(2, { IsRecording: true, IsRecordingPause: true }), channelOf(3, { IsInSync: true, SourceName: null })],
  sync: { IsSyncRecording: false, IsSyncRecordingPause: false },
  sources: [0, 1, 2, 3].map((i) => ({ Index: i, Name: `Cam ${i + 1}`, Device: 'x' })),
  schedule: { IsEnabled: false, StartTime: '08:00:00', StopTime: '09:00:00', ScheduleType: 'All channels' },
  conversion: { IsEnabled: true, VideoFormat: 'Original', FrameRate: 'Original', Interlace: 'Default', AudioSampleRate: 'Original', AudioChannel: 'Original', AudioBit: 'Original' },
  ...over,
});

const inputs = (over: Partial<PlanInputs> = {}): PlanInputs => ({
  state: state(),
  now: 1000,
  amount: 1,
  position: null,
  liveGain: (name) => (name === 'Cam 2' ? -6 : null),
  ...over,
});

/** Channel 2 is selected when the action is pressed. */
const plan = (action: unknown, over: Partial<PlanInputs> = {}) => planCommand(resolveSelected(RecorderAction.parse(action), 2), inputs(over));
const request = (action: unknown, over: Partial<PlanInputs> = {}) => {
  const result = plan(action, over);
  if (result.kind === 'read-gain-first') return `read the gain of ${result.sourceName} first`;
  return result.kind === 'send' ? describeCall(result.call) : `refused: ${result.reason}`;
};

describe('planCommand', () => {
  it.each([
    [{ action: 'rec-start', channel: 1 }, 'PUT /api/channels/0/rec-start'],
    [{ action: 'rec-pause', channel: 2 }, 'PUT /api/channels/1/rec-pause'],
    [{ action: 'rec-stop', channel: 'selected' }, 'PUT /api/channels/1/rec-stop'],
    [{ action: 'rec-toggle', channel: 1 }, 'PUT /api/channels/0/rec-start'],
    [{ action: 'rec-toggle', channel: 2 }, 'PUT /api/channels/1/rec-stop'],
    [{ action: 'pause-toggle', channel: 2 }, 'PUT /api/channels/1/rec-pause'],
    [{ action: 'pause-toggle', channel: 3 }, 'PUT /api/channels/2/rec-start'],
    [{ action: 'pause-toggle', channel: 1 }, 'refused: channel 1 is not recording'],
    [{ action: 'rec-resume', channel: 3 }, 'PUT /api/channels/2/rec-start'],
    [{ action: 'rec-resume', channel: 2 }, 'refused: channel 2 is not paused'],
    [{ action: 'rec-resume', channel: 1 }, 'refused: channel 1 is not recording'],
    [{ action: 'sync-toggle', channel: 4 }, 'PUT /api/channels/3/sync-off'],
    [{ action: 'sync-toggle', channel: 1 }, 'PUT /api/channels/0/sync-on'],
    [{ action: 'sync-on', channel: 1 }, 'PUT /api/channels/0/sync-on'],
    [{ action: 'sync-off', channel: 1 }, 'PUT /api/channels/0/sync-off'],
    [{ action: 'set-source', channel: 1, source: 'Cam 9 / Süd' }, 'PUT /api/channels/0/set-source/Cam%209%20%2F%20S%C3%BCd'],
    [{ action: 'unset-source', channel: 1 }, 'PUT /api/channels/0/unset-source'],
    [{ action: 'add-dest', channel: 1, destination: 'Archive' }, 'PUT /api/channels/0/add-dest/Archive'],
    [{ action: 'delete-dest', channel: 1, destination: 'Archive' }, 'PUT /api/channels/0/delete-dest/Archive'],
    [{ action: 'toggle-dest', channel: 1, destination: 'Local Disk' }, 'PUT /api/channels/0/delete-dest/Local%20Disk'],
    [{ action: 'toggle-dest', channel: 1, destination: 'Archive' }, 'PUT /api/channels/0/add-dest/Archive'],
    [{ action: 'sync-rec-start' }, 'PUT /api/channels/sync-rec-start'],
    [{ action: 'sync-rec-pause' }, 'PUT /api/channels/sync-rec-pause'],
    [{ action: 'sync-rec-stop' }, 'PUT /api/channels/sync-rec-stop'],
    [{ action: 'sync-rec-toggle' }, 'PUT /api/channels/sync-rec-start'],
    [{ action: 'dialog-ok' }, 'PUT /api/app/dialog/ok'],
    [{ action: 'dialog-cancel' }, 'PUT /api/app/dialog/cancel'],
    [{ action: 'grid', size: 9 }, 'PUT /api/channels/count/9'],
    [{ action: 'new-session' }, 'PUT /api/app/new'],
    [{ action: 'save-project', path: '/p.json' }, 'PUT /api/app/save'],
    [{ action: 'load-project', path: '/p.json' }, 'PUT /api/app/load'],
    [{ action: 'schedule-on' }, 'PUT /api/app/schedule'],
    [{ action: 'schedule-toggle' }, 'PUT /api/app/schedule'],
    [{ action: 'conversion-toggle' }, 'PUT /api/app/conversion-config'],
    [{ action: 'gain-set', channel: 1, db: -3 }, 'PUT /api/sources/0'],
  ])('%j → %s', (action, expected) => {
    expect(request(action)).toBe(expected);
  });

  it('toggles read the last confirmed state and send the opposite', () => {
    const schedule = plan({ action: 'schedule-toggle' });
    expect(schedule.kind === 'send' && schedule.call.args).toEqual([{ IsEnabled: true }]);
    const conversion = plan({ action: 'conversion-toggle' });
    expect(conversion.kind === 'send' && conversion.call.args).toEqual([{ IsEnabled: false }]);
    const running = plan({ action: 'sync-rec-toggle' }, { state: state({ sync: { IsSyncRecording: true, IsSyncRecordingPause: true } }) });
    expect(running.kind === 'send' && running.call.method).toBe('syncRecStop');
    // Pause-toggle: pause a running take, resume a paused one, refuse when nothing runs.
    const paused = plan({ action: 'sync-rec-pause-toggle' }, { state: state({ sync: { IsSyncRecording: true, IsSyncRecordingPause: true } }) });
    expect(paused.kind === 'send' && paused.call.method).toBe('syncRecStart');
    const takeRunning = plan({ action: 'sync-rec-pause-toggle' }, { state: state({ sync: { IsSyncRecording: true, IsSyncRecordingPause: false } }) });
    expect(takeRunning.kind === 'send' && takeRunning.call.method).toBe('syncRecPause');
    expect(plan({ action: 'sync-rec-pause-toggle' }, { state: state({ sync: { IsSyncRecording: false, IsSyncRecordingPause: false } }) })).toEqual({ kind: 'refuse', reason: 'synchronous recording is not running' });
  });

  it.each(['rec-toggle', 'pause-toggle', 'sync-toggle'])('%s is refused on stale or unknown state; plain commands are not', (toggle) => {
    // Read at 1000; 3 polls of 250 ms later it is stale.
    expect(request({ action: toggle, channel: 2 }, { now: 1750 })).not.toMatch(/^refused/);
    // Just past its age, in tenths: never "read 0 s ago" beside a refusal for staleness.
    expect(request({ action: toggle, channel: 2 }, { now: 1900 })).toBe("refused: the recorder's state is stale (read 0.9 s ago, live for 0.75 s after a read); not deciding a toggle from it");
    expect(request({ action: toggle, channel: 2 }, { now: 3000 })).toBe("refused: the recorder's state is stale (read 2 s ago, live for 0.75 s after a read); not deciding a toggle from it");
    expect(request({ action: toggle, channel: 2 }, { state: initialRecorderState('main', 250) })).toBe("refused: the recorder's state is unknown (not read yet); not deciding a toggle from it");
    const unreachable = state({ failures: 3, unreachable: true, lastError: 'GET /api/channels: connection refused' });
    expect(request({ action: toggle, channel: 2 }, { now: 3000, state: unreachable })).toBe("refused: the recorder is offline (GET /api/channels: connection refused); not deciding a toggle from old data");
    expect(request({ action: 'rec-stop', channel: 2 }, { now: 3000 })).toBe('PUT /api/channels/1/rec-stop');
  });

  it('rec-resume never starts a stopped channel, and does not decide that from stale or unknown state', () => {
    // Channel 3 is paused, read at 1000; 3 polls of 250 ms later it is stale.
    expect(request({ action: 'rec-resume', channel: 3 }, { now: 1750 })).toBe('PUT /api/channels/2/rec-start');
    expect(request({ action: 'rec-resume', channel: 3 }, { now: 3000 })).toBe("refused: the recorder's state is stale (read 2 s ago, live for 0.75 s after a read); not deciding a toggle from it");
    expect(request({ action: 'rec-resume', channel: 1 }, { state: initialRecorderState('main', 250) })).toBe("refused: the recorder's state is unknown (not read yet); not deciding a toggle from it");
  });

  it('gain steps build on the live gain, scaled by the turn and clamped; without one they read it first', () => {
    const step = plan({ action: 'gain-step', channel: 2, db: 0.5 }, { amount: -3 });
    expect(step).toMatchObject({ kind: 'send', call: { method: 'updateSource', args: [1, { AudioGain: -7.5 }] }, gain: { sourceName: 'Cam 2', db: -7.5 } });
    const clamped = plan({ action: 'gain-step', source: 'Cam 2', db: 10 }, { amount: 5 });
    expect(clamped).toMatchObject({ call: { args: [1, { AudioGain: 20 }] } });
    expect(plan({ action: 'gain-step', channel: 1, db: 1 })).toEqual({ kind: 'read-gain-first', sourceName: 'Cam 1' });
    expect(request({ action: 'gain-step', channel: 4, db: 1 })).toBe('refused: channel 4 has no known source');
    expect(request({ action: 'gain-set', source: 'Nobody', db: 1 })).toBe('refused: source "Nobody" is not known');
  });

  it('a fader maps its position onto the range', () => {
    expect(plan({ action: 'gain-fader', channel: 1, min: -40, max: 10 }, { position: 0.5 })).toMatchObject({ call: { args: [0, { AudioGain: -15 }] } });
    expect(plan({ action: 'gain-fader', channel: 1 }, { position: 1 })).toMatchObject({ call: { args: [0, { AudioGain: 12 }] } });
  });

  it('a gain action names exactly one target', () => {
    expect(() => RecorderAction.parse({ action: 'gain-set', channel: 1, source: 'Cam 1', db: 0 })).toThrow(/exactly one of channel or source/);
  });
});

describe('the set actions (schedule, conversion, preferences)', () => {
  const args = (action: unknown) => {
    const result = plan(action);
    return result.kind === 'send' ? { request: describeCall(result.call), args: result.call.args, slow: result.touchesSlowState } : result;
  };

  it('send only the fields they name, under the interface\'s names', () => {
    expect(args({ action: 'schedule-set', start: '08:30', stop: '17:00', type: 'In-sync only' })).toEqual({
      request: 'PUT /api/app/schedule',
      args: [{ StartTime: '08:30', StopTime: '17:00', ScheduleType: 'In-sync only' }],
      slow: true,
    });
    expect(args({ action: 'schedule-set', start: null, stop: null })).toMatchObject({ args: [{ StartTime: null, StopTime: null }] });
    expect(args({ action: 'conversion-set', 'frame-rate': '25', 'video-format': 'FullHD', 'audio-channel': '2', enabled: true })).toEqual({
      request: 'PUT /api/app/conversion-config',
      args: [{ IsEnabled: true, VideoFormat: 'FullHD', FrameRate: '25', AudioChannel: '2' }],
      slow: true,
    });
    expect(args({ action: 'settings-set', 'preview-refresh': 10, 'open-async': false })).toEqual({ request: 'PUT /api/app/settings', args: [{ PreviewRefresh: 10, OpenAsync: false }], slow: false });
  });

  it('refuse, when the profile loads, a value outside the conversion lists, a bad time, a read-only preference or nothing to set', () => {
    const problem = (action: unknown) => {
      const result = RecorderAction.safeParse(action);
      return result.success ? 'accepted' : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(problem({ action: 'conversion-set', 'frame-rate': '26' })).toMatch(/^frame-rate: .*"Original".*"59.94"/);
    expect(problem({ action: 'conversion-set', 'frame-rate': 25 })).toMatch(/^frame-rate: /);
    expect(problem({ action: 'schedule-set', start: '25:00' })).toBe('start: expected a time as hh:mm (00:00 to 23:59)');
    expect(problem({ action: 'schedule-set', type: 'Some channels' })).toMatch(/^type: /);
    expect(problem({ action: 'settings-set', 'is-notification-admin': true })).toMatch(/is-notification-admin/);
    expect(problem({ action: 'settings-set', 'preview-refresh': 0 })).toBe('preview-refresh: expected an integer from 1 to 60');
    expect(problem({ action: 'schedule-set' })).toBe(': expected at least one of start, stop, type, enabled');
    expect(problem({ action: 'conversion-set' })).toMatch(/expected at least one of enabled, video-format/);
  });

  describe('through the real HTTP path', () => {
    let f: SimulatorFixture;
    beforeAll(async () => {
      f = await startFixture();
    });
    afterAll(() => f.close());

    const run = async (action: unknown) => {
      const result = plan(action);
      if (result.kind !== 'send') throw new Error(`not sent: ${JSON.stringify(result)}`);
      await sendCall(f.client, result.call);
    };

    it('the simulator takes each one and reads it back', async () => {
      await run({ action: 'schedule-set', start: '07:15', stop: '19:45', type: 'In-sync only', enabled: true });
      expect(await f.client.getSchedule()).toMatchObject({ IsEnabled: true, StartTime: '07:15:00', StopTime: '19:45:00', ScheduleType: 'In-sync only' });
      await run({ action: 'schedule-set', stop: '20:00' });
      expect(await f.client.getSchedule()).toMatchObject({ StartTime: '07:15:00', StopTime: '20:00:00' });

      const before = await f.client.getConversionConfig();
      await run({ action: 'conversion-set', 'frame-rate': '29.97', interlace: 'Progressive', 'audio-bit': '32' });
      expect(await f.client.getConversionConfig()).toEqual({ ...before, FrameRate: '29.97', Interlace: 'Progressive', AudioBit: '32' });

      const settings = await f.client.getSettings();
      await run({ action: 'settings-set', 'preview-stretch': !settings.PreviewStretch, 'preview-refresh': 12 });
      expect(await f.client.getSettings()).toEqual({ ...settings, PreviewStretch: !settings.PreviewStretch, PreviewRefresh: 12 });
    });
  });
});
