// The bridge makes ready what a channel key's first start needs (KeyRenderer.warmUps), as picture work
// behind the first page: the first recording a key shows after start is drawn without a sharp call
// (before, about 120 ms of CPU there, paid by every panel of the facility bench at the same change).
// A device's at once; a web deck's when a page first shows it (a deck nobody opens costs nothing).
import { afterEach, describe, expect, it } from 'vitest';
import { realTime } from '../../src/engine/engine-time.js';
import { keyGrid } from '../../src/engine/surface.js';
import { WEB_LAYOUTS } from '../../src/surfaces/web/layouts.js';
import { WebSurface } from '../../src/surfaces/web/web-surface.js';
import { colourShare, parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

const RECORDING = '#D55E00';
/** web-plus: 120 px keys, a size the memory deck (96 px) has not warmed. */
const WEB_PROFILE = 'name: web warm\nmatch: { kind: web, model: web-plus }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n      key1: { show: { channel: 2 } }\n';
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

  it('a web deck’s wait for its first page: nothing drawn while nobody watches; then the first recording it shows costs no sharp call', async () => {
    const fixture = await startBridgeFixture({ profile: PROFILE, controls: keyGrid(2, 2, 96) });
    f = fixture;
    await fixture.until(() => fixture.surface.images.has('key0') && !fixture.bridge.work.busy, 'the memory deck’s first page and warm-ups drawn');
    const layout = WEB_LAYOUTS['web-plus'];
    if (layout === undefined) throw new Error('no web-plus layout');
    const web = new WebSurface(layout, realTime);
    fixture.bridge.setProfiles([parseTestProfile(PROFILE), parseTestProfile(WEB_PROFILE, 'web.yaml')]);
    const before = fixture.renderer.stats.renders;
    fixture.bridge.addSurface(web);
    await fixture.advance(2000);
    // Nobody watches: no warm-up in line, nothing rendered for it.
    expect(fixture.bridge.work.busy).toBe(false);
    expect(fixture.renderer.stats.renders).toBe(before);
    web.setWatched(true);
    await fixture.until(() => web.output.shown().images.has('key1') && !fixture.bridge.work.busy, 'the web deck’s first page and its warm-ups drawn');
    // Its page and the 120 px warm-ups: at least one sharp call per warmed look.
    expect(fixture.renderer.stats.renders - before).toBeGreaterThanOrEqual(3);
    const renders = fixture.renderer.stats.renders;
    fixture.sim.recorder().recStart(1);
    await fixture.until(() => colourShare(web.output.shown(), 'key1', RECORDING) > 0.05, 'channel 2 shown recording on the web deck');
    expect(fixture.renderer.stats.renders).toBe(renders);
  });
});

