// Pictures drawn on a thread of their own (src/render/render-thread.ts, render-worker.ts): the same bytes
// as KeyRenderer on the main thread, the same image object for a repeated picture, and a thread that
// dies, does not answer or answers nonsense fails what it holds with a clear error and never hangs.
// A real worker_threads Worker running the built entry (dist/render/render-worker.js: `npm test` builds
// first) with the real KeyRenderer; the misbehaving threads are fakes at the transport (the .mjs files
// beside this one). Integration, not pure: a thread of its own and waits on it.
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../../../src/engine/log.js';
import type { Picture, StatusPicture } from '../../../src/engine/picture.js';
import type { RgbImage } from '../../../src/engine/surface.js';
import { KeyRenderer } from '../../../src/render/key-renderer.js';
import { RenderThread, ThreadRenderer } from '../../../src/render/render-thread.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { until } from '../../support/until.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { EVERY_KIND, channel, recording } from '../fixtures.js';

const KEY = { width: 96, height: 96 };
const SIZES = [{ width: 72, height: 72 }, KEY];
const PREVIEW = 'main/3/0123456789abcdef';
const status: StatusPicture = { kind: 'status', recorder: 'main', freshness: 'live', ageS: null, recording: 3, dialog: false, page: { name: 'Channels', number: 1, count: 3 } };
const dialog = EVERY_KIND.find((p) => p.kind === 'dialog') as Picture;
const meter = EVERY_KIND.find((p) => p.kind === 'meter') as Picture;
/** A channel recording with its clock, one with a preview, a dialog, a meter, the status key, a hold ring. */
const PICTURES: Picture[] = [recording(), recording({ thumbnail: PREVIEW }), dialog, meter, status, { ...recording(), overlay: { hold: 0.5, selected: true } }];

const threads: RenderThread[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.close()));
});

function logged(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) } };
}

function renderThread(options: Partial<ConstructorParameters<typeof RenderThread>[0]> = {}): RenderThread {
  const thread = new RenderThread({ time: new VirtualTime(), log: logged().log, ...options });
  threads.push(thread);
  return thread;
}

