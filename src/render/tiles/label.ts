// A label key: text, an optional icon and background colour, and, for keys that switch something, whether
// it is on (lit background and a filled lamp) or off (dimmed background and an empty lamp).
import type { LabelPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { LABEL, dimmed, inkOn } from '../palette.js';
import { iconSvg } from './icons.js';
import type { TilePlan } from './plan.js';
import { n, paragraph, rectSvg, svgDocument } from './svg.js';

/** Profile colours are validated already; anything else falls back rather than reaching the SVG. */
function validColour(colour: string | null): string | null {
  return colour !== null && /^#[0-9a-f]{6}$/i.test(colour) ? colour.toUpperCase() : null;
}

export function labelPlan(picture: LabelPicture, size: PixelSize): TilePlan {
  const shown = { text: picture.text, icon: picture.icon, colour: validColour(picture.color), active: picture.active };
  return { baseKey: JSON.stringify(['label', shown]), baseSvg: () => labelSvg(shown, size), thumbnail: null, ops: [] };
}

function labelSvg(shown: { text: string; icon: LabelPicture['icon']; colour: string | null; active: boolean | null }, size: PixelSize): string {
  const { width, height } = size;
  const short = Math.min(width, height);
  const pad = Math.max(3, Math.round(short * 0.07));
  const background = shown.active === true ? (shown.colour ?? LABEL.lit) : shown.active === false ? dimmed(shown.colour ?? LABEL.background, 0.6) : (shown.colour ?? LABEL.background);
  const ink = inkOn(background);
  let svg = rectSvg({ x: 0, y: 0, width, height }, background);
  if (shown.active !== null) {
    // The lamp: filled when on, an empty ring when off, so on/off never rests on colour alone.
    const r = short * 0.07;
    const cx = width - pad - r;
    const cy = pad + r;
    svg += shown.active
      ? `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="${ink}"/>`
      : `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r * 0.8)}" fill="none" stroke="${ink}" stroke-width="${n(r * 0.4)}"/>`;
  }
  const hasText = shown.text.trim() !== '';
  if (shown.icon !== null) {
    const iconRect = { x: pad, y: pad, width: width - 2 * pad, height: hasText ? height * 0.5 - pad : height - 2 * pad };
    svg += iconSvg(shown.icon, iconRect, ink, background);
    if (hasText) svg += paragraph({ text: shown.text, face: 'bold', rect: { x: pad, y: height * 0.54, width: width - 2 * pad, height: height * 0.46 - pad * 0.6 }, fill: ink, anchor: 'middle', maxSize: short * 0.19, minSize: 7 });
  } else if (hasText) {
    svg += paragraph({ text: shown.text, face: 'bold', rect: { x: pad, y: pad, width: width - 2 * pad, height: height - 2 * pad }, fill: ink, anchor: 'middle', maxSize: short * 0.24, minSize: 7 });
  }
  return svgDocument(size, svg);
}
