// The layout channel and sync tiles share: a state band (symbol + word) on top, an identity line, the
// take's clock, and a footer (age, warning or fps). The band is static SVG, one per state and size, so
// all channels in a state share it; the identity, clock and footer are painted from the glyph atlas, so a
// page of new channels costs no sharp call (names beyond the atlas's ASCII go in the SVG instead).
import type { PixelSize } from '../../engine/surface.js';
import { capHeight, measureText, textSvg, truncateMiddle } from '../font.js';
import { AGE_INK, NEUTRAL, OKABE_ITO, STALE_DIM, WARNING, ageText, dimmed, type StateLook } from '../palette.js';
import type { PaintOp, Rect } from './plan.js';
import { symbolSvg } from './symbols.js';
import { borderSvg, centredBaseline, crossSvg, dynamicLine, hazardPattern, lineSize, rectSvg, svgDocument, textLine } from './svg.js';

export interface StateTileLayout {
  band: Rect;
  symbol: Rect;
  word: Rect;
  ident: Rect;
  clock: Rect;
  footer: Rect;
  /** Everything below the band (where a thumbnail shows). */
  body: Rect;
  /** A band pixel no text, symbol, border or overlay frame reaches: its colour is the band colour. */
  probe: { x: number; y: number };
  pad: number;
}

/** Wider than this (strip cells, info bar) the clock moves beside the identity instead of below it. */
const WIDE_ASPECT = 1.7;

export function stateTileLayout({ width, height }: PixelSize): StateTileLayout {
  const pad = Math.max(3, Math.round(Math.min(width, height) * 0.06));
  const wide = width >= WIDE_ASPECT * height;
  const bandHeight = Math.round(height * (wide ? 0.36 : 0.27));
  const band = { x: 0, y: 0, width, height: bandHeight };
  const symbolSide = Math.round(bandHeight * 0.56);
  const symbol = { x: pad, y: (bandHeight - symbolSide) / 2, width: symbolSide, height: symbolSide };
  const wordLeft = pad + symbolSide + Math.round(pad * 0.8);
  // The band's right end stays clear of text: that is where its colour can be read (and tested).
  const word = { x: wordLeft, y: 0, width: Math.max(1, width - wordLeft - Math.round(pad * 2.5)), height: bandHeight };
  const probe = { x: width - Math.round(pad * 1.4) - 1, y: Math.round(bandHeight / 2) };
  const body = { x: 0, y: bandHeight, width, height: height - bandHeight };
  if (wide) {
    const column = Math.round(width * 0.46);
    const rowHeight = (height - bandHeight) / 2;
    return {
      band,
      symbol,
      word,
      ident: { x: pad, y: bandHeight, width: column - pad, height: rowHeight },
      footer: { x: pad, y: bandHeight + rowHeight, width: column - pad, height: rowHeight },
      clock: { x: column, y: bandHeight, width: width - column - pad, height: height - bandHeight },
      body,
      probe,
      pad,
    };
  }
  const identHeight = Math.round(height * 0.22);
  const clockHeight = Math.round(height * 0.29);
  const footerTop = bandHeight + identHeight + clockHeight;
  return {
    band,
    symbol,
    word,
    ident: { x: pad, y: bandHeight, width: width - 2 * pad, height: identHeight },
    clock: { x: pad, y: bandHeight + identHeight, width: width - 2 * pad, height: clockHeight },
    footer: { x: pad, y: footerTop, width: width - 2 * pad, height: height - footerTop - Math.round(pad * 0.4) },
    body,
    probe,
    pad,
  };
}

/** What the base shows (everything static). */
export interface StateTileBase {
  look: StateLook;
  /** Drawn muted: the data is old or gone. */
  faded: boolean;
  /** The identity line, when it cannot be painted from the atlas (a name beyond ASCII); else null. */
  ident: Identity | null;
  /** A clock is painted over the base (scrim behind it when over a thumbnail). */
  clock: boolean;
  /** What the footer holds: a warning gets an orange box in the base. */
  footer: 'none' | 'text' | 'warning';
  thumbnail: boolean;
  /** The thumbnail is past its time as live: dimmed as stale data is (STALE_DIM). */
  staleThumbnail?: boolean;
}

