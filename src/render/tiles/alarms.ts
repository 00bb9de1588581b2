// The alarms tile (`show: alarms`): the number of active alarms large, "ALARM"/"ALARMS" above it and the
// worst one below in a few words ("FAULT main CH3"). While one waits for an acknowledgement it flashes,
// bright (critical vermillion, warning orange) in one phase and dark with a coloured outline in the
// other, as the dialog keys do; acknowledged ones stay lit without flashing; none is a calm dark "0".
// Old alarm data is drawn grey with its age (STALE 12s), an engine never judged or absent as NO DATA:
// a stale "0" must not read as all clear. Every state is told apart by words as well as colour.
import type { AlarmsPicture } from '../../engine/picture.js';
import type { PixelSize } from '../../engine/surface.js';
import { NEUTRAL, OKABE_ITO } from '../palette.js';
import type { TilePlan } from './plan.js';
import { borderSvg, rectSvg, svgDocument, textLine } from './svg.js';

interface Look {
  fill: string;
  ink: string;
  outline: string | null;
  top: string;
  middle: string;
  bottom: string;
}

/** The worst alarm in a few words: what, which recorder, which channel. */
export function worstWords(worst: NonNullable<AlarmsPicture['worst']>): string {
  return [worst.word, worst.recorder, worst.channel === null ? null : `CH${worst.channel}`].filter((part) => part !== null).join(' ');
}

function lookOf(picture: AlarmsPicture): Look {
  const worst = picture.worst === null ? '' : worstWords(picture.worst);
  if (picture.freshness !== 'live' || picture.count === null) {
    const age = picture.ageS === null ? 'NO DATA' : `STALE ${picture.ageS}s`;
    return { fill: '#202020', ink: NEUTRAL.muted, outline: null, top: 'ALARMS', middle: picture.count === null ? '?' : String(picture.count), bottom: age };
  }
  if (picture.count === 0) return { fill: NEUTRAL.body, ink: NEUTRAL.muted, outline: null, top: 'ALARMS', middle: '0', bottom: 'ALL CLEAR' };
  const colour = picture.worst?.severity === 'critical' ? OKABE_ITO.vermillion : OKABE_ITO.orange;
  const top = picture.count === 1 ? 'ALARM' : 'ALARMS';
  if (picture.flashing && !picture.flashPhase) return { fill: NEUTRAL.body, ink: NEUTRAL.text, outline: colour, top, middle: String(picture.count), bottom: worst };
  if (picture.flashing) return { fill: colour, ink: '#000000', outline: null, top, middle: String(picture.count), bottom: worst };
  // Every one acknowledged: still there, in the colour of the worst, but not asking for attention.
  return { fill: '#2A1A10', ink: colour, outline: null, top: `${top} ACK`, middle: String(picture.count), bottom: worst };
}

export function alarmsPlan(picture: AlarmsPicture, size: PixelSize): TilePlan {
  const look = lookOf(picture);
  return { baseKey: JSON.stringify(['alarms', look]), baseSvg: () => alarmsSvg(look, size), thumbnail: null, ops: [] };
}

function alarmsSvg(look: Look, size: PixelSize): string {
  const { width, height } = size;
  const pad = Math.max(2, Math.round(Math.min(width, height) * 0.06));
  const inner = width - 2 * pad;
  let svg = rectSvg({ x: 0, y: 0, width, height }, look.fill);
  if (look.outline !== null) svg += borderSvg({ x: 0, y: 0, width, height }, Math.max(3, Math.round(Math.min(width, height) * 0.08)), look.outline, null);
  svg += textLine({ text: look.top, face: 'bold', rect: { x: pad, y: pad, width: inner, height: height * 0.22 }, fill: look.ink, anchor: 'middle' });
  svg += textLine({ text: look.middle, face: 'bold', rect: { x: pad, y: height * 0.26, width: inner, height: height * 0.42 }, fill: look.ink, anchor: 'middle' });
  svg += textLine({ text: look.bottom, face: 'bold', rect: { x: pad, y: height * 0.72, width: inner, height: height * 0.22 - pad }, fill: look.ink, anchor: 'middle' });
  return svgDocument(size, svg);
}
