// Picture rendering and preview decoding on a worker_threads thread of their own (render-worker.ts is
// its entry), so that the bridge's main thread, where presses, the recorders' answers, the sessions and
// the page's socket are handled, carries neither their CPU nor their garbage (issue 35: under a CPU
// quota a press waited behind render stretches and the collector's pauses, and a third of what
// survived the main thread's scavenges was pictures and images; docs/performance.md, "Pictures on a
// thread of their own").
//
// RenderThread owns the thread: requests by id, each answer checked (render-messages.ts); a thread that
// dies, errs or does not answer a request in `answerMs` fails every request under way with what
// happened, and is started again once (said in the log); if that one also dies before it has answered
// anything, the thread is given up and ThreadRenderer draws on the main thread (as before the thread),
// so keys are never left undrawn and nothing waits for ever.
//
// ThreadRenderer is the PictureRenderer the sessions use over it. It keeps on the main thread what the
// session relies on: an identical picture gives back the identical image object (a small cache of
// finished images by picture and size, as KeyRenderer's own), and LED states and a reason's page count,
// which are cheap and asked for synchronously.
import { Worker } from 'node:worker_threads';
import type { Subscription } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { describeIssues } from '../api/issues.js';
import type { Logger } from '../engine/log.js';
import type { Picture } from '../engine/picture.js';
import type { PictureRenderer } from '../engine/session-services.js';
import type { LedState, PixelSize, RgbImage } from '../engine/surface.js';
import { KeyRenderer } from './key-renderer.js';
import { ledStateOf } from './led.js';
import { FinishedImages, undrawableSize } from './finished-images.js';
import { FromRenderThread, HeldThumbnails, THUMBNAILS_HELD, asRgb, type ToRenderThread } from './render-messages.js';
import { decodeThumbnail } from './thumbnail.js';
import { reasonLayout } from './tiles/overlay.js';

/**
 * The thread's entry as built: tsc puts it beside this file in dist/render/. A worker runs JavaScript
 * only, so where this module runs from its TypeScript source (vitest) the built one in dist/ is started
 * (`npm test` builds before it runs the tests).
 */
export const RENDER_WORKER_ENTRY = import.meta.url.endsWith('.ts') ? new URL('../../dist/render/render-worker.js', import.meta.url) : new URL('./render-worker.js', import.meta.url);

export interface RenderThreadOptions {
  /** Times the answers (a request not answered in `answerMs` fails, and the thread is started again). */
  time: Clock;
  log: Logger;
  /** The thread's entry (default RENDER_WORKER_ENTRY; a test gives a misbehaving one). */
  entry?: URL;
  /**
   * How long the thread may hold a request without answering anything, ms (default 20 s; a render takes
   * 1-3 ms, a first one with sharp ~100, and at a load of 40 the thread's start takes seconds). Counted
   * from the request's sending or the thread's last answer (or its start), whichever is later: a thread
   * that answers is slow, not stuck (a 10 s limit from each request's sending killed a starting thread
   * twice at load 43, with a page's first pictures queued behind its start).
   */
  answerMs?: number;
  /** Told of each thread started (for a test that stops one as a crash would). */
  started?: (thread: Worker) => void;
}

type Request = ToRenderThread extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;
type Answer = Exclude<FromRenderThread, { type: 'failed' | 'ready' }>;

interface Pending {
  what: string;
  sentAt: number;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

/** Counters of the renderer(s) on the thread: sharp calls, and images made without one. */
export interface ThreadRenderStats {
  renders: number;
  fastPaths: number;
}

export class RenderThread {
  private thread: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Previews the thread holds, by the same rule as the thread's own store (render-messages.ts). */
  private held = new HeldThumbnails<true>(THUMBNAILS_HELD);
  /** Why the present thread is being stopped (a request it did not answer), to say when it exits. */
  private stopping: string | null = null;
  /** Restarts since the last answer: one is allowed; a second death with no answer between gives up. */
  private restartsUnanswered = 0;
  private watchdog: Subscription | null = null;
  /** When the present thread last showed it was working: its start, its ready, its last answer. */
  private lifeSign = 0;
  private closed = false;
  /** The thread was given up (it died again right after its restart): its users draw on the main thread. */
  private gaveUp = false;
  /** Counters of the threads that ended, and of the present one. */
  private readonly ended: ThreadRenderStats = { renders: 0, fastPaths: 0 };
  private current: ThreadRenderStats = { renders: 0, fastPaths: 0 };
  private readonly answerMs: number;
  private readonly entry: URL;

  constructor(private readonly options: RenderThreadOptions) {
    this.answerMs = options.answerMs ?? 20_000;
    this.entry = options.entry ?? RENDER_WORKER_ENTRY;
    this.start();
  }

  /**
   * False once the thread was given up (it died twice in a row) or closed (the bridge is stopping):
   * its users then draw and decode on the main thread, so that a key is still drawn.
   */
  get usable(): boolean {
    return !this.gaveUp && !this.closed;
  }

