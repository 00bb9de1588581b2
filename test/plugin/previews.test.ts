// Previews behind channel keys in the plugin: a key whose settings ask for its channel's preview shows it
// behind the state, as the bridge's keys do, decoded without a native module (png-decode.ts) and drawn
// as an image inside the SVG tile. Only visible keys that ask for one make the recorder send previews;
// an unchanged preview draws nothing new. The real deck, engine and client against the simulator, the
// app's commands faked (in-process-deck.ts); time is virtual.
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { decodePng } from '../../src/plugin/png-decode.js';
import { PREVIEW_SIZE, previewThumbnail } from '../../src/plugin/preview-thumbnail.js';
import { KEY_SIZE } from '../../src/plugin/app-surface.js';
import { SvgTileRenderer } from '../../src/plugin/svg-tiles.js';
import type { ChannelPicture } from '../../src/engine/picture.js';
import { STALE_DIM } from '../../src/render/palette.js';
import { startInProcessDeck, uuidOf, type InProcessDeck } from './in-process-deck.js';

let running: InProcessDeck | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

async function started(): Promise<InProcessDeck> {
  // Still previews: the same picture every time, as a camera on a still scene sends.
  running = await startInProcessDeck({ simulator: { stillPreviews: true } });
  running.deck.setGlobalSettings({ recorders: [{ name: 'main', url: running.fixture.sim.url, token: running.fixture.sim.token }] });
  return running;
}

/** The preview requests the recorder answered, by 0-based channel. */
function previewsAsked(sim: RunningSimulator): number[] {
  return sim.log
    .list()
    .map((r) => /^\/api\/channels\/(\d+)\/preview$/.exec(r.path)?.[1])
    .filter((index) => index !== undefined)
    .map(Number);
}

/** The PNG an SVG tile embeds behind its state, or null. */
function embeddedPng(svg: string): Buffer | null {
  const href = /<image [^>]*href="data:image\/png;base64,([^"]+)"/.exec(svg)?.[1];
  return href === undefined ? null : Buffer.from(href, 'base64');
}

describe('a channel key that asks for its preview', () => {
  it("shows the channel's preview behind its state; a key that does not ask shows none, and its preview is never fetched", async () => {
    const d = await started();
    d.appear({ context: 'withPreview', uuid: uuidOf('rec-toggle'), settings: { recorder: 'main', channel: 1, thumbnail: true } });
    d.appear({ context: 'plain', uuid: uuidOf('rec-toggle'), settings: { recorder: 'main', channel: 2 }, column: 1 });
    await d.until(() => d.images('withPreview').some((svg) => embeddedPng(svg) !== null), 'the preview behind channel 1');
    const svg = d.images('withPreview').find((s) => embeddedPng(s) !== null) as string;
    expect(svg).toContain('<title>channel 1: idle</title>');
    // The picture embedded is the recorder's preview of channel 1, shrunk to the tile's body.
    const shown = decodePng(embeddedPng(svg) as Buffer);
    const expected = await previewThumbnail(await d.fixture.client.getChannelPreview(0));
    expect({ width: shown.width, height: shown.height }).toEqual(PREVIEW_SIZE);
    expect(shown.data.equals(expected.data)).toBe(true);
    expect(d.images('plain').length).toBeGreaterThan(0);
    expect(d.images('plain').every((s) => !s.includes('<image'))).toBe(true);
    expect(new Set(previewsAsked(d.fixture.sim))).toEqual(new Set([0]));
  });

  it('an unchanged preview draws nothing new, and once the key is gone no preview is fetched', async () => {
    const d = await started();
    d.appear({ context: 'withPreview', uuid: uuidOf('rec-toggle'), settings: { recorder: 'main', channel: 3, thumbnail: true } });
    await d.until(() => d.images('withPreview').some((svg) => embeddedPng(svg) !== null), 'the preview behind channel 3');
    const drawn = d.images('withPreview').length;
    const fetched = previewsAsked(d.fixture.sim).length;
    await d.advance(3000);
    // Fetched again each second (the recorder may change it), the same bytes each time: no new tile.
    expect(previewsAsked(d.fixture.sim).length).toBeGreaterThanOrEqual(fetched + 2);
    expect(d.images('withPreview').length).toBe(drawn);
    d.deck.disappear('withPreview');
    await d.advance(10);
    const afterGone = previewsAsked(d.fixture.sim).length;
    await d.advance(3000);
    expect(previewsAsked(d.fixture.sim).length).toBe(afterGone);
  });

  it('a preview asked for on an action whose key shows no channel is a settings problem the key and the log name', async () => {
    const d = await started();
    d.appear({ context: 'ok', uuid: uuidOf('dialog-ok'), settings: { recorder: 'main', thumbnail: true } });
    await d.until(() => d.images('ok').length > 0, 'the key drawn');
    expect(d.deck.problemOf('ok')).toBe('settings: thumbnail: a dialog-ok key shows no channel, so no preview');
    expect(d.lastTitle('ok')).toBe('SETTINGS thumbnail');
    expect(d.logs.some((line) => line.includes('thumbnail: a dialog-ok key shows no channel'))).toBe(true);
  });
});

