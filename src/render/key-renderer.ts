// Turns pictures into key and strip images, fast enough for a deck full of ticking clocks. Four caches:
//  - finished images by picture and size: an identical picture gives back the identical object, which
//    the session relies on to skip re-sending;
//  - bases (the static SVG layer of a tile, one sharp call each) by what they show, so a clock tick, a new
//    meter level, a hold-ring frame or a flash is a copy of the base plus a little JS painting;
//  - backdrops (a base laid over a preview, scaled to cover, or the base alone, with the tile's still
//    text painted: a channel's number, source and footer) by base, preview content and that text, so a
//    clock's tick copies its backdrop and paints the clock alone: it neither scales and blends the
//    preview again nor repaints three lines of text that did not change;
//  - glyph atlases per face and size, for that painting, kept for the process (see `atlases` below).
import type { ChannelPicture, Picture } from '../engine/picture.js';
import type { PictureRenderer } from '../engine/session-services.js';
import type { LedState, PixelSize, RgbImage } from '../engine/surface.js';
import type { FaceName } from './font.js';
import { ledStateOf } from './led.js';
import { hexToRgb, type Rgb } from './palette.js';
import { buildAtlas, type GlyphAtlas } from './raster/glyph-atlas.js';
import { FinishedImages, undrawableSize } from './finished-images.js';
import { Lru } from './raster/lru.js';
import { drawCover, drawRgba, fillRect, frame } from './raster/pixels.js';
import { rasteriseSvg, type Layers } from './raster/rasterise.js';
import { drawRing } from './raster/ring.js';
import { tilePlan } from './tiles/index.js';
import { overlayOps, reasonLayout } from './tiles/overlay.js';
import type { PaintOp, TextOp, TilePlan } from './tiles/plan.js';

export interface KeyRendererOptions {
  /** Decoded thumbnails by the key a ChannelPicture carries; a missing one draws the tile without it. */
  thumbnails?: (key: string) => RgbImage | undefined;
  /**
   * Finished images kept (default 256: a few pages of a 32-key deck). Ticking clocks make a new image
   * every second that is never asked for again, so a large cache only holds dead frames in memory.
   */
  maxImages?: number;
  /** And at most this many bytes of them (default 8 MiB). */
  maxImageBytes?: number;
}

export interface RenderStats {
  /** sharp calls: tile bases, and the glyph atlases this renderer was the first in the process to need. */
  renders: number;
  /** Pictures answered with an image already made. */
  cacheHits: number;
  /** Images made without a sharp call (cached base and atlases, JS painting only). */
  fastPaths: number;
  /**
   * Images made over a backdrop already made: the base over the scaled preview, or the base with the
   * still text painted (stillOps), either with that still text.
   */
  backdropHits: number;
}

interface CachedBase {
  data: Promise<Buffer>;
  bytes: number;
}

/**
 * Glyph atlases by face and size, for every renderer in the process. An atlas depends on nothing but its
 * face and size and is never changed once built (its kerning memo only remembers what the face says),
 * so a second renderer (a bench's, a test's fresh one to compare against) need not rasterise the same
 * ~96 glyphs again: 15-45 ms of CPU each, a handful of sizes per key size. Atlases are few and small,
 * so they are kept for good, like the parsed faces in font.ts.
 */
const atlases = new Map<string, Promise<GlyphAtlas>>();

export class KeyRenderer implements PictureRenderer {
  readonly stats: RenderStats = { renders: 0, cacheHits: 0, fastPaths: 0, backdropHits: 0 };
  private readonly images: FinishedImages;
  private readonly bases = new Lru<CachedBase>(600, 16 * 1024 * 1024, (base) => base.bytes);
  /** Previews change every second or so: a few per key are enough to serve that second's ticks. */
  private readonly backdrops = new Lru<Buffer>(64, 4 * 1024 * 1024, (backdrop) => backdrop.length);
  /**
   * Bases with their still text (a channel's number, source and footer) painted, for keys without a
   * preview: one per key in view, each used at every tick of its clock (a deck of 32 keys at 96 px is
   * 0.9 MB), so enough for several decks of a facility's process before one is made again.
   */
  private readonly layers = new Lru<Buffer>(512, 8 * 1024 * 1024, (layer) => layer.length);
  private readonly colours = new Map<string, Rgb>();
  private readonly thumbnails: (key: string) => RgbImage | undefined;

  constructor(options: KeyRendererOptions = {}) {
    this.thumbnails = options.thumbnails ?? (() => undefined);
    this.images = new FinishedImages({ maxImages: options.maxImages, maxImageBytes: options.maxImageBytes, onHit: () => this.stats.cacheHits++ });
  }

