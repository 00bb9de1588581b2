// No work nobody sees, in time: a bridge with nothing to show wakes only for its state reads (three read
// loops and the slow group), and previews are paced only while a control shows one. Every engine timer
// is on the one virtual scheduler, so what it holds is what the bridge will wake for.
import { afterEach, expect, it } from 'vitest';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

let f: BridgeFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const previewsSince = (fixture: BridgeFixture, mark: number) => fixture.sim.log.list().filter((r) => r.seq > mark && r.path.endsWith('/preview')).length;

it('an idle bridge schedules only its reads; previews tick only while a control shows one', async () => {
  f = await startBridgeFixture({ profile: 'name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1, thumbnail: true } }\n' });
  const fixture = f;
  let mark = fixture.mark();
  await fixture.advance(1000);
  expect(previewsSince(fixture, mark)).toBeGreaterThanOrEqual(2); // every 500 ms while shown

  fixture.bridge.removeSurface(fixture.surface.id);
  await fixture.advance(1000); // a fetch under way may end
  mark = fixture.mark();
  await fixture.advance(3000);
  expect(previewsSince(fixture, mark)).toBe(0);
  // The next read of channels, of sync and of dialog, and the slow group's tick: nothing else.
  expect(fixture.time.scheduler.actions.length).toBe(4);
  const reads = fixture.sim.log.list().filter((r) => r.seq > mark && r.method === 'GET' && r.path === '/api/channels').length;
  expect(reads).toBeGreaterThanOrEqual(29); // still read every 100 ms
});
