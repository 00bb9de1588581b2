// The recording schedule: on or off (colour, symbol and word), start and stop times, and its type.
import type { SchedulePicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { NEUTRAL, OKABE_ITO, dimmed } from '../palette.js';
import { offlinePlan } from './offline.js';
import type { TilePlan } from './plan.js';
import { symbolSvg } from './symbols.js';
import { rectSvg, svgDocument, textLine } from './svg.js';

export function schedulePlan(picture: SchedulePicture, size: PixelSize): TilePlan {
  if (picture.freshness === 'offline') return offlinePlan('SCHEDULE', size);
  const shown = { enabled: picture.enabled, start: picture.start, stop: picture.stop, type: picture.type, stale: picture.freshness === 'stale' };
  return { baseKey: JSON.stringify(['schedule', shown]), baseSvg: () => scheduleSvg(shown, size), thumbnail: null, ops: [] };
}

/** "08:00:00" reads as "08:00" on a key: seconds of a schedule are almost always zero. */
function clockText(time: string | null): string {
  if (time === null) return '--:--';
  return /^\d{1,2}:\d{2}:00$/.test(time) ? time.slice(0, -3) : time;
}

function scheduleSvg(shown: { enabled: boolean; start: string | null; stop: string | null; type: string; stale: boolean }, size: PixelSize): string {
  const { width, height } = size;
  const pad = Math.max(3, Math.round(Math.min(width, height) * 0.06));
  const bandHeight = Math.round(height * 0.27);
  const fade = (hex: string) => (shown.stale ? dimmed(hex) : hex);
  const band = fade(shown.enabled ? OKABE_ITO.bluishGreen : NEUTRAL.idle);
  const ink = fade('#FFFFFF');
  const symbolSide = Math.round(bandHeight * 0.56);
  let svg = rectSvg({ x: 0, y: 0, width, height }, NEUTRAL.body) + rectSvg({ x: 0, y: 0, width, height: bandHeight }, band);
  svg += symbolSvg(shown.enabled ? 'filled-circle' : 'hollow-circle', { x: pad, y: (bandHeight - symbolSide) / 2, width: symbolSide, height: symbolSide }, ink, band);
  const wordLeft = pad * 1.8 + symbolSide;
  svg += textLine({ text: shown.enabled ? 'SCHED ON' : 'SCHED OFF', face: 'bold', rect: { x: wordLeft, y: 0, width: width - wordLeft - pad, height: bandHeight }, fill: ink, anchor: 'start', maxSize: bandHeight * 0.56 });
  const rowHeight = height * 0.25;
  const labelWidth = (width - 2 * pad) * 0.42;
  const text = shown.stale ? NEUTRAL.muted : NEUTRAL.text;
  [
    ['START', shown.start],
    ['STOP', shown.stop],
  ].forEach(([label, time], i) => {
    const y = bandHeight + i * rowHeight;
    svg += textLine({ text: label as string, face: 'regular', rect: { x: pad, y, width: labelWidth, height: rowHeight }, fill: NEUTRAL.muted, anchor: 'start', maxSize: rowHeight * 0.45 });
    svg += textLine({ text: clockText((time as string | null) ?? null), face: 'bold', rect: { x: pad + labelWidth, y, width: width - 2 * pad - labelWidth, height: rowHeight }, fill: text, anchor: 'end', maxSize: rowHeight * 0.62 });
  });
  const footerTop = bandHeight + 2 * rowHeight;
  const footer = shown.stale ? 'STALE' : shown.type;
  svg += textLine({ text: footer, face: 'regular', rect: { x: pad, y: footerTop, width: width - 2 * pad, height: height - footerTop - pad * 0.4 }, fill: NEUTRAL.muted, anchor: 'middle', maxSize: (height - footerTop) * 0.5 });
  return svgDocument(size, svg);
}
