// The page indicator: "2/3" with the page's name, and a dot per page when they fit.
import type { PagePicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { NEUTRAL } from '../palette.js';
import type { TilePlan } from './plan.js';
import { n, rectSvg, svgDocument, textLine } from './svg.js';

const MAX_DOTS = 10;

export function pagePlan(picture: PagePicture, size: PixelSize): TilePlan {
  const shown = { name: picture.name, number: picture.number, count: picture.count };
  return { baseKey: JSON.stringify(['page', shown]), baseSvg: () => pageSvg(shown, size), thumbnail: null, ops: [] };
}

function pageSvg(shown: { name: string; number: number; count: number }, size: PixelSize): string {
  const { width, height } = size;
  const short = Math.min(width, height);
  const pad = Math.max(3, Math.round(short * 0.07));
  let svg = rectSvg({ x: 0, y: 0, width, height }, '#1C1C1C');
  svg += textLine({ text: `${shown.number}/${shown.count}`, face: 'bold', rect: { x: pad, y: pad, width: width - 2 * pad, height: height * 0.42 }, fill: NEUTRAL.text, anchor: 'middle' });
  svg += textLine({ text: shown.name, face: 'regular', rect: { x: pad, y: pad + height * 0.42, width: width - 2 * pad, height: height * 0.26 }, fill: '#D0D0D0', anchor: 'middle', maxSize: height * 0.18 });
  if (shown.count > 1 && shown.count <= MAX_DOTS) {
    // The current page as a filled dot among rings: where you are at a glance.
    const r = Math.max(1.5, short * 0.035);
    const step = Math.min(r * 3.2, (width - 2 * pad) / shown.count);
    const left = width / 2 - (step * (shown.count - 1)) / 2;
    const cy = height - pad - r;
    for (let i = 0; i < shown.count; i++) {
      const cx = left + i * step;
      svg += i + 1 === shown.number
        ? `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="${NEUTRAL.text}"/>`
        : `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r * 0.75)}" fill="none" stroke="${NEUTRAL.muted}" stroke-width="${n(r * 0.45)}"/>`;
    }
  }
  return svgDocument(size, svg);
}
