// An audio meter: one bar per audio channel on a -60..0 dBFS scale, and the source's gain. Levels arrive
// several times a second and gain follows the operator's dial, so bars and gain text are painted in JS
// over a base holding the title, the tracks and the scale marks. A meter whose reads are old shows no
// bars: its age stands where they were (as on the keys), above the last gain known, dimmed.
import type { MeterPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { AGE_INK, METER, NEUTRAL, ageText } from '../palette.js';
import { offlinePlan } from './offline.js';
import type { PaintOp, Rect, TilePlan } from './plan.js';
import { dynamicLine, rectSvg, svgDocument, textLine } from './svg.js';

export const METER_FLOOR_DB = -60;
/** Segment boundaries: below -18 dBFS is comfortable, up to -6 loud, above that close to clipping. */
const LOUD_DB = -18;
const HOT_DB = -6;

function layout({ width, height }: PixelSize, bars: number) {
  const pad = Math.max(3, Math.round(Math.min(width, height) * 0.06));
  const title = { x: pad, y: 0, width: width - 2 * pad, height: Math.round(height * 0.24) };
  const area = { x: pad, y: title.height, width: width - 2 * pad, height: Math.round(height * 0.54) };
  const gain = { x: pad, y: area.y + area.height, width: width - 2 * pad, height: height - area.y - area.height };
  const gap = Math.max(1, Math.round(area.width * 0.04));
  const barWidth = bars === 0 ? 0 : Math.min(Math.floor((area.width - gap * (bars - 1)) / bars), Math.round(area.height * 0.5));
  const used = bars * barWidth + (bars - 1) * gap;
  const left = area.x + Math.floor((area.width - used) / 2);
  const tracks: Rect[] = Array.from({ length: bars }, (_, i) => ({ x: left + i * (barWidth + gap), y: area.y + 1, width: barWidth, height: area.height - 2 }));
  return { title, area, gain, tracks };
}

/** Pixel row (from the track's top) of a level on the scale. */
function levelTop(track: Rect, db: number): number {
  const fraction = Math.min(1, Math.max(0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB));
  return Math.round(track.y + track.height * (1 - fraction));
}

export function gainText(gainDb: number | null): string {
  if (gainDb === null) return 'GAIN --';
  return `${gainDb > 0 ? '+' : ''}${gainDb.toFixed(1)} dB`;
}

/** What the base shows: bars null when no live read brought levels (nothing is drawn for them). */
interface MeterBase {
  channel: number;
  source: string | null;
  bars: number | null;
  stale: boolean;
}

export function meterPlan(picture: MeterPicture, size: PixelSize): TilePlan {
  if (picture.freshness === 'offline') return offlinePlan(`CH ${picture.channel}`, size);
  const stale = picture.freshness === 'stale';
  const levels = stale ? null : picture.levels;
  const shown: MeterBase = { channel: picture.channel, source: picture.source, bars: levels === null ? null : levels.length, stale };
  const { area, gain, tracks } = layout(size, shown.bars ?? 0);
  const ops: PaintOp[] = [];
  if (stale) ops.push(dynamicLine({ text: picture.ageS === null ? 'STALE' : ageText(picture.ageS), face: 'bold', rect: messageRect(area), fill: AGE_INK, anchor: 'middle' }));
  tracks.forEach((track, i) => {
    const level = levels?.[i] as number;
    const top = levelTop(track, level);
    const bottom = track.y + track.height;
    // Each segment painted up to the level: position on the scale tells as much as colour.
    for (const [from, to, colour] of [
      [METER_FLOOR_DB, LOUD_DB, METER.low],
      [LOUD_DB, HOT_DB, METER.high],
      [HOT_DB, 0, METER.over],
    ] as const) {
      const segmentTop = Math.max(top, levelTop(track, to));
      const segmentBottom = Math.min(bottom, levelTop(track, from));
      if (segmentBottom > segmentTop) ops.push({ kind: 'fill', rect: { x: track.x, y: segmentTop, width: track.width, height: segmentBottom - segmentTop }, colour: stale ? NEUTRAL.muted : colour, alpha: 255 });
    }
  });
  ops.push(dynamicLine({ text: gainText(picture.gainDb), face: 'bold', rect: gain, fill: stale ? NEUTRAL.muted : NEUTRAL.text, anchor: 'middle', maxSize: gain.height * 0.6 }));
  return { baseKey: JSON.stringify(['meter', shown]), baseSvg: () => meterSvg(shown, size), thumbnail: null, ops };
}

/** The middle of the meter area, where a message (no audio, the age) stands instead of bars. */
function messageRect(area: Rect): Rect {
  return { ...area, y: area.y + area.height * 0.3, height: area.height * 0.4 };
}

function meterSvg(shown: MeterBase, size: PixelSize): string {
  const { title, area, tracks } = layout(size, shown.bars ?? 0);
  let svg = rectSvg({ x: 0, y: 0, width: size.width, height: size.height }, NEUTRAL.body);
  svg += textLine({ text: `${shown.channel} ${shown.source ?? 'no source'}`, face: 'bold', rect: title, fill: shown.stale ? NEUTRAL.muted : NEUTRAL.text, anchor: 'start', maxSize: title.height * 0.6 });
  if (shown.bars === null) return svgDocument(size, svg);
  if (shown.bars === 0) {
    svg += textLine({ text: 'NO AUDIO', face: 'bold', rect: messageRect(area), fill: NEUTRAL.muted, anchor: 'middle' });
    return svgDocument(size, svg);
  }
  for (const track of tracks) svg += rectSvg(track, METER.track);
  // Scale marks at the segment boundaries, across the whole meter area.
  for (const db of [LOUD_DB, HOT_DB]) svg += rectSvg({ x: area.x, y: levelTop(tracks[0] as Rect, db), width: area.width, height: 1 }, '#5A5A5A');
  return svgDocument(size, svg);
}
