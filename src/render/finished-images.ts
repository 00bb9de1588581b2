// Finished images by picture, size and whether the preview was there, for a renderer on either side of
// the render thread (KeyRenderer in-process, ThreadRenderer on the main side of a worker): an identical
// picture gives back the identical object, which the session relies on to skip re-sending, and a picture
// asked for again while it is being made waits for that making instead of starting a second one.
import { pictureKey, type Picture } from '../engine/picture.js';
import type { PixelSize, RgbImage } from '../engine/surface.js';
import { Lru } from './raster/lru.js';

export interface FinishedImagesOptions {
  /** Images kept (default 256: a few pages of a 32-key deck). */
  maxImages?: number;
  /** And at most this many bytes of them (default 8 MiB). */
  maxImageBytes?: number;
  /** Told each time a picture is answered with an image already made (the renderer's stats). */
  onHit?: () => void;
}

/** Why a size cannot be drawn at, or null: sizes are whole positive pixels. */
export function undrawableSize({ width, height }: PixelSize): Error | null {
  if (Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0) return null;
  return new Error(`cannot draw at ${width}x${height}: sizes are whole positive pixels`);
}

export class FinishedImages {
  private readonly images: Lru<RgbImage>;
  private readonly pending = new Map<string, Promise<RgbImage>>();
  private readonly onHit: () => void;

  constructor(options: FinishedImagesOptions = {}) {
    this.images = new Lru<RgbImage>(options.maxImages ?? 256, options.maxImageBytes ?? 8 * 1024 * 1024, (image) => image.data.length);
    this.onHit = options.onHit ?? (() => undefined);
  }

  /**
   * The image of `picture` at `size`, made by `make` only when none is kept or being made. Whether the
   * preview was there is part of the key: the same picture drawn before its preview arrived must not
   * stand in for it afterwards.
   */
  image(picture: Picture, size: PixelSize, withPreview: boolean, make: () => Promise<RgbImage>): Promise<RgbImage> {
    const key = `${size.width}x${size.height}${withPreview ? 't' : ''}|${pictureKey(picture)}`;
    const kept = this.images.get(key);
    if (kept !== undefined) {
      this.onHit();
      return Promise.resolve(kept);
    }
    const inFlight = this.pending.get(key);
    if (inFlight !== undefined) return inFlight;
    const made = make().then(
      (image) => {
        this.pending.delete(key);
        this.images.set(key, image);
        return image;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, made);
    return made;
  }
}
