// A preview carries its own age: it is shown as live only while it is younger than three of the
// intervals it is fetched at (picture-pace.ts previewLiveForMs), even while its channel's state is live.
// When its fetches fail or one is slow, it is shown dimmed with its age ("PIC 2s old") from the first
// moment past that bound, and live again as soon as a fetch brings it (the same picture again, or a new
// one). The real bridge against the simulator on virtual time: previews every 500 ms (the fixture's), so
// the bound is 1500 ms after the last good fetch was sent.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelPicture, Picture } from '../../src/engine/picture.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

let f: BridgeFixture | null = null;
afterEach(async () => {
  await f?.close();
  f = null;
});

const THUMBNAIL_MS = 500; // the fixture's
const LIVE_FOR_MS = 3 * THUMBNAIL_MS;
const PREVIEW_PATH = '/api/channels/0/preview';
const PROFILE = `
name: preview-age
match: { kind: memory }
pages:
  - name: one
    controls:
      key0: { show: { channel: 1, thumbnail: true } }
`;

function channelPicture(fixture: BridgeFixture): ChannelPicture {
  const picture = fixture.bridge.surfaceSessions()[0]?.describeControls().find((c) => c.control.id === 'key0')?.picture as Picture | undefined;
  if (picture?.kind !== 'channel') throw new Error(`key0 shows ${picture?.kind ?? 'nothing'}, not its channel`);
  return picture;
}

/** Mean brightness (0-255) of key0's body as the surface shows it: where the preview is drawn. */
function bodyBrightness(fixture: BridgeFixture): number {
  const image = fixture.surface.images.get('key0');
  if (!image) throw new Error('key0 has no image');
  const { body } = stateTileLayout({ width: image.width, height: image.height });
  let sum = 0;
  let count = 0;
  for (let y = Math.ceil(body.y); y < body.y + body.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const at = (y * image.width + x) * 3;
      sum += ((image.data[at] as number) + (image.data[at + 1] as number) + (image.data[at + 2] as number)) / 3;
      count++;
    }
  }
  return sum / count;
}

/**
 * The virtual moment each preview fetch was sent, and whether the recorder answered it with one. The
 * client tells its observers as the real answer comes, while virtual time stands still (a latency the
 * test adds is virtual time after that): so `at` is when it was sent.
 */
function watchPreviews(fixture: BridgeFixture): Array<{ at: number; ok: boolean }> {
  const fetches: Array<{ at: number; ok: boolean }> = [];
  fixture.bridge.observeRequests((_, record) => {
    if (record.method === 'GET' && record.path.endsWith('/preview')) fetches.push({ at: fixture.now(), ok: record.status === 200 });
  });
  return fetches;
}

