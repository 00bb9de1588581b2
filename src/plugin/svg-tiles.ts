// The plugin's renderer: recdeck's own tiles (render/tiles: the same plans, palette, font outlines and
// overlays as on the bridge's keys) written out as SVG for the Stream Deck app to draw. The bridge turns
// a plan into pixels with sharp (libvips, a native module); the app takes SVG in setImage and draws it
// itself, so the plugin needs no native module and runs on the app's own Node on Windows and macOS.
//
// A channel key that asks for its preview shows it behind the state, as on the bridge: the decoded
// preview (preview-thumbnail.ts, already the size of the tile's body) is embedded as a PNG <image> under
// the tile's base, which leaves the body clear for it. Its PNG is made once per preview, not per tile (a
// running clock makes a new tile every second over the same preview).
//
// What it makes travels through the engine as an encoded image of its own kind (DeviceOutput's
// EncodedImage, encoding 'svg': the document's UTF-8 text), compared by content there so that only what
// changed is written; the app's transport (app-transport.ts) takes SVG pictures and no raw pixels.
import { pictureKey, type Picture, type PictureBody } from '../engine/picture.js';
import type { PictureRenderer } from '../engine/session-services.js';
import type { EncodedImage } from '../engine/device-output.js';
import type { LedState, PixelSize, RgbImage } from '../engine/surface.js';
import { textSvg } from '../render/font.js';
import { ledStateOf } from '../render/led.js';
import { ringThickness } from '../render/raster/ring.js';
import { tilePlan } from '../render/tiles/index.js';
import { overlayOps, reasonLayout } from '../render/tiles/overlay.js';
import type { PaintOp, Rect } from '../render/tiles/plan.js';
import { encodePng } from './png-icon.js';
import { n, rectSvg, svgDocument } from '../render/tiles/svg.js';

/** A tile as an SVG document, at the size it was drawn for. */
export type SvgTile = EncodedImage & { encoding: 'svg' };

/** The SVG text of a tile this renderer made. */
export function svgOf(tile: SvgTile): string {
  return tile.data.toString('utf8');
}

export interface SvgTileRendererOptions {
  /** Decoded previews by the key a channel picture carries (the bridge's store); absent: tiles show none. */
  thumbnails?: (key: string) => RgbImage | undefined;
}

/** A decoded preview as an SVG image's href (a PNG data URL). */
export type PreviewHref = string;

export class SvgTileRenderer implements PictureRenderer {
  /** The last tiles made, by picture and size: a clock tick of another key does not write this one again. */
  private readonly made = new Map<string, SvgTile>();
  /** The previews' PNGs, by preview key: each encoded once, whatever tiles it is drawn behind. */
  private readonly hrefs = new Map<string, PreviewHref>();
  private readonly thumbnails: (key: string) => RgbImage | undefined;

  constructor(options: SvgTileRendererOptions = {}) {
    this.thumbnails = options.thumbnails ?? (() => undefined);
  }

  led(picture: Picture): LedState {
    return ledStateOf(picture);
  }

  reasonPages(reason: string, size: PixelSize): number {
    return reasonLayout(reason, size).pages.length;
  }

  render(picture: Picture, size: PixelSize): Promise<SvgTile> {
    const preview = this.previewOf(picture);
    // Whether the preview was there is part of the key: a tile drawn before it arrived must not stand in for it.
    const key = `${size.width}x${size.height}${preview === undefined ? '' : 't'}|${pictureKey(picture)}`;
    let tile = this.made.get(key);
    if (tile === undefined) {
      tile = { encoding: 'svg', width: size.width, height: size.height, data: Buffer.from(tileSvg(picture, size, preview), 'utf8') };
      // A deck's worth of tiles a few times over; ticking clocks make new ones that are never asked for again.
      if (this.made.size >= 256) this.made.delete(this.made.keys().next().value as string);
      this.made.set(key, tile);
    }
    return Promise.resolve(tile);
  }

  /** The preview a channel picture asks for, with its PNG, when the store has it. */
  private previewOf(picture: Picture): { image: RgbImage; href: PreviewHref } | undefined {
    if (picture.kind !== 'channel' || picture.thumbnail === null) return undefined;
    const image = this.thumbnails(picture.thumbnail);
    if (image === undefined) return undefined;
    let href = this.hrefs.get(picture.thumbnail);
    if (href === undefined) {
      href = `data:image/png;base64,${encodePng(image.width, image.height, image.data).toString('base64')}`;
      // The previews on show now, a few times over: an older one is never asked for again.
      if (this.hrefs.size >= 64) this.hrefs.delete(this.hrefs.keys().next().value as string);
      this.hrefs.set(picture.thumbnail, href);
    }
    return { image, href };
  }
}

