// A grid key: the size it sets, and the recorder's grid now (its channel count), so an operator sees the
// grid size before holding the key. Lit when the recorder already has that size.
import type { GridPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { LABEL, NEUTRAL, dimmed, inkOn } from '../palette.js';
import { iconSvg } from './icons.js';
import type { TilePlan } from './plan.js';
import { rectSvg, svgDocument, textLine } from './svg.js';

export function gridPlan(picture: GridPicture, size: PixelSize): TilePlan {
  const shown = { channels: picture.channels, target: picture.target, faded: picture.freshness !== 'live' };
  return { baseKey: JSON.stringify(['grid', shown]), baseSvg: () => gridSvg(shown, size), thumbnail: null, ops: [] };
}

function gridSvg(shown: { channels: number | null; target: number | null; faded: boolean }, size: PixelSize): string {
  const { width, height } = size;
  const short = Math.min(width, height);
  const pad = Math.max(3, Math.round(short * 0.07));
  const current = shown.channels !== null && shown.channels === shown.target;
  const background = shown.faded ? dimmed(LABEL.background, 0.6) : current ? LABEL.lit : LABEL.background;
  const ink = shown.faded ? NEUTRAL.muted : inkOn(background);
  let svg = rectSvg({ x: 0, y: 0, width, height }, background);
  svg += iconSvg('grid', { x: pad, y: pad, width: width - 2 * pad, height: height * 0.3 }, ink, background);
  svg += textLine({ text: shown.target === null ? 'GRID' : `GRID ${shown.target}`, face: 'bold', rect: { x: pad, y: pad + height * 0.32, width: width - 2 * pad, height: height * 0.28 }, fill: ink, anchor: 'middle' });
  svg += textLine({ text: `now ${shown.channels ?? '?'}`, face: 'regular', rect: { x: pad, y: pad + height * 0.6, width: width - 2 * pad, height: height * 0.26 - pad }, fill: ink, anchor: 'middle' });
  return svgDocument(size, svg);
}