export function stateTileSvg(base: StateTileBase, size: PixelSize): string {
  const layout = stateTileLayout(size);
  const { look } = base;
  const { width, height } = size;
  const short = Math.min(width, height);
  let defs = '';
  let body = '';
  if (!base.thumbnail) body += rectSvg(layout.body, look.crossed ? OKABE_ITO.black : NEUTRAL.body);
  if (look.hazard) {
    defs += hazardPattern('hazard', Math.max(3, short * 0.07), dimmed(OKABE_ITO.orange, base.faded ? 0.25 : 0.45), base.thumbnail ? '#000000' : NEUTRAL.body);
    body += base.thumbnail ? borderSvg(layout.body, layout.pad, 'url(#hazard)', null) : rectSvg(layout.body, 'url(#hazard)');
  }
  if (look.crossed) {
    const inset = layout.pad;
    body += crossSvg({ x: inset, y: layout.body.y + inset, width: width - 2 * inset, height: layout.body.height - 2 * inset }, Math.max(2, short * 0.05), NEUTRAL.offlineCross);
  }
  if (base.thumbnail && base.staleThumbnail === true) body += rectSvg(layout.body, '#000000', `fill-opacity="${1 - STALE_DIM}"`);
  if (base.thumbnail) {
    const scrim = (rect: Rect) => rectSvg({ x: 0, y: rect.y, width, height: rect.height }, NEUTRAL.scrim, 'fill-opacity="0.55"');
    body += scrim(layout.ident);
    if (base.clock) body += scrim(layout.clock);
    if (base.footer === 'text') body += scrim(layout.footer);
  }
  if (base.footer === 'warning') body += rectSvg(footerBox(layout), base.faded ? dimmed(WARNING.box) : WARNING.box);

  const band = rectSvg(layout.band, look.band) + symbolSvg(look.symbol, layout.symbol, look.ink, look.band) + textLine({ text: look.word, face: 'bold', rect: layout.word, fill: look.ink, anchor: 'start', maxSize: layout.band.height * 0.56 });
  const ident = base.ident === null ? '' : identSvg(base.ident, base.faded, layout);
  const border = look.dashed ? borderSvg({ x: 0, y: 0, width, height }, Math.max(2, Math.round(short * 0.035)), NEUTRAL.noSource, short * 0.12) : '';
  return svgDocument(size, body + band + ident + border, defs);
}

/** The warning box spans the footer row edge to edge, so it reads as a strip. */
function footerBox(layout: StateTileLayout): Rect {
  const { footer } = layout;
  return { x: footer.x - layout.pad / 2, y: footer.y + footer.height * 0.06, width: footer.width + layout.pad, height: footer.height * 0.88 };
}

/** Identity line: lead in bold (the channel number), rest in regular (the source). */
export interface Identity {
  lead: string;
  rest: string;
}

/** Printable ASCII: what the glyph atlas holds. */
export function paintable(identity: Identity): boolean {
  return /^[\x20-\x7e]*$/.test(identity.lead + identity.rest);
}

/** Where the identity's parts go and at what size (whole px, as the atlas is made per size). */
function identityLayout(identity: Identity, layout: StateTileLayout) {
  const { ident } = layout;
  if (identity.lead === '') {
    const size = Math.max(6, Math.floor(lineSize({ text: identity.rest, face: 'regular', rect: ident })));
    return { lead: null, rest: { text: truncateMiddle(identity.rest, 'regular', size, ident.width), size, x: ident.x, baseline: Math.round(centredBaseline(ident, 'regular', size)) } };
  }
  const leadSize = Math.max(6, Math.floor(lineSize({ text: identity.lead, face: 'bold', rect: ident, maxSize: ident.height * 0.8 })));
  const leadWidth = measureText(identity.lead, 'bold', leadSize);
  const baseline = Math.round(centredBaseline(ident, 'bold', leadSize));
  const lead = { text: identity.lead, size: leadSize, x: ident.x, baseline };
  const gap = leadSize * 0.35;
  const room = ident.width - leadWidth - gap;
  if (identity.rest === '' || room <= leadSize) return { lead, rest: null };
  // Shrink a long source name only so far, then cut it in the middle: a readable "Came…dio B" beats a full
  // name nobody can read, and keeps the tail where names of one studio differ.
  const restSize = Math.floor(Math.max(7, leadSize * 0.6, Math.min(leadSize * 0.8, lineSize({ text: identity.rest, face: 'regular', rect: { ...ident, width: room } }))));
  // Same baseline as the lead, so the two read as one line.
  const restBaseline = Math.round(baseline - (capHeight('bold', leadSize) - capHeight('regular', restSize)) / 2);
  return { lead, rest: { text: truncateMiddle(identity.rest, 'regular', restSize, room), size: restSize, x: Math.round(ident.x + leadWidth + gap), baseline: restBaseline } };
}

