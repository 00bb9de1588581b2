// A tile is planned as a static base (SVG, rasterised by sharp and cached by baseKey) plus paint operations
// done in plain JS on every render (clock digits, values, bars, overlays). Whatever changes often belongs
// in the operations, so a change there never costs a sharp call.
import type { RgbImage } from '../../engine/surface.js';
import type { FaceName, TextAnchor } from '../font.js';
import type { Rect } from '../raster/pixels.js';

export type { Rect } from '../raster/pixels.js';

/** Text drawn from the glyph atlas. size is whole px (one atlas per face and size). */
export interface TextOp {
  kind: 'text';
  text: string;
  face: FaceName;
  size: number;
  x: number;
  baseline: number;
  anchor: TextAnchor;
  colour: string;
}

/** A rectangle, solid or translucent (alpha 0..255); a whole-tile fill is a tint. */
export interface FillOp {
  kind: 'fill';
  rect: Rect;
  colour: string;
  alpha: number;
}

export interface FrameOp {
  kind: 'frame';
  thickness: number;
  colour: string;
}

export interface RingOp {
  kind: 'ring';
  progress: number;
  colour: string;
  trackFactor: number;
}

export type PaintOp = TextOp | FillOp | FrameOp | RingOp;

export interface TilePlan {
  /** Equal keys at one size mean equal base SVG (the renderer adds the size). */
  baseKey: string;
  /** The base as SVG; only called when the base is not cached. */
  baseSvg: () => string;
  /** A preview drawn first; the base is then rasterised with alpha and laid over it. */
  thumbnail: { image: RgbImage; rect: Rect } | null;
  ops: PaintOp[];
  /**
   * How many of `ops`, from the first, change only when the text they paint does (a channel's identity
   * and footer, not its clock): the renderer keeps them painted over the base, by their content, so a
   * tick repaints only the rest. Absent: none (every op is painted on every render).
   */
  stillOps?: number;
}
