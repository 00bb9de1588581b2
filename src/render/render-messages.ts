// The messages between the bridge's main thread and its render thread (render-thread.ts starts it,
// render-worker.ts is its entry), as zod schemas checked on arrival on both sides: a message either
// side cannot read is refused with what is wrong, never half-used. The thread is ours, but it is built
// and started apart (dist/render/render-worker.js), so a build that drifts, or a thread that breaks,
// shows as a clear error instead of a wrong key.
//
// Images travel as raw RGB bytes (Uint8Array: a Buffer arrives as one). Finished images and decoded
// previews come back transferred (their memory moves, nothing is copied on the main thread); pictures
// and PNGs go in copied.
import * as z from 'zod';
import type { Picture } from '../engine/picture.js';
import type { RgbImage } from '../engine/surface.js';

const Id = z.number().int().nonnegative();
const Pixels = z.number().int().positive().max(4096);
/** Bytes (a Buffer arrives as a plain Uint8Array). */
const Bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, { message: 'expected bytes (a Uint8Array)' });

/** Raw RGB at a size: the bytes must be exactly width x height x 3. */
const RgbFields = z
  .object({ width: Pixels, height: Pixels, data: Bytes })
  .refine((image) => image.data.byteLength === image.width * image.height * 3, { message: 'data is not width x height x 3 bytes of RGB' });

/**
 * A picture as the engine made it. Its content is not checked field by field here (the tile plans read
 * every kind, and the same process made it a moment ago); that it is a picture object with a kind is.
 */
const PictureField = z.custom<Picture>((value) => typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string', { message: 'not a picture (an object with a kind)' });

/** A preview the thread keeps under its content key (ChannelPicture.thumbnail), sent once per new key. */
const HeldThumbnail = z.object({ key: z.string().min(1), image: RgbFields });

export const ToRenderThread = z.discriminatedUnion('type', [
  /** Draw this picture at this size; `thumbnailKey` names the preview it shows (sent along when the thread does not hold it). */
  z.object({ type: z.literal('render'), id: Id, picture: PictureField, width: Pixels, height: Pixels, thumbnailKey: z.string().nullable(), thumbnail: HeldThumbnail.nullable() }),
  /** Run the renderer's warm-up step `step` for a display of this size (KeyRenderer.warmUps). */
  z.object({ type: z.literal('warm'), id: Id, width: Pixels, height: Pixels, step: z.number().int().nonnegative() }),
  /** Decode a preview (PNG, or what sharp reads) to the small raw image keys draw from. */
  z.object({ type: z.literal('decode'), id: Id, png: Bytes }),
]);
export type ToRenderThread = z.infer<typeof ToRenderThread>;

/** The renderer's counters at the time of an answer (cumulative for this thread). */
const ThreadStats = z.object({ renders: z.number().int().nonnegative(), fastPaths: z.number().int().nonnegative() });

export const FromRenderThread = z.discriminatedUnion('type', [
  /** The thread has loaded and reads requests (sent once, first). */
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('image'), id: Id, image: RgbFields, stats: ThreadStats }),
  z.object({ type: z.literal('decoded'), id: Id, image: RgbFields }),
  z.object({ type: z.literal('warmed'), id: Id, stats: ThreadStats }),
  /** The request `id` failed, or (id null) a message the thread could not read at all. */
  z.object({ type: z.literal('failed'), id: Id.nullable(), message: z.string() }),
]);
export type FromRenderThread = z.infer<typeof FromRenderThread>;

/**
 * Previews held by content key, oldest dropped first. The main thread sends a preview once per key
 * and counts what is held the same way (THUMBNAILS_HELD, below): the same keys added in
 * the same order to two first-in-first-out stores of one size leave the same keys in both.
 */
export class HeldThumbnails<V> {
  private readonly images = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    return this.images.get(key);
  }

  add(key: string, image: V): void {
    if (this.images.has(key)) return;
    this.images.set(key, image);
    for (const oldest of this.images.keys()) {
      if (this.images.size <= this.capacity) break;
      this.images.delete(oldest);
    }
  }
}

/** 48 previews of 160x90 (43 kB each, 2 MB): three recorders' 16 channels. */
export const THUMBNAILS_HELD = 48;

/** Raw RGB from the wire as the renderer's RgbImage (a Buffer over the same memory, no copy). */
export function asRgb(image: { width: number; height: number; data: Uint8Array }): RgbImage {
  return { width: image.width, height: image.height, data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
}

