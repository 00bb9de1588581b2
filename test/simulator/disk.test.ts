// The simulated recording disk: DiskInfo reports it instead of the host's disks, and it fills on the
// simulator's clock at a rate that follows the channels writing (a paused channel writes nothing).
import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';

let f: SimulatorFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('simulated disk', () => {
  it('fills as the channels record, on the simulator clock', async () => {
    f = await startFixture({ disk: { label: 'D:', sizeMb: 100_000, usedMb: 50_000, mbPerSecondPerChannel: 10 } });
    const used = async () => (await f?.client.getResources())?.DiskInfo;
    expect(await used()).toEqual([{ Key: 'D:', Value: 50 }]);
    f.clock.advance(60_000);
    expect(await used()).toEqual([{ Key: 'D:', Value: 50 }]); // nothing records: nothing written
    await f.client.recStart(0);
    await f.client.recStart(1);
    f.clock.advance(100_000); // two channels, 100 s, 10 MB/s each: 2000 MB, 2 %
    expect(await used()).toEqual([{ Key: 'D:', Value: 52 }]);
    expect(f.sim.disk?.secondsLeft(f.sim.recorder())).toBeCloseTo(48_000 / 20, 5);
    await f.client.recPause(1);
    f.clock.advance(100_000); // one writes, one paused: 1 %
    expect(await used()).toEqual([{ Key: 'D:', Value: 53 }]);
    await f.client.recStop(0);
    await f.client.recStop(1);
    f.clock.advance(100_000);
    expect(await used()).toEqual([{ Key: 'D:', Value: 53 }]); // what was written stays
    expect(f.sim.disk?.secondsLeft(f.sim.recorder())).toBeNull();
  });
});