  get stats(): ThreadRenderStats {
    return { renders: this.ended.renders + this.current.renders, fastPaths: this.ended.fastPaths + this.current.fastPaths };
  }

  /** Preview PNG to the small raw image keys draw from, decoded on the thread (on the main thread once it is given up). */
  async decodeThumbnail(png: Uint8Array): Promise<RgbImage> {
    if (!this.usable) return decodeThumbnail(png);
    const answer = await this.request({ type: 'decode', png }, 'decoding a preview');
    if (answer.type !== 'decoded') throw new Error(`the render thread answered a preview decode with ${answer.type}`);
    return asRgb(answer.image);
  }

  /** A picture drawn on the thread; `thumbnail` is the preview it shows, when it shows one. */
  async render(picture: Picture, size: PixelSize, thumbnail: { key: string; image: RgbImage } | null): Promise<RgbImage> {
    // Sent once per preview: the thread keeps it under its key until THUMBNAILS_HELD newer ones came.
    const send = thumbnail !== null && this.held.get(thumbnail.key) === undefined ? thumbnail : null;
    if (send !== null) this.held.add(send.key, true);
    const answer = await this.request(
      { type: 'render', picture, width: size.width, height: size.height, thumbnailKey: thumbnail?.key ?? null, thumbnail: send },
      `drawing a ${picture.kind} picture at ${size.width}x${size.height}`,
    );
    if (answer.type !== 'image') throw new Error(`the render thread answered a drawing with ${answer.type}`);
    if (answer.image.width !== size.width || answer.image.height !== size.height) throw new Error(`the render thread drew ${answer.image.width}x${answer.image.height} for ${size.width}x${size.height}`);
    return asRgb(answer.image);
  }

  /** The renderer's warm-up step `step` for displays of this size, run on the thread. */
  async warm(size: PixelSize, step: number): Promise<void> {
    const answer = await this.request({ type: 'warm', width: size.width, height: size.height, step }, `warming up for ${size.width}x${size.height} (step ${step})`);
    if (answer.type !== 'warmed') throw new Error(`the render thread answered a warm-up with ${answer.type}`);
  }

  /** Stops the thread; what is under way fails, and nothing more is sent. */
  async close(): Promise<void> {
    this.closed = true;
    this.watchdog?.unsubscribe();
    this.watchdog = null;
    const thread = this.thread;
    this.thread = null;
    this.failAll('the render thread was closed');
    if (thread !== null) await thread.terminate();
  }

  private start(): void {
    const thread = new Worker(this.entry, { name: 'recdeck-render' });
    // The thread alone never keeps the process alive: a bridge that stops exits.
    thread.unref();
    this.thread = thread;
    this.stopping = null;
    this.held = new HeldThumbnails<true>(THUMBNAILS_HELD);
    this.current = { renders: 0, fastPaths: 0 };
    this.lifeSign = this.options.time.now();
    let failure: string | null = null;
    thread.on('message', (raw: unknown) => this.receive(raw));
    thread.on('messageerror', (error) => this.options.log.warn(`the render thread sent a message that could not be read: ${error.message}`));
    thread.on('error', (error) => {
      failure = `failed: ${error.message}`;
    });
    thread.once('exit', (code) => this.exited(thread, this.stopping ?? failure ?? `exited with code ${code}`));
    this.options.started?.(thread);
  }

  private exited(thread: Worker, reason: string): void {
    if (this.thread !== thread) return; // closed, or already replaced
    this.thread = null;
    this.ended.renders += this.current.renders;
    this.ended.fastPaths += this.current.fastPaths;
    this.current = { renders: 0, fastPaths: 0 };
    this.failAll(`the render thread ${reason}`);
    if (this.closed) return;
    if (this.restartsUnanswered >= 1) {
      this.gaveUp = true;
      this.options.log.error(`the render thread ${reason}, again before answering anything since it was started again: pictures are drawn on the main thread from now on`);
      return;
    }
    this.restartsUnanswered++;
    this.options.log.warn(`the render thread ${reason}: what it was drawing failed; starting it again`);
    this.start();
  }