function identityInks(faded: boolean): { lead: string; rest: string } {
  return { lead: faded ? NEUTRAL.muted : NEUTRAL.text, rest: faded ? NEUTRAL.muted : '#E0E0E0' };
}

function identSvg(identity: Identity, faded: boolean, layout: StateTileLayout): string {
  const placed = identityLayout(identity, layout);
  const ink = identityInks(faded);
  let svg = '';
  if (placed.lead) svg += textSvg({ text: placed.lead.text, face: 'bold', size: placed.lead.size, x: placed.lead.x, y: placed.lead.baseline, anchor: 'start', fill: ink.lead });
  if (placed.rest) svg += textSvg({ text: placed.rest.text, face: 'regular', size: placed.rest.size, x: placed.rest.x, y: placed.rest.baseline, anchor: 'start', fill: placed.lead ? ink.rest : ink.lead });
  return svg;
}

/** The identity painted from the atlas (for identities the base does not hold). */
function identityOps(identity: Identity, faded: boolean, layout: StateTileLayout): PaintOp[] {
  const placed = identityLayout(identity, layout);
  const ink = identityInks(faded);
  const ops: PaintOp[] = [];
  if (placed.lead) ops.push({ kind: 'text', text: placed.lead.text, face: 'bold', size: placed.lead.size, x: placed.lead.x, baseline: placed.lead.baseline, anchor: 'start', colour: ink.lead });
  if (placed.rest) ops.push({ kind: 'text', text: placed.rest.text, face: 'regular', size: placed.rest.size, x: placed.rest.x, baseline: placed.rest.baseline, anchor: 'start', colour: placed.lead ? ink.rest : ink.lead });
  return ops;
}

/** The parts painted over the base: the identity (when the base lacks it), the clock and the footer text. */
export interface StateTileDynamic {
  identity: { identity: Identity; faded: boolean } | null;
  clock: { text: string; colour: string } | null;
  footer: { text: string; colour: string; bold: boolean } | null;
}

/**
 * The parts painted over the base, the still ones first: the identity and the footer change with the
 * channel's name, state or frame rate, the clock every second. `stillOps` of them, from the first, are
 * the still ones (the renderer keeps them painted over the base, so a tick paints only the clock). The
 * clock is painted last; its line does not meet the identity's or the footer's (stateTileLayout), so
 * the order changes no pixel.
 */
export function stateTileOps(dynamic: StateTileDynamic, size: PixelSize): { ops: PaintOp[]; stillOps: number } {
  const layout = stateTileLayout(size);
  const ops: PaintOp[] = dynamic.identity === null ? [] : identityOps(dynamic.identity.identity, dynamic.identity.faded, layout);
  if (dynamic.footer !== null && dynamic.footer.text !== '') {
    const { footer } = layout;
    ops.push(dynamicLine({ text: dynamic.footer.text, face: dynamic.footer.bold ? 'bold' : 'regular', rect: footer, fill: dynamic.footer.colour, anchor: 'middle', maxSize: footer.height * 0.72 }));
  }
  const stillOps = ops.length;
  if (dynamic.clock !== null) {
    ops.push(dynamicLine({ text: dynamic.clock.text, face: 'mono', rect: layout.clock, fill: dynamic.clock.colour, anchor: 'middle', maxSize: layout.clock.height * 0.8 }));
  }
  return { ops, stillOps };
}

/** mm:ss under an hour, hh:mm:ss from then on. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (v: number) => String(v).padStart(2, '0');
  const mmss = `${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return s < 3600 ? mmss : `${two(Math.floor(s / 3600))}:${mmss}`;
}

/** The take's clock, dimmed when the data is not live. */
export function stateClock(durationS: number | null, state: string, faded: boolean): StateTileDynamic['clock'] {
  return durationS === null ? null : { text: formatDuration(durationS), colour: state === 'offline' ? NEUTRAL.offlineInk : faded ? NEUTRAL.muted : NEUTRAL.text };
}

/** "5s old" under a stale or offline tile. */
export function ageFooter(ageS: number, state: string): NonNullable<StateTileDynamic['footer']> {
  return { text: ageText(ageS), colour: state === 'offline' ? NEUTRAL.offlineInk : AGE_INK, bold: true };
}
