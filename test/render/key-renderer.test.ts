// The key renderer: exact sizes, caching by content, the JS fast paths (clock ticks, rings, flashes,
// thumbnails) matching full renders, and text really drawn.
import { describe, expect, it } from 'vitest';
import type { Picture } from '../../src/engine/picture.js';
import type { RgbImage } from '../../src/engine/surface.js';
import { KeyRenderer } from '../../src/render/key-renderer.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { ringThickness } from '../../src/render/raster/ring.js';
import { stateTileLayout } from '../../src/render/tiles/state-tile.js';
import { EVERY_KIND, SIZES, channel, recording } from './fixtures.js';
import { differingPixels, isColour, maxDifference, pixel } from './pixels.js';

const KEY = { width: 96, height: 96 };

describe('sizes', () => {
  it('every picture kind comes out at exactly the requested size, 3 bytes a pixel', async () => {
    const renderer = new KeyRenderer();
    // All at once: each image is checked as before, and sharp's threads draw side by side.
    await Promise.all(
      SIZES.flatMap((size) =>
        EVERY_KIND.map(async (picture) => {
          const image = await renderer.render(picture, size);
          expect({ kind: picture.kind, width: image.width, height: image.height, bytes: image.data.length }).toEqual({
            kind: picture.kind,
            width: size.width,
            height: size.height,
            bytes: size.width * size.height * 3,
          });
        }),
      ),
    );
  });

  it('blank is black', async () => {
    const image = await new KeyRenderer().render({ kind: 'blank' }, KEY);
    expect(image.data.every((byte) => byte === 0)).toBe(true);
  });

  it('refuses sizes that are not whole positive pixels', async () => {
    await expect(new KeyRenderer().render({ kind: 'blank' }, { width: 0, height: 96 })).rejects.toThrow(/whole positive/);
  });
});

describe('cache', () => {
  it('an identical picture gives the identical image and counts a cache hit', async () => {
    const renderer = pictureRenderer();
    const first = await renderer.render(recording(), KEY);
    const hits = renderer.stats.cacheHits;
    const renders = renderer.stats.renders;
    // An equal picture built separately counts as identical: the key is the picture's content.
    const again = await renderer.render(structuredClone(recording()), KEY);
    expect(again).toBe(first);
    expect(renderer.stats.cacheHits).toBe(hits + 1);
    expect(renderer.stats.renders).toBe(renders);
  });

  it('the same picture at another size is another image', async () => {
    const renderer = new KeyRenderer();
    const small = await renderer.render(recording(), { width: 72, height: 72 });
    const large = await renderer.render(recording(), KEY);
    expect(large).not.toBe(small);
    expect(large.width).toBe(96);
  });

  it('concurrent requests for one picture share one image', async () => {
    const renderer = new KeyRenderer();
    const [a, b] = await Promise.all([renderer.render(recording(), KEY), renderer.render(recording(), KEY)]);
    expect(a).toBe(b);
  });

  it('a second renderer draws with the glyph atlases the first built: its one sharp call is its base', async () => {
    const picture = channel('stale', { durationS: 80, fps: 25, ageS: 5 });
    const first = await new KeyRenderer().render(picture, KEY);
    const second = new KeyRenderer();
    const again = await second.render(picture, KEY);
    // Texts in four sizes: with atlases of its own the second renderer would make five sharp calls.
    expect(second.stats.renders).toBe(1);
    expect(maxDifference(again, first)).toBe(0);
  });

  it('stays bounded', async () => {
    const renderer = new KeyRenderer({ maxImages: 3 });
    const first = await renderer.render(recording({ durationS: 1 }), KEY);
    for (let s = 2; s <= 5; s++) await renderer.render(recording({ durationS: s }), KEY);
    // Evicted: drawn again (from the cached base), so a new object with the same pixels.
    const again = await renderer.render(recording({ durationS: 1 }), KEY);
    // Identity compared as a boolean: `not.toBe` on two equal images deep-compares their 27k bytes for
    // its message even when it passes (a second of CPU).
    expect(again === first).toBe(false);
    expect(maxDifference(again, first)).toBe(0);
  });
});