  led(picture: Picture): LedState {
    return ledStateOf(picture);
  }

  reasonPages(reason: string, size: PixelSize): number {
    return reasonLayout(reason, size).pages.length;
  }

  render(picture: Picture, size: PixelSize): Promise<RgbImage> {
    const undrawable = undrawableSize(size);
    if (undrawable !== null) return Promise.reject(undrawable);
    const thumbnail = picture.kind === 'channel' && picture.thumbnail !== null ? this.thumbnails(picture.thumbnail) : undefined;
    const { width, height } = size;
    return this.images.image(picture, size, thumbnail !== undefined, () => this.make(picture, { width, height }, thumbnail));
  }

  /**
   * What a key of this size needs the first time a channel on it starts or stops recording, as steps
   * to run one at a time in the picture line (Bridge.addSurface posts them): each renders a channel key
   * in one of those looks and drops the image, keeping the tile base and glyph atlases it made. Without
   * them the first recording shown after start paid three sharp calls (base, clock and footer faces),
   * about 120 ms of CPU on this 2-core machine against 1-3 ms for the next one; in the facility bench
   * every panel paid it at the same change, 5 panels of a process at once (docs/performance.md, "(j) the
   * tail"). A base is shared by every channel in that look (the number and source are painted on it).
   */
  warmUps(size: PixelSize): Array<() => Promise<void>> {
    return WARM_LOOKS.map((look) => async () => {
      await this.render({ ...WARM_CHANNEL, ...look }, size);
    });
  }

  private async make(picture: Picture, size: PixelSize, thumbnail: RgbImage | undefined): Promise<RgbImage> {
    const bytes = size.width * size.height * 3;
    if (picture.kind === 'blank') {
      const image = { width: size.width, height: size.height, data: Buffer.alloc(bytes) };
      const ops = overlayOps(picture.overlay, size);
      const { atlases, fresh } = await this.atlasesFor(ops);
      for (const op of ops) this.paint(image, op, atlases);
      if (fresh === 0) this.stats.fastPaths++;
      return image;
    }
    const plan = tilePlan(picture, size, thumbnail);
    const base = this.base(plan, size);
    const stillCount = plan.stillOps ?? 0;
    const still = plan.ops.slice(0, stillCount);
    const overlay = overlayOps(picture.overlay, size);
    // What changes from one image to the next (a clock), then the overlay (flashes, rings) on top.
    const moving = plan.ops.slice(stillCount).concat(overlay);
    const { atlases, fresh } = await this.atlasesFor(plan.ops.concat(overlay));
    const pixels = await base.data;
    let image: RgbImage;
    // The base, or its backdrop, copied whole into a buffer of its own (not zeroed first: every byte is
    // written); its tiles reach a page dozens of times a second, each a new image.
    if (plan.thumbnail === null && (still.length === 0 || moving.length === 0)) {
      // Nothing over a preview, and either no still text or nothing painted over it: a layer kept for it
      // would never be used again (the finished image is kept whole, by picture), so none is made.
      image = { width: size.width, height: size.height, data: copyOf(pixels, bytes) };
      for (const op of still) this.paint(image, op, atlases);
    } else {
      // The backdrop: the base (over the preview, whose content key names its pixels: see
      // ChannelPicture.thumbnail) with the still text painted, kept by what it shows, so a clock's tick
      // copies it and paints the clock alone. Previews change every second or so; a key's still text
      // with its name, state or frame rate: they are kept apart, so the previews' churn evicts none of it.
      const stillKey = still.length === 0 ? '' : JSON.stringify(still);
      const kept = plan.thumbnail === null ? this.layers : this.backdrops;
      const backdropKey = `${base.key}|${plan.thumbnail === null ? '' : picture.kind === 'channel' ? picture.thumbnail : ''}|${stillKey}`;
      const backdrop = kept.get(backdropKey);
      if (backdrop !== undefined) {
        this.stats.backdropHits++;
        image = { width: size.width, height: size.height, data: copyOf(backdrop, bytes) };
      } else {
        if (plan.thumbnail === null) image = { width: size.width, height: size.height, data: copyOf(pixels, bytes) };
        else {
          // Black where neither the preview nor the base paints.
          image = { width: size.width, height: size.height, data: Buffer.alloc(bytes) };
          drawCover(image, plan.thumbnail.rect, plan.thumbnail.image);
          drawRgba(image, pixels);
        }
        for (const op of still) this.paint(image, op, atlases);
        kept.set(backdropKey, Buffer.from(image.data));
      }
    }
    for (const op of moving) this.paint(image, op, atlases);
    if (!base.fresh && fresh === 0) this.stats.fastPaths++;
    return image;
  }