  private request(message: Request, what: string): Promise<Answer> {
    if (this.gaveUp) return Promise.reject(new Error(`${what}: the render thread was given up`));
    const thread = this.thread;
    if (thread === null || this.closed) return Promise.reject(new Error(`${what}: the render thread is closed`));
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { what, sentAt: this.options.time.now(), resolve, reject });
      thread.postMessage({ ...message, id } satisfies ToRenderThread);
      if (this.watchdog === null) this.watch(this.answerMs);
    });
  }

  /** Checks, `inMs` from now, that the oldest request under way has not waited answerMs with no answer from the thread. */
  private watch(inMs: number): void {
    this.watchdog = this.options.time.scheduler.schedule(() => {
      this.watchdog = null;
      const oldest = this.pending.values().next();
      if (oldest.done === true) return;
      const waited = this.options.time.now() - Math.max(oldest.value.sentAt, this.lifeSign);
      if (waited < this.answerMs) return this.watch(this.answerMs - waited);
      // A thread that answers nothing this long is stuck (a render takes milliseconds): it is stopped,
      // which fails what it holds and starts another.
      const thread = this.thread;
      if (thread === null) return;
      this.stopping = `answered nothing for ${this.answerMs} ms (waiting: ${oldest.value.what})`;
      void thread.terminate();
    }, inMs);
  }

  private receive(raw: unknown): void {
    const parsed = FromRenderThread.safeParse(raw);
    if (!parsed.success) {
      // Refused whole: never an image of the wrong size or from the wrong request.
      const id = typeof raw === 'object' && raw !== null && Number.isInteger((raw as { id?: unknown }).id) ? (raw as { id: number }).id : null;
      const problems = describeIssues(parsed.error, 'message');
      const pending = id === null ? undefined : this.pending.get(id);
      if (pending !== undefined && id !== null) {
        this.pending.delete(id);
        pending.reject(new Error(`${pending.what}: the render thread's answer was refused: ${problems}`));
      } else this.options.log.warn(`the render thread sent a message that was refused: ${problems}`);
      return;
    }
    const answer = parsed.data;
    this.lifeSign = this.options.time.now();
    if (answer.type === 'ready') return;
    if (answer.type === 'image' || answer.type === 'warmed') this.current = answer.stats;
    if (answer.id === null) {
      if (answer.type === 'failed') this.options.log.warn(answer.message);
      return;
    }
    const pending = this.pending.get(answer.id);
    if (pending === undefined) return void this.options.log.warn(`the render thread answered request ${answer.id}, which is not waiting (answered already, or failed)`);
    this.pending.delete(answer.id);
    this.restartsUnanswered = 0;
    if (answer.type === 'failed') pending.reject(new Error(`${pending.what}: ${answer.message}`));
    else pending.resolve(answer);
  }

  private failAll(reason: string): void {
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const request of failed) request.reject(new Error(`${request.what}: ${reason}`));
  }
}

export interface ThreadRendererOptions {
  /** Decoded previews by the key a ChannelPicture carries, as KeyRenderer's option. */
  thumbnails?: (key: string) => RgbImage | undefined;
  /** Finished images kept on the main thread (default 256, and 8 MiB, as KeyRenderer's). */
  maxImages?: number;
  maxImageBytes?: number;
}

/** The sessions' PictureRenderer with its drawing on a RenderThread. */
export class ThreadRenderer implements PictureRenderer {
  private readonly images: FinishedImages;
  private readonly thumbnails: (key: string) => RgbImage | undefined;
  private cacheHits = 0;
  /** Once the thread is given up or closed, the same renderer on the main thread. */
  private local: KeyRenderer | null = null;

  constructor(
    private readonly thread: RenderThread,
    options: ThreadRendererOptions = {},
  ) {
    this.thumbnails = options.thumbnails ?? (() => undefined);
    this.images = new FinishedImages({ maxImages: options.maxImages, maxImageBytes: options.maxImageBytes, onHit: () => this.cacheHits++ });
  }

  get stats(): { renders: number; cacheHits: number; fastPaths: number } {
    const local = this.local?.stats;
    const thread = this.thread.stats;
    return { renders: thread.renders + (local?.renders ?? 0), cacheHits: this.cacheHits + (local?.cacheHits ?? 0), fastPaths: thread.fastPaths + (local?.fastPaths ?? 0) };
  }

  led(picture: Picture): LedState {
    return ledStateOf(picture);
  }

  reasonPages(reason: string, size: PixelSize): number {
    return reasonLayout(reason, size).pages.length;
  }

  render(picture: Picture, size: PixelSize): Promise<RgbImage> {
    if (!this.thread.usable) return this.onMainThread().render(picture, size);
    const undrawable = undrawableSize(size);
    if (undrawable !== null) return Promise.reject(undrawable);
    const thumbnailKey = picture.kind === 'channel' ? picture.thumbnail : null;
    const image = thumbnailKey === null ? undefined : this.thumbnails(thumbnailKey);
    const { width, height } = size;
    return this.images.image(picture, size, image !== undefined, () => this.thread.render(picture, { width, height }, thumbnailKey === null || image === undefined ? null : { key: thumbnailKey, image }));
  }

  /**
   * KeyRenderer's warm-ups, run on the thread (where the bases and glyph atlases they make are kept).
   * How many steps there are is KeyRenderer's to say: a renderer made here only to count them.
   */
  warmUps(size: PixelSize): Array<() => Promise<void>> {
    return new KeyRenderer().warmUps(size).map((_, step) => () => (this.thread.usable ? this.thread.warm(size, step) : Promise.resolve()));
  }

  private onMainThread(): KeyRenderer {
    this.local ??= new KeyRenderer({ thumbnails: this.thumbnails });
    return this.local;
  }
}
