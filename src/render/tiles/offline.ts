// The look every information tile takes when the recorder cannot be reached: black, a cross, "OFFLINE",
// and what the tile would show, so the operator knows which key went dark.
import type { PixelSize } from '../../engine/surface.js';
import { CHANNEL_LOOKS, NEUTRAL } from '../palette.js';
import type { TilePlan } from './plan.js';
import { crossSvg, rectSvg, svgDocument, textLine } from './svg.js';

export function offlinePlan(title: string, size: PixelSize): TilePlan {
  return { baseKey: JSON.stringify(['offline', title]), baseSvg: () => offlineSvg(title, size), thumbnail: null, ops: [] };
}

function offlineSvg(title: string, size: PixelSize): string {
  const { width, height } = size;
  const short = Math.min(width, height);
  const pad = Math.max(3, Math.round(short * 0.08));
  const look = CHANNEL_LOOKS.offline;
  return svgDocument(
    size,
    rectSvg({ x: 0, y: 0, width, height }, look.band) +
      crossSvg({ x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad }, Math.max(2, short * 0.05), NEUTRAL.offlineCross) +
      textLine({ text: title, face: 'bold', rect: { x: pad, y: height * 0.14, width: width - 2 * pad, height: height * 0.26 }, fill: look.ink, anchor: 'middle' }) +
      textLine({ text: look.word, face: 'bold', rect: { x: pad, y: height * 0.58, width: width - 2 * pad, height: height * 0.26 }, fill: look.ink, anchor: 'middle' }),
  );
}