describe('a preview carries its own age', () => {
  it('the first preview is fetched as soon as the recorder is first heard, not an interval later', async () => {
    f = await startBridgeFixture({ profile: PROFILE });
    const fixture = f;
    const fetches = watchPreviews(fixture);
    let firstChannels: number | null = null;
    fixture.bridge.observeRequests((_, record) => {
      if (firstChannels === null && record.method === 'GET' && record.path === '/api/channels' && record.status === 200) firstChannels = fixture.now();
    });
    await fixture.until(() => fetches.length > 0, 'the first preview fetch');
    if (firstChannels === null) throw new Error('no channel read was answered before the first preview fetch');
    // Before, the ticks that fell while nothing was known fetched nothing, and the first came an
    // interval (500 ms) after the state.
    expect((fetches[0]?.at ?? Infinity) - firstChannels).toBeLessThan(THUMBNAIL_MS / 5);
  });

  it('a preview whose fetches fail is shown stale (dimmed, with its age) past three intervals, and live again when a fetch brings it', async () => {
    // Still previews: the same picture each time, so the key's body differs only by how it is drawn, and
    // the fetch that ends the failure brings the same bytes (live again without a new picture).
    f = await startBridgeFixture({ profile: PROFILE, simulator: { stillPreviews: true } });
    const fixture = f;
    const fetches = watchPreviews(fixture);
    await fixture.until(() => channelPicture(fixture).thumbnail !== null, 'the first preview on key0');
    await fixture.advance(1000);
    const live = channelPicture(fixture);
    expect(live.state).toBe('idle');
    expect(live.previewAgeS).toBeUndefined();
    const liveBrightness = bodyBrightness(fixture);

    fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: PREVIEW_PATH, status: 500, probability: 1, latencyMs: 0 }]);
    const failingFrom = fixture.now();
    const lastGood = Math.max(...fetches.filter((fetch) => fetch.ok && fetch.at <= failingFrom).map((fetch) => fetch.at));
    // Up to its bound the preview is live (the failures are not news yet)...
    await fixture.advance(lastGood + LIVE_FOR_MS - fixture.now());
    expect(fetches.filter((fetch) => fetch.at > failingFrom).every((fetch) => !fetch.ok)).toBe(true);
    expect(fetches.some((fetch) => fetch.at > failingFrom)).toBe(true);
    expect(channelPicture(fixture).previewAgeS).toBeUndefined();
    // ...and from the next millisecond it is stale, drawn at once (a change of meaning is never held),
    // while the channel's own state stays live.
    await fixture.advance(1);
    const stale = channelPicture(fixture);
    expect(stale.state).toBe('idle');
    expect(stale.thumbnail).toBe(live.thumbnail);
    expect(stale.previewAgeS).toBe(1);
    await fixture.settle();
    const staleBrightness = bodyBrightness(fixture);
    expect(staleBrightness).toBeLessThan(0.75 * liveBrightness);
    // Its age counts on, second by second.
    await fixture.advance(2000);
    expect(channelPicture(fixture).previewAgeS).toBe(Math.floor((fixture.now() - lastGood) / 1000));

    // The recorder serves previews again: the next fetch (the same picture) makes it live at once.
    fixture.sim.faults.set([]);
    const healedAt = fixture.now();
    await fixture.until(() => fetches.some((fetch) => fetch.ok && fetch.at >= healedAt), 'a preview fetched again', 2 * THUMBNAIL_MS);
    await fixture.settle();
    const again = channelPicture(fixture);
    expect(again.previewAgeS).toBeUndefined();
    expect(again.thumbnail).toBe(live.thumbnail);
    await fixture.until(() => bodyBrightness(fixture) > 0.9 * liveBrightness, 'key0 drawn live again', 200);
  });

  it('a preview whose fetch is slow is shown stale while it is under way, and live with the new picture it brings', async () => {
    f = await startBridgeFixture({ profile: PROFILE });
    const fixture = f;
    const fetches = watchPreviews(fixture);
    await fixture.until(() => channelPicture(fixture).thumbnail !== null, 'the first preview on key0');
    await fixture.advance(1000);
    expect(channelPicture(fixture).previewAgeS).toBeUndefined();

    // Each preview's answer now takes 4 s to come (the recorder busy), far more than its bound.
    fixture.requests.latencyByPath.set('/api/channels/{index}/preview', 4000);
    const slowFrom = fixture.now();
    const lastGood = Math.max(...fetches.filter((fetch) => fetch.ok && fetch.at <= slowFrom).map((fetch) => fetch.at));
    const shownBefore = channelPicture(fixture).thumbnail;
    // Live up to its bound from the last fetch answered in time, stale from the next millisecond.
    await fixture.advance(lastGood + LIVE_FOR_MS - fixture.now());
    expect(channelPicture(fixture).previewAgeS).toBeUndefined();
    await fixture.advance(1);
    expect(channelPicture(fixture).previewAgeS).toBe(1);
    expect(channelPicture(fixture).state).toBe('idle');
    expect(channelPicture(fixture).thumbnail).toBe(shownBefore);

    // The slow answer (sent at the next tick, answered 4 s later) brings a new picture: live again, at once.
    const slowSent = Math.min(...fetches.filter((fetch) => fetch.at > lastGood).map((fetch) => fetch.at));
    await fixture.advance(slowSent + 4000 - 1 - fixture.now());
    expect(channelPicture(fixture).previewAgeS).toBe(Math.floor((fixture.now() - lastGood) / 1000));
    await fixture.advance(1);
    expect(channelPicture(fixture).previewAgeS).toBeUndefined();
    expect(channelPicture(fixture).thumbnail).not.toBe(shownBefore);
  });
});