/** A recorder's preview as it arrives: a 640x360 PNG (a gradient, so that scaling shows). */
async function previewPng(): Promise<Buffer> {
  const width = 640;
  const height = 360;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set([x % 256, y % 256, (x + y) % 256], (y * width + x) * 3);
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

describe('the thread draws what the main thread draws', () => {
  // One thread for these (each new one loads sharp and the fonts: seconds of CPU on this machine).
  const thread = new RenderThread({ time: new VirtualTime(), log: logged().log });
  afterAll(() => thread.close());

  it('byte for byte, for every picture at two sizes, with the preview decoded on the thread', async () => {
    const png = await previewPng();
    const decodedHere = await decodeThumbnail(png);
    const decodedThere = await thread.decodeThumbnail(png);
    expect(decodedThere.data.equals(decodedHere.data)).toBe(true);
    expect([decodedThere.width, decodedThere.height]).toEqual([decodedHere.width, decodedHere.height]);

    const here = new KeyRenderer({ thumbnails: (key) => (key === PREVIEW ? decodedHere : undefined) });
    const there = new ThreadRenderer(thread, { thumbnails: (key) => (key === PREVIEW ? decodedThere : undefined) });
    for (const size of SIZES) {
      for (const picture of PICTURES) {
        const [a, b] = await Promise.all([here.render(picture, size), there.render(picture, size)]);
        expect({ picture: picture.kind, size, width: b.width, height: b.height, same: b.data.equals(a.data) }).toEqual({ picture: picture.kind, size, width: a.width, height: a.height, same: true });
      }
    }
    // The preview really is on the key: without it the same picture is drawn otherwise.
    const withPreview = await there.render(recording({ thumbnail: PREVIEW }), KEY);
    expect(withPreview.data.equals((await there.render(recording(), KEY)).data)).toBe(false);
    expect(there.stats.renders).toBeGreaterThan(0);
  });

  it('a preview the main thread no longer has is not drawn from the copy the thread still holds', async () => {
    const green: RgbImage = { width: 160, height: 90, data: Buffer.alloc(160 * 90 * 3, 90) };
    let held: RgbImage | undefined = green;
    const there = new ThreadRenderer(thread, { thumbnails: (key) => (key === PREVIEW ? held : undefined) });
    const here = new KeyRenderer();
    await there.render(recording({ thumbnail: PREVIEW, durationS: 1 }), KEY);
    held = undefined;
    // The same preview key, now gone on the main thread: drawn without it, as KeyRenderer there draws it.
    const after = await there.render(recording({ thumbnail: PREVIEW, durationS: 2 }), KEY);
    expect(after.data.equals((await here.render(recording({ thumbnail: PREVIEW, durationS: 2 }), KEY)).data)).toBe(true);
  });

  it('keeps the identity of a repeated picture (the session skips re-sending by it)', async () => {
    const renderer = new ThreadRenderer(thread);
    const first = await renderer.render(recording(), KEY);
    const hits = renderer.stats.cacheHits;
    const again = await renderer.render(structuredClone(recording()), KEY);
    expect(again).toBe(first);
    expect(renderer.stats.cacheHits).toBe(hits + 1);
    // Asked twice before the first answer: one request, one object.
    const [x, y] = await Promise.all([renderer.render(channel('paused'), KEY), renderer.render(channel('paused'), KEY)]);
    expect(x).toBe(y);
  });

  it('runs the renderer\'s warm-ups on the thread', async () => {
    const renderer = new ThreadRenderer(thread);
    const steps = renderer.warmUps({ width: 80, height: 80 });
    expect(steps).toHaveLength(new KeyRenderer().warmUps({ width: 80, height: 80 }).length);
    for (const step of steps) await step();
    // The first recording at that size is then drawn without a sharp call.
    const before = renderer.stats;
    await renderer.render(recording({ channel: 9, source: 'Cam 9' }), { width: 80, height: 80 });
    expect(renderer.stats.renders).toBe(before.renders);
    expect(renderer.stats.fastPaths).toBe(before.fastPaths + 1);
  });

  it('refuses sizes that are not whole positive pixels, as KeyRenderer does', async () => {
    await expect(new ThreadRenderer(thread).render({ kind: 'blank' }, { width: 0, height: 96 })).rejects.toThrow(/whole positive/);
  });
});

describe('a thread that fails', () => {
  it('dies: what it was drawing fails with what happened, it is started again (said in the log), the next picture is drawn', async () => {
    const { log, lines } = logged();
    const started: Worker[] = [];
    const renderer = new ThreadRenderer(renderThread({ log, started: (worker) => started.push(worker) }));
    await renderer.render(recording(), KEY);
    // Stopped from outside, as a crash stops it; the picture is sent before its exit is seen.
    void started[0]?.terminate();
    const held = renderer.render(channel('paused'), KEY);
    await expect(held).rejects.toThrow(/^drawing a channel picture at 96x96: the render thread exited with code 1$/);
    expect(lines).toContain('warn the render thread exited with code 1: what it was drawing failed; starting it again');
    expect(started).toHaveLength(2);
    const next = await renderer.render(channel('paused'), KEY);
    expect(next.data.equals((await new KeyRenderer().render(channel('paused'), KEY)).data)).toBe(true);
  });

  it('answers nonsense: the answer is refused with what is wrong, never used', async () => {
    const { log, lines } = logged();
    const renderer = new ThreadRenderer(renderThread({ log, entry: new URL('./malformed-render-worker.mjs', import.meta.url) }));
    await expect(renderer.render(recording(), KEY)).rejects.toThrow(/^drawing a channel picture at 96x96: the render thread's answer was refused: image: data is not width x height x 3 bytes of RGB/);
    await until(() => lines.some((line) => line.startsWith('warn the render thread sent a message that was refused: type:')), 'the unknown message refused in the log');
  });

  it('answers nothing: fails after answerMs, is started again, and when that one does not answer either the main thread draws', async () => {
    const time = new VirtualTime();
    const { log, lines } = logged();
    const renderer = new ThreadRenderer(renderThread({ time, log, answerMs: 1000, entry: new URL('./silent-render-worker.mjs', import.meta.url) }));
    const first = renderer.render(recording(), KEY);
    time.advance(1000);
    await expect(first).rejects.toThrow(/^drawing a channel picture at 96x96: the render thread answered nothing for 1000 ms \(waiting: drawing a channel picture at 96x96\)$/);
    expect(lines).toContain('warn the render thread answered nothing for 1000 ms (waiting: drawing a channel picture at 96x96): what it was drawing failed; starting it again');
    const second = renderer.render(recording(), KEY);
    time.advance(1000);
    await expect(second).rejects.toThrow(/answered nothing for 1000 ms/);
    expect(lines.at(-1)).toMatch(/^error the render thread answered nothing .* again before answering anything since it was started again: pictures are drawn on the main thread from now on$/);
    const drawn = await renderer.render(recording(), KEY);
    expect(drawn.data.equals((await new KeyRenderer().render(recording(), KEY)).data)).toBe(true);
  });
});
