// The status tile (the Neo's info bar, or any key): the recorder's freshness as a coloured word, how many
// channels record, a dialog waiting, and the page. Wide tiles put the page on the right; square ones
// below. The age of stale data is part of the picture, so it is redrawn once a second while stale.
import type { StatusPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { NEUTRAL, OKABE_ITO } from '../palette.js';
import type { TilePlan } from './plan.js';
import { rectSvg, svgDocument, textLine } from './svg.js';

const BADGE: Readonly<Record<StatusPicture['freshness'], { word: string; fill: string; ink: string }>> = {
  live: { word: 'LIVE', fill: OKABE_ITO.bluishGreen, ink: '#000000' },
  stale: { word: 'STALE', fill: OKABE_ITO.orange, ink: '#000000' },
  offline: { word: 'OFFLINE', fill: OKABE_ITO.vermillion, ink: '#FFFFFF' },
};

export function statusPlan(picture: StatusPicture, size: PixelSize): TilePlan {
  return { baseKey: JSON.stringify(picture), baseSvg: () => statusSvg(picture, size), thumbnail: null, ops: [] };
}

function statusSvg(picture: StatusPicture, size: PixelSize): string {
  const { width, height } = size;
  const wide = width >= height * 2;
  const pad = Math.max(2, Math.round(Math.min(width, height) * 0.06));
  const badge = BADGE[picture.freshness];
  const left = { x: pad, y: pad, width: wide ? width * 0.55 - pad : width - 2 * pad, height: wide ? height - 2 * pad : height * 0.55 - pad };
  const right = wide ? { x: width * 0.55 + pad, y: pad, width: width * 0.45 - 2 * pad, height: height - 2 * pad } : { x: pad, y: height * 0.55, width: width - 2 * pad, height: height * 0.45 - pad };
  const line = (index: number, lines: number, rect: typeof left) => ({ x: rect.x, y: rect.y + (rect.height / lines) * index, width: rect.width, height: rect.height / lines });

  let svg = rectSvg({ x: 0, y: 0, width, height }, '#101010');
  const badgeRect = line(0, 2, left);
  svg += rectSvg(badgeRect, badge.fill, 'rx="3"');
  const age = picture.freshness === 'live' || picture.ageS === null ? '' : ` ${picture.ageS}s`;
  svg += textLine({ text: `${badge.word}${age}`, face: 'bold', rect: badgeRect, fill: badge.ink, anchor: 'middle' });
  const activity = picture.dialog ? 'DIALOG' : picture.recording > 0 ? `${picture.recording} REC` : picture.recorder;
  svg += textLine({ text: activity, face: 'bold', rect: line(1, 2, left), fill: picture.dialog ? OKABE_ITO.yellow : picture.recording > 0 ? '#FF7A3D' : NEUTRAL.text, anchor: 'middle' });
  svg += textLine({ text: `${picture.page.number}/${picture.page.count}`, face: 'bold', rect: line(0, 2, right), fill: NEUTRAL.text, anchor: 'middle' });
  svg += textLine({ text: picture.page.name, face: 'regular', rect: line(1, 2, right), fill: '#D0D0D0', anchor: 'middle' });
  return svgDocument(size, svg);
}
