// Time left on the recording disk, on virtual time against the simulator filling its disk as its
// channels record: the estimate converges on the simulator's true time left and the resources key turns
// amber and red at the thresholds (given here as 4 and 2 minutes, so the disk fills through both in
// a few minutes of virtual time; the second test has the defaults, 30 and 10).
// The resources are read at the bridge's default slow interval (5 s) and the channels every 5 s too: the
// estimate is the product's from the readings it gets in life, and the channels only say which write.
// The simulator has the 4 channels that record (no more: each poll would carry 12 idle ones).
import { afterEach, describe, expect, it } from 'vitest';
import type { ResourcesPicture } from '../../src/engine/picture.js';
import { stateView } from '../../src/remote/state-view.js';
import { colourShare, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

const AMBER = '#E69F00';
const RED = '#E8101A';

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const PROFILE = `
name: disk
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: resources }
`;

describe('disk time left', () => {
  it('converges within 10 % of the true time left while the disk fills, and the key turns amber and red at the thresholds', async () => {
    // 600 GB, 80 % used; four channels at 100 MB/s each fill 4 % a minute: 5 minutes left.
    f = await startBridgeFixture({ profile: PROFILE, pollMs: 5000, slowMs: 5000, diskTime: { amberS: 4 * 60, redS: 2 * 60 }, simulator: { grid: 4, disk: { label: 'D:', sizeMb: 600_000, usedMb: 480_000, mbPerSecondPerChannel: 100 } } });
    const fixture = f;
    const disk = fixture.sim.disk;
    if (disk === null) throw new Error('the simulator has no disk');
    const truth = () => disk.secondsLeft(fixture.sim.recorder()) as number;
    const picture = () => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key0')?.picture as ResourcesPicture;
    for (const channel of [0, 1, 2, 3]) await fixture.client.recStart(channel);
    await fixture.advance(1000);
    expect(truth()).toBeCloseTo(300, -1);
    expect(picture().timeLeft).toBeNull(); // nothing measured yet: no guess shown

    let firstEstimateAt: number | null = null;
    let amberAt: number | null = null;
    let redAt: number | null = null;
    const errors: number[] = [];
    while (truth() > 100) {
      await fixture.advance(2000);
      const [estimate] = fixture.bridge.diskTimesLeft('main');
      const shown = picture().timeLeft;
      if (estimate?.secondsLeft === null || estimate === undefined) {
        expect(shown).toBeNull();
        continue;
      }
      firstEstimateAt ??= truth();
      errors.push(Math.abs(estimate.secondsLeft - truth()) / truth());
      expect(shown?.minutes).toBe(Math.floor(estimate.secondsLeft / 60));
      if (shown?.level === 'amber') amberAt ??= truth();
      if (shown?.level === 'red') redAt ??= truth();
    }
    // Steady after a few steps of the percentage (15 s each), and within 10 % from then on.
    expect(firstEstimateAt).toBeGreaterThan(300 - 90);
    expect(Math.max(...errors)).toBeLessThan(0.1);
    // Amber when under 4 minutes, red under 2: at the thresholds as the truth has them, within 10 %.
    expect(amberAt).not.toBeNull();
    expect(Math.abs((amberAt as number) - 4 * 60)).toBeLessThan(0.1 * 4 * 60);
    expect(Math.abs((redAt as number) - 2 * 60)).toBeLessThan(0.1 * 2 * 60);
    // The key's title band is red; /state says the same, with the reading's age.
    await fixture.settle();
    expect(colourShare(fixture.surface, 'key0', RED)).toBeGreaterThan(0.1);
    const [view] = stateView(fixture.bridge).recorders[0]?.disks ?? [];
    expect(view).toMatchObject({ disk: 'D:', level: 'red', freshness: 'live' });
    expect(Math.abs((view?.secondsLeft as number) - truth()) / truth()).toBeLessThan(0.1);
  }, 120_000);

  it('shows amber between the thresholds, and nothing once the channels stop', async () => {
    // 25 minutes left at the start: amber as soon as the rate is steady.
    f = await startBridgeFixture({ profile: PROFILE, pollMs: 5000, slowMs: 5000, simulator: { grid: 4, disk: { label: 'D:', sizeMb: 600_000, usedMb: 450_000, mbPerSecondPerChannel: 25 } } });
    const fixture = f;
    for (const channel of [0, 1, 2, 3]) await fixture.client.recStart(channel);
    const picture = () => fixture.bridge.session('memory:test')?.describeControls().find((c) => c.control.id === 'key0')?.picture as ResourcesPicture;
    // The key is drawn a moment after its picture is derived (changes coalesce): waited for as the operator
    // sees it, amber, once there is an estimate. Polled every 5 s: looked at every 500 ms of it.
    await fixture.until(() => picture().timeLeft !== null && colourShare(fixture.surface, 'key0', AMBER) > 0.1, 'an estimate, and the key amber', 8 * 60_000, 500);
    expect(picture().timeLeft?.level).toBe('amber');
    for (const channel of [0, 1, 2, 3]) await fixture.client.recStop(channel);
    await fixture.until(() => picture().timeLeft === null, 'the estimate to go', 30_000, 500);
    expect(fixture.bridge.diskTimesLeft('main')).toEqual([]);
  }, 120_000);
});