/**
 * The whole tile as one SVG document: the preview (when given and the tile shows one), the plan's base,
 * its paint operations, then the overlays.
 */
export function tileSvg(picture: Picture, size: PixelSize, preview?: { image: RgbImage; href: PreviewHref }): string {
  const title = `<title>${escapeText(describePicture(picture))}</title>`;
  if (picture.kind === 'blank') return svgDocument(size, `${title}${rectSvg({ x: 0, y: 0, ...size }, '#000000')}${opsSvg(overlayOps(picture.overlay, size), size)}`);
  const plan = tilePlan(picture, size, preview?.image);
  const base = plan.baseSvg();
  const close = base.lastIndexOf('</svg>');
  const open = base.indexOf('>') + 1;
  const behind = plan.thumbnail === null || preview === undefined ? '' : imageSvg(plan.thumbnail.rect, preview.href);
  // The base is a whole document of this size; the operations draw over it, in order, inside it.
  return `${base.slice(0, open)}${title}${behind}${base.slice(open, close)}${opsSvg([...plan.ops, ...overlayOps(picture.overlay, size)], size)}</svg>`;
}

/** A picture filling `rect`, cropped to cover it (as the bridge draws a preview). */
function imageSvg(rect: Rect, href: PreviewHref): string {
  return `<image x="${n(rect.x)}" y="${n(rect.y)}" width="${n(rect.width)}" height="${n(rect.height)}" preserveAspectRatio="xMidYMid slice" href="${href}"/>`;
}

function opsSvg(ops: readonly PaintOp[], size: PixelSize): string {
  return ops.map((op) => opSvg(op, size)).join('');
}

function opSvg(op: PaintOp, { width, height }: PixelSize): string {
  switch (op.kind) {
    case 'text':
      return textSvg({ text: op.text, face: op.face, size: op.size, x: op.x, y: op.baseline, anchor: op.anchor, fill: op.colour });
    case 'fill':
      return rectSvg(op.rect, op.colour, op.alpha >= 255 ? '' : `fill-opacity="${n(op.alpha / 255)}"`);
    case 'frame': {
      const t = op.thickness;
      return `<path d="M0 0H${width}V${height}H0ZM${t} ${t}V${height - t}H${width - t}V${t}Z" fill="${op.colour}" fill-rule="evenodd"/>`;
    }
    case 'ring': {
      // The band along the edge, filling clockwise from the top centre (as ring.ts paints it); the part
      // not yet reached is darkened so the target shows too.
      const t = ringThickness(width, height);
      const h = t / 2;
      const band = `M${n(width / 2)} ${n(h)}H${n(width - h)}V${n(height - h)}H${n(h)}V${n(h)}Z`;
      const progress = Math.min(1, Math.max(0, op.progress));
      const track = `<path d="${band}" fill="none" stroke="#000000" stroke-opacity="${n(1 - op.trackFactor)}" stroke-width="${n(t)}"/>`;
      const filled = progress <= 0 ? '' : `<path d="${band}" pathLength="1000" fill="none" stroke="${op.colour}" stroke-width="${n(t)}" stroke-dasharray="${n(progress * 1000)} 1000"/>`;
      return `${track}${filled}`;
    }
  }
}

/** A short description of what a tile shows (its SVG <title>): for screen readers, logs and tests. */
export function describePicture(picture: PictureBody & { overlay?: Picture['overlay'] }): string {
  const marks = [picture.overlay?.flash, picture.overlay?.hold === undefined ? undefined : 'holding'].filter((m) => m !== undefined);
  const tail = marks.length === 0 ? '' : ` (${marks.join(', ')})`;
  switch (picture.kind) {
    case 'channel':
      return `channel ${picture.channel}: ${picture.state}${tail}`;
    case 'sync':
      return `sync: ${picture.state}${tail}`;
    case 'meter':
      return `meter ${picture.channel}: ${picture.gainDb === null ? 'no gain' : `${picture.gainDb} dB`}, ${picture.freshness}${tail}`;
    case 'label':
      return `${picture.text.replace(/\n/g, ' ')}${tail}`;
    case 'dialog':
      return `dialog ${picture.role}: ${picture.active ? 'up' : 'none'}${tail}`;
    case 'blank':
      return `blank${tail}`;
    default:
      return `${picture.kind}${'freshness' in picture ? `: ${picture.freshness}` : ''}${tail}`;
  }
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