  /** The glyph atlases the text among `ops` needs, and how many of them this call was the first to build. */
  private async atlasesFor(ops: readonly PaintOp[]): Promise<{ atlases: Map<string, GlyphAtlas>; fresh: number }> {
    const atlases = new Map<string, GlyphAtlas>();
    let fresh = 0;
    for (const op of ops) {
      if (op.kind !== 'text') continue;
      const id = atlasId(op.face, op.size);
      if (atlases.has(id)) continue;
      const atlas = this.atlas(op.face, op.size);
      if (atlas.fresh) fresh++;
      atlases.set(id, await atlas.data);
    }
    return { atlases, fresh };
  }

  private paint(image: RgbImage, op: PaintOp, atlases: ReadonlyMap<string, GlyphAtlas>): void {
    switch (op.kind) {
      case 'fill':
        fillRect(image, op.rect, this.rgb(op.colour), op.alpha);
        return;
      case 'frame':
        frame(image, op.thickness, this.rgb(op.colour));
        return;
      case 'ring':
        drawRing(image, op.progress, this.rgb(op.colour), op.trackFactor);
        return;
      case 'text':
        drawText(image, op, atlases.get(atlasId(op.face, op.size)) as GlyphAtlas, this.rgb(op.colour));
        return;
    }
  }

  /** The plan's base pixels: RGB, or RGBA when a thumbnail shows through. */
  private base(plan: TilePlan, size: PixelSize): { data: Promise<Buffer>; fresh: boolean; key: string } {
    const layers: Layers = plan.thumbnail === null ? 'rgb' : 'rgba';
    const key = `${size.width}x${size.height}:${layers}|${plan.baseKey}`;
    const cached = this.bases.get(key);
    if (cached !== undefined) return { data: cached.data, fresh: false, key };
    const data = this.rasterise(plan.baseSvg(), size, layers);
    this.bases.set(key, { data, bytes: size.width * size.height * (layers === 'rgb' ? 3 : 4) });
    // A failed rasterisation is not kept: the next render tries again.
    data.catch(() => this.bases.delete(key));
    return { data, fresh: true, key };
  }

  private atlas(face: FaceName, size: number): { data: Promise<GlyphAtlas>; fresh: boolean } {
    const id = atlasId(face, size);
    const cached = atlases.get(id);
    if (cached !== undefined) return { data: cached, fresh: false };
    const data = buildAtlas(face, size, (svg, pixelSize, layers) => this.rasterise(svg, pixelSize, layers));
    atlases.set(id, data);
    // A failed build is not kept: the next render, by this renderer or another, tries again.
    data.catch(() => atlases.delete(id));
    return { data, fresh: true };
  }

  private rasterise(svg: string, size: PixelSize, layers: Layers): Promise<Buffer> {
    this.stats.renders++;
    return rasteriseSvg(svg, size, layers);
  }

  private rgb(hex: string): Rgb {
    let rgb = this.colours.get(hex);
    if (rgb === undefined) {
      rgb = hexToRgb(hex);
      this.colours.set(hex, rgb);
    }
    return rgb;
  }
}

/** A copy of `pixels` in a buffer of `bytes` (zeroed only where `pixels` is shorter, which a base never is). */
function copyOf(pixels: Buffer, bytes: number): Buffer {
  const data = pixels.length >= bytes ? Buffer.allocUnsafe(bytes) : Buffer.alloc(bytes);
  pixels.copy(data, 0, 0, bytes);
  return data;
}

/** A channel key as warmUps() draws it: a short painted source, nothing else on it. */
const WARM_CHANNEL: ChannelPicture = { kind: 'channel', channel: 1, state: 'idle', lastSeen: null, source: 'Cam 1', durationS: null, fps: null, drops: 0, warning: null, buffered: 0, audioPreview: false, thumbnail: null, ageS: null };
/** The looks a channel key turns to when a take starts, pauses or stops: the clock, and the frame rate in the footer. */
const WARM_LOOKS: ReadonlyArray<Partial<ChannelPicture>> = [
  { state: 'recording', durationS: 0, fps: 25 },
  { state: 'paused', durationS: 0, fps: null },
  { state: 'idle' },
  // The channel whose audio the recorder plays has "AUD" in its footer: another base.
  { state: 'idle', audioPreview: true },
];

function atlasId(face: FaceName, size: number): string {
  return `${face}@${size}`;
}

function drawText(image: RgbImage, op: TextOp, atlas: GlyphAtlas, colour: Rgb): void {
  atlas.draw(image, op.text, op.x, op.baseline, op.anchor, colour);
}
