// The bridge makes ready what a channel key's first start needs (KeyRenderer.warmUps), as picture work
// behind the first page: the first recording a key shows after start is drawn without a sharp call
// (before, about 120 ms of CPU there, paid by every panel of the facility bench at the same change).
import { afterEach, describe, expect, it } from 'vitest';
import { keyGrid } from '../../src/engine/surface.js';
import { colourShare, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

const RECORDING = '#D55E00';
const PROFILE = 'name: warm\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n      key1: { show: { channel: 2 } }\n';

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

describe('warm-ups', () => {
  it('the first recording shown after start costs no sharp call', async () => {
    const fixture = await startBridgeFixture({ profile: PROFILE, controls: keyGrid(2, 2, 96) });
    f = fixture;
    await fixture.until(() => fixture.surface.images.has('key0') && !fixture.bridge.work.busy, 'the first page and the warm-ups drawn');
    const renders = fixture.renderer.stats.renders;
    fixture.sim.recorder().recStart(1);
    await fixture.until(() => colourShare(fixture.surface, 'key1', RECORDING) > 0.05, 'channel 2 shown recording');
    expect(fixture.renderer.stats.renders).toBe(renders);
  });
});
