// The recorder's CPU, RAM and fullest disk as rows of label, percentage and bar. Values change with every
// poll, so they and the bars are painted in JS; a row above 90 % gets the warning look (orange box, dark
// text) in the base, which changes only when a value crosses the line. While channels record and a disk's
// rate is steady, the title band says how long until the first disk is full, amber or red when short
// (it changes once a minute).
import type { ResourcesPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { DISK_LEFT, NEUTRAL, OKABE_ITO, WARNING, dimmed } from '../palette.js';
import { offlinePlan } from './offline.js';
import type { PaintOp, Rect, TilePlan } from './plan.js';
import { symbolSvg } from './symbols.js';
import { dynamicLine, rectSvg, svgDocument, textLine } from './svg.js';

const OVER = 90;

interface Row {
  label: string;
  value: number | null;
}

function rowsOf(picture: ResourcesPicture): Row[] {
  return [
    { label: 'CPU', value: picture.cpu },
    { label: 'RAM', value: picture.ram },
    { label: picture.disk === null ? 'DISK' : picture.disk.label, value: picture.disk?.used ?? null },
  ];
}

function layout({ width, height }: PixelSize) {
  const pad = Math.max(3, Math.round(Math.min(width, height) * 0.06));
  const title = { x: 0, y: 0, width, height: Math.round(height * 0.22) };
  const rowHeight = (height - title.height - pad / 2) / 3;
  const rows = [0, 1, 2].map((i) => {
    const top = title.height + i * rowHeight;
    const text = { x: pad, y: top, width: width - 2 * pad, height: rowHeight * 0.72 };
    const bar = { x: pad, y: top + rowHeight * 0.72, width: width - 2 * pad, height: Math.max(2, Math.round(rowHeight * 0.16)) };
    return { box: { x: 0, y: top, width, height: rowHeight }, text, bar };
  });
  return { pad, title, rows };
}

export function resourcesPlan(picture: ResourcesPicture, size: PixelSize): TilePlan {
  if (picture.freshness === 'offline') return offlinePlan('SYSTEM', size);
  const stale = picture.freshness === 'stale';
  const rows = rowsOf(picture);
  const shown = { labels: rows.map((r) => r.label), over: rows.map((r) => r.value !== null && r.value > OVER), warning: picture.warning, stale, left: picture.timeLeft === null ? null : { text: leftText(picture.timeLeft.minutes), level: picture.timeLeft.level } };
  const { rows: rects } = layout(size);
  const ops: PaintOp[] = [];
  rows.forEach((row, i) => {
    const rect = rects[i] as (typeof rects)[number];
    const over = shown.over[i] as boolean;
    const ink = over ? WARNING.ink : stale ? NEUTRAL.muted : NEUTRAL.text;
    ops.push(dynamicLine({ text: row.value === null ? '--' : `${Math.round(row.value)}%`, face: 'bold', rect: { ...rect.text, x: rect.text.x + rect.text.width * 0.5, width: rect.text.width * 0.5 }, fill: ink, anchor: 'end' }));
    if (row.value !== null) {
      const fraction = Math.min(1, Math.max(0, row.value / 100));
      const fill = over ? WARNING.ink : stale ? NEUTRAL.muted : OKABE_ITO.bluishGreen;
      ops.push({ kind: 'fill', rect: { ...rect.bar, width: Math.round(rect.bar.width * fraction) }, colour: fill, alpha: 255 });
    }
  });
  return { baseKey: JSON.stringify(['resources', shown]), baseSvg: () => resourcesSvg(shown, size), thumbnail: null, ops };
}

/** Minutes left as the title says it: "28 MIN", "1H 05". */
function leftText(minutes: number): string {
  return minutes < 60 ? `${minutes} MIN` : `${Math.floor(minutes / 60)}H ${String(minutes % 60).padStart(2, '0')}`;
}

interface Shown {
  labels: string[];
  over: boolean[];
  warning: boolean;
  stale: boolean;
  /** The disk's time left, when known. */
  left: { text: string; level: 'ok' | 'amber' | 'red' } | null;
}

function resourcesSvg(shown: Shown, size: PixelSize): string {
  const { pad, title, rows } = layout(size);
  let svg = rectSvg({ x: 0, y: 0, width: size.width, height: size.height }, NEUTRAL.body);
  // The title band says whether all is well, with a symbol as well as a colour; a disk short of time
  // takes it over in amber or red.
  const urgent = shown.left !== null && shown.left.level !== 'ok' ? DISK_LEFT[shown.left.level] : null;
  const titleBackground = shown.stale ? dimmed(NEUTRAL.idle, 0.8) : urgent ? urgent.box : shown.warning ? WARNING.box : NEUTRAL.idle;
  const titleInk = shown.stale ? NEUTRAL.muted : urgent ? urgent.ink : shown.warning ? WARNING.ink : NEUTRAL.text;
  svg += rectSvg(title, titleBackground);
  const symbolSide = title.height * 0.6;
  const titleText: Rect = { x: pad, y: 0, width: title.width - 2 * pad, height: title.height };
  const hazard = (shown.warning || urgent !== null) && !shown.stale;
  if (hazard) {
    svg += symbolSvg('hazard', { x: pad, y: (title.height - symbolSide) / 2, width: symbolSide, height: symbolSide }, titleInk, titleBackground);
    titleText.x += symbolSide + pad * 0.6;
    titleText.width -= symbolSide + pad * 0.6;
  }
  const titleWord = shown.stale ? 'STALE' : shown.left !== null ? shown.left.text : 'SYSTEM';
  svg += textLine({ text: titleWord, face: 'bold', rect: titleText, fill: titleInk, anchor: hazard ? 'start' : 'middle', maxSize: title.height * 0.6 });
  rows.forEach((row, i) => {
    const over = shown.over[i] as boolean;
    if (over) svg += rectSvg({ ...row.box, y: row.box.y + 1, height: row.box.height - 2 }, WARNING.box);
    svg += rectSvg(row.bar, over ? dimmed(WARNING.box, 0.6) : '#333333');
    const ink = over ? WARNING.ink : shown.stale ? NEUTRAL.muted : '#D0D0D0';
    svg += textLine({ text: shown.labels[i] as string, face: 'regular', rect: { ...row.text, width: row.text.width * 0.5 }, fill: ink, anchor: 'start' });
  });
  return svgDocument(size, svg);
}
