// The channel state machine of the interface's table, and the choices made where it is silent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecorderError } from '../../src/api/errors.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

let f: SimulatorFixture;
beforeEach(async () => {
  f = await startFixture();
});
afterEach(() => f.close());

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('expected a refusal'), (e: unknown) => e as RecorderError);

describe('single channel', () => {
  it('start → pause → resume → stop, with the duration running only while recording', async () => {
    await f.client.recStart(0);
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: true, IsRecordingPause: false, RecordingDuration: 0 });
    f.clock.advance(65_400);
    expect((await f.client.getChannel(0)).RecordingDuration).toBe(65);

    await f.client.recPause(0);
    f.clock.advance(30_000);
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: true, IsRecordingPause: true, RecordingDuration: 65, RecordingFPS: 0 });

    await f.client.recStart(0);
    f.clock.advance(10_000);
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: true, IsRecordingPause: false, RecordingDuration: 75 });

    await f.client.recStop(0);
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: false, IsRecordingPause: false, RecordingDuration: 0 });
  });

  it('records near the source frame rate (1080i50: 25 fps)', async () => {
    await f.client.recStart(1);
    const fps = (await f.client.getChannel(1)).RecordingFPS;
    expect(fps).toBeGreaterThan(24.9);
    expect(fps).toBeLessThanOrEqual(25);
  });

  it('a second start while recording changes nothing', async () => {
    await f.client.recStart(0);
    f.clock.advance(5000);
    await f.client.recStart(0);
    expect((await f.client.getChannel(0)).RecordingDuration).toBe(5);
  });

  it('pausing a channel that is not recording is refused and changes nothing', async () => {
    const error = await failure(f.client.recPause(0));
    expect(error).toMatchObject({ status: 400, serviceMessage: 'Channel 1 is not recording; there is nothing to pause' });
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: false, IsRecordingPause: false });
  });

  it('stopping a channel that is not recording is harmless (200)', async () => {
    await f.client.recStop(0);
    expect((await f.client.getChannel(0)).IsRecording).toBe(false);
  });

  it('a channel beyond the grid is refused by index', async () => {
    const error = await failure(f.client.recStart(4));
    expect(error.serviceMessage).toBe('index: expected a channel index from 0 to 3 (the grid has 4), got 4');
  });
});

describe('a start that cannot record', () => {
  it('with no source: 400, an OK dialog, IsSomethingWrong, not recording', async () => {
    await f.client.unsetChannelSource(0);
    const error = await failure(f.client.recStart(0));
    expect(error.serviceMessage).toBe('Channel 1 cannot record: no source is assigned');
    expect(await f.client.getChannel(0)).toMatchObject({ IsRecording: false, IsSomethingWrong: true, SourceName: null });
    expect(await f.client.getDialog()).toEqual({ IsDialog: true, DialogContent: 'Channel 1 cannot record: no source is assigned', Buttons: 'OK' });
    await f.client.answerDialog('ok');
    expect((await f.client.getDialog()).IsDialog).toBe(false);
    // Fixing the cause clears the warning.
    await f.client.setChannelSource(0, 'Cam 1');
    expect((await f.client.getChannel(0)).IsSomethingWrong).toBe(false);
    await f.client.recStart(0);
    expect((await f.client.getChannel(0)).IsRecording).toBe(true);
  });

  it('with no destination', async () => {
    await f.client.deleteChannelDestination(1, 'Local Disk');
    expect((await failure(f.client.recStart(1))).serviceMessage).toBe('Channel 2 cannot record: no destination is assigned');
    expect(await f.client.getChannel(1)).toMatchObject({ IsRecording: false, IsSomethingWrong: true });
  });

  it('with a destination folder that does not exist', async () => {
    await f.client.addDestination({ Name: 'Gone', Location: `${f.folder}/missing-folder` });
    await f.client.deleteChannelDestination(2, 'Local Disk');
    await f.client.addChannelDestination(2, 'Gone');
    const error = await failure(f.client.recStart(2));
    expect(error.serviceMessage).toBe(`Channel 3 cannot record: the folder ${f.folder}/missing-folder of destination "Gone" does not exist`);
    expect((await f.client.getDialog()).DialogContent).toBe(error.serviceMessage);
  });
});

describe('channel configuration while recording', () => {
  it('source and destinations cannot change under a recording channel', async () => {
    await f.client.recStart(0);
    expect((await failure(f.client.setChannelSource(0, 'Cam 3'))).serviceMessage).toBe('Channel 1 is recording; stop it before changing its source');
    expect((await failure(f.client.unsetChannelSource(0))).status).toBe(400);
    expect((await failure(f.client.addChannelDestination(0, 'Archive ProRes'))).status).toBe(400);
    expect(await f.client.getChannel(0)).toMatchObject({ SourceName: 'Cam 1', Destinations: ['Local Disk'], IsRecording: true });
  });

  it('add-dest twice keeps one; delete-dest of an unknown name is refused', async () => {
    await f.client.addChannelDestination(0, 'Archive ProRes');
    await f.client.addChannelDestination(0, 'Archive ProRes');
    expect((await f.client.getChannel(0)).Destinations).toEqual(['Local Disk', 'Archive ProRes']);
    expect((await failure(f.client.deleteChannelDestination(0, 'Nowhere'))).serviceMessage).toBe('destination_name: no destination named "Nowhere"');
    expect((await failure(f.client.setChannelSource(0, 'Nobody'))).serviceMessage).toBe('source_name: no source named "Nobody"');
  });
});

