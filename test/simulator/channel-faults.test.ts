// The simulator's channel faults, for the alarm tests: a channel losing frames and a take stopped at the
// recorder by itself, over the real HTTP control routes (as `recdeck simulate` serves them).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastSeq, startFixture, writesSince, type SimulatorFixture } from '../support/simulator.js';

let f: SimulatorFixture;
beforeEach(async () => {
  f = await startFixture({ grid: 4 });
});
afterEach(() => f.close());

describe('channel faults', () => {
  it('a recording channel loses frames: drops and breaks are added to the take, the buffer set', async () => {
    await f.client.recStart(1);
    expect((await f.raw('POST', '/_sim/channels/1/drops', { body: '{"drops":12,"breaks":1,"buffered":80}' })).status).toBe(200);
    expect(await f.client.getChannel(1)).toMatchObject({ RecordingDrops: 12, RecordingBreaks: 1, RecordingBuffered: 80 });
    await f.raw('POST', '/_sim/channels/1/drops', { body: '{"drops":3}' });
    expect(await f.client.getChannel(1)).toMatchObject({ RecordingDrops: 15, RecordingBreaks: 1, RecordingBuffered: 80 });
  });

  it('a take stops by itself: the channel is no longer recording and no request to the interface did it', async () => {
    await f.client.recStart(2);
    const mark = lastSeq(f.sim);
    expect((await f.raw('POST', '/_sim/channels/2/stop')).status).toBe(200);
    expect((await f.client.getChannel(2)).IsRecording).toBe(false);
    expect(writesSince(f.sim, mark)).toEqual([]);
  });

  it('refuses what cannot be, naming why: no take to stop or lose frames from, a bad count, no such channel', async () => {
    const stop = await f.raw('POST', '/_sim/channels/0/stop');
    expect(stop.status).toBe(400);
    expect(stop.json).toEqual({ Error: 'Channel 1 is not recording; there is no take to stop' });
    expect((await f.raw('POST', '/_sim/channels/0/drops', { body: '{"drops":1}' })).json).toEqual({ Error: 'Channel 1 is not recording; it has no frames to lose' });
    await f.client.recStart(0);
    const bad = await f.raw('POST', '/_sim/channels/0/drops', { body: '{"drops":-1}' });
    expect(bad.status).toBe(400);
    expect((bad.json as { Error: string }).Error).toMatch(/^drops: /);
    expect((await f.raw('POST', '/_sim/channels/9/stop')).status).toBe(400);
  });
});
