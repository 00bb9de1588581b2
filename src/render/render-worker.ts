// The render thread's entry (started by render-thread.ts as dist/render/render-worker.js): the real
// KeyRenderer and the preview decode, run on a thread of their own so that their CPU and their garbage
// (tile copies, glyph painting, sharp's buffers) are not on the bridge's main thread, where presses,
// the recorders' answers and the page's socket are read. This thread has its own V8 heap: its
// collector's pauses do not stop the main thread.
//
// Each message is checked (render-messages.ts) and answered by id; a message it cannot read is answered
// `failed` with what is wrong (its id when it has one). Finished images go back transferred: a copy is
// made here first, because the renderer keeps what it made (its caches) and a transferred buffer is gone
// from the sender.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { messageOf } from '../api/errors.js';
import { describeIssues } from '../api/issues.js';
import type { RgbImage } from '../engine/surface.js';

import { KeyRenderer } from './key-renderer.js';
import { opentypeLibrary } from './opentype-library.js';
import { FromRenderThread, HeldThumbnails, THUMBNAILS_HELD, ToRenderThread, asRgb } from './render-messages.js';
import { sharpLibrary } from './sharp-library.js';
import { decodeThumbnail } from './thumbnail.js';

function serve(port: MessagePort): void {
  const thumbnails = new HeldThumbnails<RgbImage>(THUMBNAILS_HELD);
  // The main thread keeps the finished images (their identity tells the session a key is unchanged):
  // a few here are enough for a picture asked for again after the main thread's cache let it go.
  // The preview the render under way may show: the one the main thread named for it, or none (the main
  // thread had none for the key, so drew, and keys its cache, without it). KeyRenderer reads it
  // synchronously at the start of render().
  let shown: string | null = null;
  const renderer = new KeyRenderer({ thumbnails: (key) => (key === shown ? thumbnails.get(key) : undefined), maxImages: 32, maxImageBytes: 2 * 1024 * 1024 });
  const stats = () => ({ renders: renderer.stats.renders, fastPaths: renderer.stats.fastPaths });
  const answer = (message: FromRenderThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

  port.on('message', (raw: unknown) => {
    const parsed = ToRenderThread.safeParse(raw);
    if (!parsed.success) {
      const id = typeof raw === 'object' && raw !== null && Number.isInteger((raw as { id?: unknown }).id) ? (raw as { id: number }).id : null;
      answer({ type: 'failed', id: id !== null && id >= 0 ? id : null, message: `the render thread refused a message: ${describeIssues(parsed.error, 'message')}` });
      return;
    }
    const request = parsed.data;
    const failed = (error: unknown) => answer({ type: 'failed', id: request.id, message: messageOf(error) });
    switch (request.type) {
      case 'render': {
        if (request.thumbnail !== null) thumbnails.add(request.thumbnail.key, asRgb(request.thumbnail.image));
        if (request.thumbnailKey !== null && thumbnails.get(request.thumbnailKey) === undefined) {
          // The main thread sends a preview it believes is not held: the two stores disagree (a defect).
          return failed(new Error(`the render thread holds no preview ${request.thumbnailKey} (the main thread believed it sent it)`));
        }
        shown = request.thumbnailKey;
        const made = renderer.render(request.picture, { width: request.width, height: request.height });
        shown = null;
        made.then((image) => {
          const copy = new Uint8Array(image.data);
          answer({ type: 'image', id: request.id, image: { width: image.width, height: image.height, data: copy }, stats: stats() }, [copy.buffer]);
        }, failed);
        return;
      }
      case 'warm': {
        const step = renderer.warmUps({ width: request.width, height: request.height })[request.step];
        if (step === undefined) return failed(new Error(`the renderer has no warm-up step ${request.step}`));
        step().then(() => answer({ type: 'warmed', id: request.id, stats: stats() }), failed);
        return;
      }
      case 'decode':
        decodeThumbnail(request.png).then((image) => {
          // A copy of its own to move: sharp's buffer is memory sharp allocated, which may not be transferable.
          const data = new Uint8Array(image.data);
          answer({ type: 'decoded', id: request.id, image: { width: image.width, height: image.height, data } }, [data.buffer]);
        }, failed);
        return;
    }
  });
}

if (parentPort === null) throw new Error('render-worker.js is the render thread: render-thread.ts starts it as a worker_threads Worker, it does not run on its own');
serve(parentPort);
// The two packages the main thread loads at its first picture (sharp-library.ts, opentype-library.ts) are
// loaded here before the thread says it is ready: this thread exists to draw.
sharpLibrary();
opentypeLibrary();
// Loaded (sharp, the fonts' module, the renderer): from here on, a request that waits is one this thread is slow at.
parentPort.postMessage({ type: 'ready' } satisfies FromRenderThread);
