// A fetched preview or meter read changes only the pictures that read one: the session derives those
// again when it comes, not every control of the surface (with 16 previews a second on a page, deriving
// every picture at each was a large share of the bridge's time). The real bridge against the simulator,
// on virtual time, with the state polled once a minute so that between polls only fetches happen.
import { afterEach, describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import { PREVIEW_MS } from '../../src/engine/picture-pace.js';
import type { RgbImage } from '../../src/engine/surface.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

let f: BridgeFixture | null = null;
afterEach(async () => {
  await f?.stopBridge();
  await f?.close();
  f = null;
});

/** How far apart a session draws fetched previews and meter reads together (surface-session.ts). */
const FETCHED_MS = 100;

const thumbnailOf = (fixture: BridgeFixture, control: string): string | null => {
  const picture = fixture.bridge.surfaceSessions()[0]?.describeControls().find((c) => c.control.id === control)?.picture as Picture | undefined;
  return picture?.kind === 'channel' ? picture.thumbnail : null;
};

describe('a fetch refreshes what reads it', () => {
  it('a new preview or meter read derives only the preview and meter keys again, and they show it', async () => {
    f = await startBridgeFixture({
      pollMs: 60_000,
      slowMs: 60_000,
      profile: `
name: fetched
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1, thumbnail: true } }
      key1: { show: { channel: 2, thumbnail: true } }
      key2: { show: { channel: 3 } }
      key3: { show: { channel: 4 } }
      key4: { show: status }
      key5: { show: { meter: 1 } }
      key6: { show: { label: GO } }
`,
    });
    const fixture = f;
    const session = fixture.bridge.surfaceSessions()[0];
    if (!session) throw new Error('no session');
    await fixture.until(() => thumbnailOf(fixture, 'key0') !== null && thumbnailOf(fixture, 'key1') !== null, 'both previews on their keys');
    // The previews are fetched as soon as the recorder is first heard, so they can be on their keys
    // before the session's own start-up refresh (its first look at the state, coalesced 10 ms): past it.
    await fixture.advance(100);
    const shownBefore = fixture.surface.images.get('key0');
    const before = { ...session.stats };
    await fixture.advance(2000); // four rounds of previews (500 ms) and twenty meter reads (100 ms); no state poll
    const refreshes = session.stats.refreshes - before.refreshes;
    const pictures = session.stats.pictures - before.pictures;
    expect(refreshes).toBeGreaterThanOrEqual(4);
    // Each refresh derived the two preview keys and the meter, never the 15 controls of the surface.
    expect(pictures).toBe(3 * refreshes);
    // And what they derived is shown: the key's image follows its newest preview.
    expect(fixture.surface.images.get('key0')).not.toBe(shownBefore);
    // The newest preview (the one that arrived as the advance ended) is drawn once its key's pace allows:
    // its fetched refresh comes within FETCHED_MS, and a new preview alone waits until the key's last
    // drawing is PREVIEW_MS old (picture-pace.ts). So within FETCHED_MS + PREVIEW_MS the key shows it, or
    // a newer one that came meanwhile (the painter draws the newest picture when its turn comes).
    const drawnBy = fixture.now() + FETCHED_MS + PREVIEW_MS;
    const newestImages = new Set<RgbImage>();
    for (;;) {
      const newest = session.describeControls().find((c) => c.control.id === 'key0')?.picture as Picture;
      newestImages.add(await fixture.renderer.render(newest, { width: 96, height: 96 })); // the renderer's cached image of that picture
      const shown = fixture.surface.images.get('key0');
      if (shown !== undefined && newestImages.has(shown)) break;
      expect(fixture.now(), 'the newest preview drawn on key0 within FETCHED_MS + PREVIEW_MS').toBeLessThan(drawnBy);
      await fixture.advance(10);
    }
  });
});