describe('the SVG tile with a preview', () => {
  const picture: ChannelPicture = {
    kind: 'channel',
    channel: 1,
    source: 'CAM 1',
    state: 'recording',
    lastSeen: null,
    durationS: 12,
    fps: null,
    drops: 0,
    buffered: 0,
    warning: null,
    audioPreview: false,
    ageS: null,
    thumbnail: 'main/0/abc',
  };
  // A preview of one colour, so what shows through the tile can be told apart from the tile's own colours.
  const preview = { width: PREVIEW_SIZE.width, height: PREVIEW_SIZE.height, data: Buffer.alloc(PREVIEW_SIZE.width * PREVIEW_SIZE.height * 3) };
  for (let i = 0; i < preview.data.length; i += 3) preview.data.set([20, 200, 60], i);

  it('draws the preview in the body, under the state band and the text (as the app draws the SVG)', async () => {
    const renderer = new SvgTileRenderer({ thumbnails: (key) => (key === 'main/0/abc' ? preview : undefined) });
    // Idle: no clock, so the middle of the body shows the preview as it is.
    const tile = await renderer.render({ ...picture, state: 'idle', durationS: null }, KEY_SIZE);
    const svg = tile.data.toString('utf8');
    const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    // The middle of the body (where an idle channel has no clock): the preview itself.
    expect(at(2, 90)).toEqual([20, 200, 60]);
    // The identity row: the preview under the tiles' scrim, darkened so the text reads.
    const [r, g, b] = at(2, 45) as [number, number, number];
    expect(g).toBeGreaterThan(60);
    expect(g).toBeLessThan(120);
    expect(r / g).toBeCloseTo(20 / 200, 1);
    expect(b / g).toBeCloseTo(60 / 200, 1);
    // The band on top is the state's, not the preview's.
    expect(at(KEY_SIZE.width - 12, 10)).not.toEqual([20, 200, 60]);
  });

  it('draws a preview past its time as live dimmed, with its age, as the bridge\'s keys do', async () => {
    const renderer = new SvgTileRenderer({ thumbnails: (key) => (key === 'main/0/abc' ? preview : undefined) });
    const tile = await renderer.render({ ...picture, state: 'idle', durationS: null, previewAgeS: 3 }, KEY_SIZE);
    const svg = tile.data.toString('utf8');
    const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const [r, g, b] = [...data.subarray((90 * info.width + 2) * 3, (90 * info.width + 2) * 3 + 3)] as [number, number, number];
    expect(g).toBeCloseTo(200 * STALE_DIM, -1);
    expect(r).toBeCloseTo(20 * STALE_DIM, -1);
    expect(b).toBeCloseTo(60 * STALE_DIM, -1);
    expect(svg).toContain('PIC 3s old');
  });

  it('encodes a preview once, whatever tiles it is behind; without the preview in the store the tile has none', async () => {
    let asked = 0;
    const renderer = new SvgTileRenderer({
      thumbnails: (key) => {
        asked++;
        return key === 'main/0/abc' ? preview : undefined;
      },
    });
    const first = (await renderer.render(picture, KEY_SIZE)).data.toString('utf8');
    const second = (await renderer.render({ ...picture, durationS: 13 }, KEY_SIZE)).data.toString('utf8');
    expect(asked).toBe(2);
    expect(embeddedPng(first)).not.toBeNull();
    expect(embeddedPng(first)?.equals(embeddedPng(second) as Buffer)).toBe(true);
    const missing = (await renderer.render({ ...picture, thumbnail: 'main/0/gone' }, KEY_SIZE)).data.toString('utf8');
    expect(missing).not.toContain('<image');
  });
});