describe('fast paths', () => {
  async function tickAndFresh(before: Picture, after: Picture, size = KEY): Promise<{ ticked: RgbImage; fresh: RgbImage; renderer: KeyRenderer; rendersBefore: number; fastBefore: number }> {
    const renderer = new KeyRenderer();
    await renderer.render(before, size);
    const rendersBefore = renderer.stats.renders;
    const fastBefore = renderer.stats.fastPaths;
    const ticked = await renderer.render(after, size);
    const fresh = await new KeyRenderer().render(after, size);
    return { ticked, fresh, renderer, rendersBefore, fastBefore };
  }

  it('a clock tick takes the fast path and matches a full render of the new picture', async () => {
    // The sizes side by side, each with renderers of its own.
    await Promise.all(
      SIZES.map(async (size) => {
        const { ticked, fresh, renderer, rendersBefore, fastBefore } = await tickAndFresh(recording({ durationS: 754 }), recording({ durationS: 755 }), size);
        expect(renderer.stats.fastPaths).toBe(fastBefore + 1);
        expect(renderer.stats.renders).toBe(rendersBefore);
        expect(maxDifference(ticked, fresh)).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('the clock actually changes the pixels', async () => {
    const { ticked } = await tickAndFresh(recording({ durationS: 754 }), recording({ durationS: 755 }));
    const previous = await new KeyRenderer().render(recording({ durationS: 754 }), KEY);
    expect(differingPixels(ticked, previous)).toBeGreaterThan(5);
  });

  it('sync clocks, stale ages, fps, warnings and meter levels change without a sharp call', async () => {
    const pairs: [Picture, Picture][] = [
      [
        { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 10, ageS: null },
        { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 11, ageS: null },
      ],
      [channel('stale', { ageS: 5 }), channel('stale', { ageS: 6 })],
      [recording({ fps: 25 }), recording({ fps: 24.98 })],
      [recording({ warning: 'DROP 1' }), recording({ warning: 'DROP 2' })],
      [
        { kind: 'meter', channel: 1, source: 'A', levels: [-20, -30], gainDb: 0, freshness: 'live', ageS: null },
        { kind: 'meter', channel: 1, source: 'A', levels: [-5, -50], gainDb: 1.5, freshness: 'live', ageS: null },
      ],
      [
        { kind: 'meter', channel: 1, source: 'A', levels: null, gainDb: 1.5, freshness: 'stale', ageS: 5 },
        { kind: 'meter', channel: 1, source: 'A', levels: null, gainDb: 1.5, freshness: 'stale', ageS: 6 },
      ],
      [
        { kind: 'resources', timeLeft: null, cpu: 10, ram: 20, disk: { label: 'D:', used: 30 }, warning: false, freshness: 'live' },
        { kind: 'resources', timeLeft: null, cpu: 11, ram: 22, disk: { label: 'D:', used: 31 }, warning: false, freshness: 'live' },
      ],
    ];
    await Promise.all(
      pairs.map(async ([before, after]) => {
        const { ticked, fresh, renderer, rendersBefore } = await tickAndFresh(before, after);
        expect({ kind: after.kind, renders: renderer.stats.renders }).toEqual({ kind: after.kind, renders: rendersBefore });
        expect(maxDifference(ticked, fresh)).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('hold-ring frames and flashes are painted over the cached base', async () => {
    const renderer = new KeyRenderer();
    await renderer.render({ ...recording(), overlay: { flash: 'failed' } }, KEY); // warms the flash word's atlas
    const renders = renderer.stats.renders;
    for (let frame = 0; frame <= 25; frame++) await renderer.render({ ...recording(), overlay: { hold: frame / 25 } }, KEY);
    await renderer.render({ ...recording(), overlay: { flash: 'failed', selected: true } }, KEY);
    expect(renderer.stats.renders).toBe(renders);
  });
});

describe('what is drawn', () => {
  it('text: a different source name gives different pixels in the identity line, and nowhere else', async () => {
    const renderer = new KeyRenderer();
    const one = await renderer.render(channel('idle', { source: 'Cam 1' }), KEY);
    const two = await renderer.render(channel('idle', { source: 'Cam 2' }), KEY);
    const { ident, band } = stateTileLayout(KEY);
    expect(differingPixels(one, two, { x: 0, y: Math.round(ident.y), width: 96, height: Math.round(ident.height) })).toBeGreaterThan(5);
    expect(differingPixels(one, two, { x: 0, y: 0, width: 96, height: band.height })).toBe(0);
  });

  it('text: labels differ by their text', async () => {
    const renderer = new KeyRenderer();
    const label = (text: string): Picture => ({ kind: 'label', text, icon: null, color: null, active: null });
    expect(differingPixels(await renderer.render(label('Cam 1'), KEY), await renderer.render(label('Cam 2'), KEY))).toBeGreaterThan(5);
  });

  it('the hold ring changes edge pixels but not the centre', async () => {
    const renderer = new KeyRenderer();
    const plain = await renderer.render(recording(), KEY);
    const held = await renderer.render({ ...recording(), overlay: { hold: 0.5 } }, KEY);
    const thickness = ringThickness(96, 96);
    const inner = { x: thickness, y: thickness, width: 96 - 2 * thickness, height: 96 - 2 * thickness };
    expect(differingPixels(plain, held, inner)).toBe(0);
    expect(differingPixels(plain, held)).toBeGreaterThan(4 * 96);
    // Half way: the top right is filled with the ring colour, the top left still only darkened.
    expect(isColour(held, 95 - 1, 48, '#56B4E9')).toBe(true);
    expect(isColour(held, 1, 48, '#56B4E9')).toBe(false);
    const more = await renderer.render({ ...recording(), overlay: { hold: 0.9 } }, KEY);
    expect(differingPixels(held, more)).toBeGreaterThan(0);
    expect(differingPixels(held, more, inner)).toBe(0);
  });

  it('selected draws a frame, flash and armed draw over the middle', async () => {
    const renderer = new KeyRenderer();
    const plain = await renderer.render(recording(), KEY);
    const selected = await renderer.render({ ...recording(), overlay: { selected: true } }, KEY);
    expect(isColour(selected, 0, 60, '#FFFFFF')).toBe(true);
    expect(differingPixels(plain, selected, { x: 10, y: 10, width: 76, height: 76 })).toBe(0);
    const failed = await renderer.render({ ...recording(), overlay: { flash: 'failed' } }, KEY);
    const refused = await renderer.render({ ...recording(), overlay: { flash: 'refused' } }, KEY);
    const armed = await renderer.render({ ...recording(), overlay: { armed: true } }, KEY);
    expect(pixel(failed, 2, 48)[0]).toBeGreaterThan(200); // red tint box at the edge of the middle band
    expect(differingPixels(failed, refused)).toBeGreaterThan(1000);
    expect(differingPixels(plain, armed, { x: 0, y: 40, width: 96, height: 16 })).toBeGreaterThan(500);
  });

  it('stale differs from live, and offline from both', async () => {
    const renderer = new KeyRenderer();
    const live = await renderer.render(recording({ durationS: 80 }), KEY);
    const stale = await renderer.render(channel('stale', { durationS: 80, fps: 25, ageS: 5 }), KEY);
    const offline = await renderer.render(channel('offline', { durationS: 80, fps: 25, ageS: 5 }), KEY);
    expect(differingPixels(live, stale)).toBeGreaterThan(1000);
    expect(differingPixels(offline, live)).toBeGreaterThan(1000);
    expect(differingPixels(offline, stale)).toBeGreaterThan(1000);
    // The age is shown and moves on.
    const older = await renderer.render(channel('stale', { durationS: 80, fps: 25, ageS: 6 }), KEY);
    expect(differingPixels(stale, older)).toBeGreaterThan(5);
    // What the channel was last confirmed doing shows through, dimmed: sync recording is not plain recording.
    const wasSync = await renderer.render(channel('stale', { lastSeen: 'sync-recording', durationS: 80, fps: 25, ageS: 5 }), KEY);
    const wasRecording = await renderer.render(channel('stale', { lastSeen: 'recording', durationS: 80, fps: 25, ageS: 5 }), KEY);
    expect(differingPixels(wasSync, wasRecording)).toBeGreaterThan(1000);
  });

  it('dialog keys flash bright and dim', async () => {
    const renderer = new KeyRenderer();
    const dialog = (flashPhase: boolean): Picture => ({ kind: 'dialog', role: 'ok', active: true, flashPhase, text: 'Stop?', offersCancel: true, textPage: 0, slot: 0, slots: 1, ageS: null });
    const bright = await renderer.render(dialog(true), KEY);
    const dim = await renderer.render(dialog(false), KEY);
    const brightness = (image: RgbImage) => image.data.reduce((sum, byte) => sum + byte, 0);
    expect(brightness(bright)).toBeGreaterThan(brightness(dim) * 1.5);
  });
});

describe('thumbnails', () => {
  const green: RgbImage = { width: 160, height: 90, data: Buffer.alloc(160 * 90 * 3) };
  for (let i = 0; i < green.data.length; i += 3) green.data[i + 1] = 200;

  it('shows the preview under the state band', async () => {
    const renderer = new KeyRenderer({ thumbnails: (key) => (key === 'cam/1' ? green : undefined) });
    const withPreview = await renderer.render(channel('idle', { thumbnail: 'cam/1' }), KEY);
    const without = await renderer.render(channel('idle'), KEY);
    const { clock, probe } = stateTileLayout(KEY);
    // The clock row of an idle channel has no text or scrim: the preview shows as it is.
    const y = Math.round(clock.y + clock.height / 2);
    expect(pixel(withPreview, 48, y)).toEqual([0, 200, 0]);
    expect(pixel(without, 48, y)).not.toEqual([0, 200, 0]);
    // The band stays the state's colour.
    expect(isColour(withPreview, probe.x, probe.y, '#3C3C3C')).toBe(true);
  });

  it('a new preview frame costs no sharp call', async () => {
    const frames = new Map<string, RgbImage>([
      ['cam/1', green],
      ['cam/2', { ...green, data: Buffer.alloc(green.data.length, 90) }],
    ]);
    const renderer = new KeyRenderer({ thumbnails: (key) => frames.get(key) });
    const first = await renderer.render(recording({ thumbnail: 'cam/1' }), KEY);
    const renders = renderer.stats.renders;
    const second = await renderer.render(recording({ thumbnail: 'cam/2' }), KEY);
    expect(renderer.stats.renders).toBe(renders);
    expect(differingPixels(first, second)).toBeGreaterThan(100);
  });

  it('a clock tick over a preview reuses its backdrop and draws what a fresh renderer draws', async () => {
    // A gradient, so that scaling it to the key's preview area shows in the pixels.
    const gradient: RgbImage = { width: 160, height: 90, data: Buffer.alloc(160 * 90 * 3) };
    for (let y = 0; y < 90; y++) for (let x = 0; x < 160; x++) gradient.data.set([x, y * 2, (x + y) % 256], (y * 160 + x) * 3);
    await Promise.all(
      SIZES.map(async (size) => {
        const renderer = new KeyRenderer({ thumbnails: () => gradient });
        await renderer.render(recording({ durationS: 10, thumbnail: 'cam/1' }), size);
        const hits = renderer.stats.backdropHits;
        const ticked = await renderer.render(recording({ durationS: 11, thumbnail: 'cam/1' }), size);
        expect(renderer.stats.backdropHits).toBe(hits + 1);
        const fresh = await new KeyRenderer({ thumbnails: () => gradient }).render(recording({ durationS: 11, thumbnail: 'cam/1' }), size);
        expect(maxDifference(ticked, fresh)).toBe(0);
      }),
    );
  });

  it("a clock's tick repaints the clock alone over the kept still text, and draws what a fresh renderer draws", async () => {
    // Each step against the one before it on one renderer: a tick (the kept backdrop: number, source and
    // footer painted once), a new frame rate or warning in the footer, another channel's name and
    // number, a stale tile's age (its footer moves each second: a backdrop of its own each time), a sync
    // tile's clock, a flash over the tick. Each image is what a renderer that never drew before draws.
    const steps: Array<{ picture: Picture; kept: boolean }> = [
      { picture: recording({ durationS: 10 }), kept: false },
      { picture: recording({ durationS: 11 }), kept: true },
      { picture: recording({ durationS: 12, fps: 50 }), kept: false },
      { picture: recording({ durationS: 13, fps: 50 }), kept: true },
      { picture: recording({ durationS: 14, fps: 50, warning: 'DROP 3', drops: 3 }), kept: false },
      { picture: recording({ durationS: 14, channel: 4, source: 'Studio B wide' }), kept: false },
      { picture: recording({ durationS: 15, channel: 4, source: 'Studio B wide' }), kept: true },
      { picture: recording({ durationS: 15 }), kept: true },
      { picture: channel('stale', { lastSeen: 'recording', durationS: 15, fps: 25, ageS: 5 }), kept: false },
      { picture: channel('stale', { lastSeen: 'recording', durationS: 15, fps: 25, ageS: 6 }), kept: false },
      { picture: { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 10, ageS: null }, kept: false },
      { picture: { kind: 'sync', state: 'recording', action: null, members: [1, 2], outOfSync: [], durationS: 11, ageS: null }, kept: true },
      { picture: { ...recording({ durationS: 16 }), overlay: { flash: 'refused' } }, kept: true },
    ];
    await Promise.all(
      SIZES.map(async (size) => {
        const renderer = new KeyRenderer();
        for (const { picture, kept } of steps) {
          const hits = renderer.stats.backdropHits;
          const image = await renderer.render(picture, size);
          expect({ picture, size, kept: renderer.stats.backdropHits === hits + 1 }).toEqual({ picture, size, kept });
          expect(maxDifference(image, await new KeyRenderer().render(picture, size))).toBe(0);
        }
      }),
    );
  });

  it('a thumbnail key with no image yet draws the tile without a preview', async () => {
    const renderer = new KeyRenderer({ thumbnails: () => undefined });
    const image = await renderer.render(channel('idle', { thumbnail: 'missing' }), KEY);
    expect(maxDifference(image, await renderer.render(channel('idle'), KEY))).toBe(0);
  });
});

describe('channel names', () => {
  it('a page of new channels in one state shares one background: no sharp call per key', async () => {
    const renderer = new KeyRenderer();
    // The background and the glyph sets for these text sizes, made once.
    await renderer.render(channel('idle', { channel: 1, source: 'Cam 1' }), KEY);
    await renderer.render(channel('idle', { channel: 2, source: 'Studio B wide' }), KEY);
    const renders = renderer.stats.renders;
    const first = await renderer.render(channel('idle', { channel: 3, source: 'Cam 3' }), KEY);
    const second = await renderer.render(channel('idle', { channel: 4, source: 'Studio B tele' }), KEY);
    expect(renderer.stats.renders).toBe(renders);
    expect(differingPixels(first, second)).toBeGreaterThan(20); // the names and numbers differ on the key
  });

  it('a name beyond ASCII is drawn with the shipped font, not as question marks', async () => {
    const renderer = new KeyRenderer();
    const umlaut = await renderer.render(channel('idle', { source: 'Bühne' }), KEY);
    const question = await renderer.render(channel('idle', { source: 'B?hne' }), KEY);
    const plain = await renderer.render(channel('idle', { source: 'Buhne' }), KEY);
    expect(differingPixels(umlaut, question)).toBeGreaterThan(5);
    expect(differingPixels(umlaut, plain)).toBeGreaterThan(0);
  });
});

describe('warm-ups', () => {
  // What a channel's first start, pause or stop shows, on channels and sources other than the warm-up's own.
  const firsts = [recording({ channel: 9, source: 'Studio B', durationS: 1, fps: 50 }), channel('paused', { channel: 4, source: 'Wide', durationS: 12 }), channel('idle', { channel: 12, source: 'Cam 7' })];

  it('once run, a channel key that starts, pauses or stops is drawn without a sharp call', async () => {
    const renderer = new KeyRenderer();
    for (const step of renderer.warmUps(KEY)) await step();
    const renders = renderer.stats.renders;
    for (const picture of firsts) await renderer.render(picture, KEY);
    expect(renderer.stats.renders).toBe(renders);
    expect(renderer.stats.fastPaths).toBeGreaterThanOrEqual(firsts.length);
  });

  it('without them the first start calls sharp (what they save), and the images are the same either way', async () => {
    const cold = new KeyRenderer();
    const warm = new KeyRenderer();
    for (const step of warm.warmUps(KEY)) await step();
    for (const picture of firsts) {
      const before = cold.stats.renders;
      const image = await cold.render(picture, KEY);
      if (picture === firsts[0]) expect(cold.stats.renders).toBeGreaterThan(before);
      expect(maxDifference(await warm.render(picture, KEY), image)).toBe(0);
    }
  });

  it('are made for the size asked: another size is still cold', async () => {
    const renderer = new KeyRenderer();
    for (const step of renderer.warmUps({ width: 72, height: 72 })) await step();
    const renders = renderer.stats.renders;
    await renderer.render(firsts[0] as Picture, KEY);
    expect(renderer.stats.renders).toBeGreaterThan(renders);
  });
});