describe('synchronous recording', () => {
  it('sync-on, group start, pause, resume and stop over the InSync channels only', async () => {
    await f.client.syncOn(0);
    await f.client.syncOn(2);
    expect((await f.client.getChannel(0)).IsInSync).toBe(true);
    await f.client.syncRecStart();
    expect(await f.client.getSyncState()).toEqual({ IsSyncRecording: true, IsSyncRecordingPause: false });
    const channels = await f.client.listChannels();
    expect(channels.map((c) => [c.IsRecording, c.IsInSyncRec])).toEqual([
      [true, true],
      [false, false],
      [true, true],
      [false, false],
    ]);

    f.clock.advance(3000);
    await f.client.syncRecPause();
    expect(await f.client.getSyncState()).toEqual({ IsSyncRecording: true, IsSyncRecordingPause: true });
    expect((await f.client.getChannel(2)).IsRecordingPause).toBe(true);
    f.clock.advance(3000);
    await f.client.syncRecStart();
    f.clock.advance(1000);
    expect(await f.client.getChannel(2)).toMatchObject({ IsRecordingPause: false, RecordingDuration: 4 });

    await f.client.syncRecStop();
    expect(await f.client.getSyncState()).toEqual({ IsSyncRecording: false, IsSyncRecordingPause: false });
    expect((await f.client.listChannels()).every((c) => !c.IsRecording && !c.IsInSyncRec)).toBe(true);
  });

  it('an InSync channel cannot be started alone, and a recording channel cannot join', async () => {
    await f.client.syncOn(0);
    expect((await failure(f.client.recStart(0))).serviceMessage).toMatch(/InSync mode: start it with sync-rec-start/);
    await f.client.recStart(1);
    expect((await failure(f.client.syncOn(1))).serviceMessage).toBe('Channel 2 is recording on its own; stop it before turning InSync on');
    expect((await f.client.getChannel(1)).IsInSync).toBe(false);
  });

  it('sync-off is refused while the channel records with the group; pause is the group\'s', async () => {
    await f.client.syncOn(3);
    await f.client.syncRecStart();
    expect((await failure(f.client.syncOff(3))).status).toBe(400);
    expect((await failure(f.client.recPause(3))).serviceMessage).toMatch(/sync-rec-pause/);
    expect((await f.client.getChannel(3)).IsInSync).toBe(true);
    // Stopping one channel is always honoured; it leaves the take and the group ends with it.
    await f.client.recStop(3);
    expect(await f.client.getSyncState()).toEqual({ IsSyncRecording: false, IsSyncRecordingPause: false });
  });

  it('with no InSync channel, start is refused; pause of a group not running is refused; stop is harmless', async () => {
    expect((await failure(f.client.syncRecStart())).serviceMessage).toMatch(/No channel is in InSync mode/);
    expect((await failure(f.client.syncRecPause())).serviceMessage).toMatch(/not running/);
    await f.client.syncRecStop();
  });

  it('is all or nothing: one member that cannot record stops the whole group from starting', async () => {
    await f.client.syncOn(0);
    await f.client.syncOn(1);
    await f.client.unsetChannelSource(1);
    const error = await failure(f.client.syncRecStart());
    expect(error.serviceMessage).toBe('Channel 2 cannot record: no source is assigned');
    const [zero, one] = await f.client.listChannels();
    expect(zero).toMatchObject({ IsRecording: false, IsSomethingWrong: false });
    expect(one).toMatchObject({ IsRecording: false, IsSomethingWrong: true });
    expect((await f.client.getDialog()).Buttons).toBe('OK');
  });
});

describe('grid', () => {
  it('grows and shrinks at once when nothing recording is cut; hidden channels keep their setup', async () => {
    await f.client.setChannelCount(16);
    expect(await f.client.listChannels()).toHaveLength(16);
    await f.client.setChannelSource(10, 'Cam 3');
    await f.client.setChannelCount(9);
    expect(await f.client.listChannels()).toHaveLength(9);
    await f.client.setChannelCount(16);
    expect((await f.client.getChannel(10)).SourceName).toBe('Cam 3');
  });

  it('refuses sizes other than 1, 4, 9, 16', async () => {
    const { status, json } = await f.raw('PUT', '/api/channels/count/5');
    expect(status).toBe(400);
    expect(json).toEqual({ Error: 'grid_size: expected one of 1, 4, 9, 16, got 5' });
  });

  it('shrinking over recording channels asks first: cancel keeps everything, ok stops them and shrinks', async () => {
    await f.client.recStart(2);
    await f.client.recStart(3);
    await f.client.setChannelCount(1);
    expect(await f.client.getDialog()).toEqual({ IsDialog: true, DialogContent: 'Channels 3 and 4 are recording. Stop them and change the grid to 1 channel?', Buttons: 'Yes_No' });
    expect(await f.client.listChannels()).toHaveLength(4);
    // A second destructive request waits its turn.
    expect((await failure(f.client.newSession())).serviceMessage).toMatch(/A dialog is waiting for an answer/);

    await f.client.answerDialog('no');
    expect((await f.client.getDialog()).IsDialog).toBe(false);
    expect((await f.client.listChannels()).filter((c) => c.IsRecording)).toHaveLength(2);

    await f.client.setChannelCount(1);
    await f.client.answerDialog('ok');
    expect(await f.client.listChannels()).toHaveLength(1);
    await f.client.setChannelCount(4);
    expect((await f.client.listChannels()).some((c) => c.IsRecording)).toBe(false);
  });

  it('answering when no dialog is shown is refused', async () => {
    expect((await failure(f.client.answerDialog('ok'))).serviceMessage).toBe('action: no dialog is shown');
  });
});
