// State symbols: the shape that tells a state apart without relying on its colour.
import type { StateSymbol } from '../palette.js';
import type { Rect } from './plan.js';
import { n } from './svg.js';

/** The symbol centred in a square rect, drawn in ink; cutouts (the hazard's "!") use the background. */
export function symbolSvg(symbol: StateSymbol, rect: Rect, ink: string, background: string): string {
  const s = Math.min(rect.width, rect.height);
  const cx = rect.x + rect.width / 2;
  const cy = rect.y + rect.height / 2;
  const stroke = Math.max(1.5, s * 0.13);
  const circle = (r: number, fill: boolean, x = cx) =>
    fill ? `<circle cx="${n(x)}" cy="${n(cy)}" r="${n(r)}" fill="${ink}"/>` : `<circle cx="${n(x)}" cy="${n(cy)}" r="${n(r)}" fill="none" stroke="${ink}" stroke-width="${n(stroke)}"/>`;
  switch (symbol) {
    case 'hollow-circle':
      return circle(s * 0.42 - stroke / 2, false);
    case 'filled-circle':
      return circle(s * 0.45, true);
    case 'bars': {
      const barWidth = s * 0.28;
      const gap = s * 0.2;
      const top = cy - s * 0.42;
      return [cx - gap / 2 - barWidth, cx + gap / 2].map((x) => `<rect x="${n(x)}" y="${n(top)}" width="${n(barWidth)}" height="${n(s * 0.84)}" fill="${ink}"/>`).join('');
    }
    case 'link': {
      // Two interlocked rings: channels tied together, waiting.
      const r = s * 0.27;
      return circle(r, false, cx - s * 0.17) + circle(r, false, cx + s * 0.17);
    }
    case 'ring-bars': {
      // The sync take's ring around pause bars: the group paused together.
      const barWidth = s * 0.14;
      const gap = s * 0.12;
      const barTop = cy - s * 0.22;
      const bars = [cx - gap / 2 - barWidth, cx + gap / 2].map((x) => `<rect x="${n(x)}" y="${n(barTop)}" width="${n(barWidth)}" height="${n(s * 0.44)}" fill="${ink}"/>`).join('');
      return circle(s * 0.45 - stroke / 2, false) + bars;
    }
    case 'ring-dot':
      return circle(s * 0.45 - stroke / 2, false) + circle(s * 0.24, true);
    case 'hazard': {
      const top = cy - s * 0.44;
      const bottom = cy + s * 0.4;
      const half = s * 0.5;
      const mark = s * 0.11;
      return (
        `<path d="M${n(cx)} ${n(top)}L${n(cx + half)} ${n(bottom)}L${n(cx - half)} ${n(bottom)}Z" fill="${ink}"/>` +
        `<rect x="${n(cx - mark / 2)}" y="${n(cy - s * 0.16)}" width="${n(mark)}" height="${n(s * 0.3)}" fill="${background}"/>` +
        `<rect x="${n(cx - mark / 2)}" y="${n(cy + s * 0.2)}" width="${n(mark)}" height="${n(mark)}" fill="${background}"/>`
      );
    }
    case 'no-source': {
      const r = s * 0.42 - stroke / 2;
      const d = r * Math.SQRT1_2;
      return circle(r, false) + `<path d="M${n(cx - d)} ${n(cy + d)}L${n(cx + d)} ${n(cy - d)}" stroke="${ink}" stroke-width="${n(stroke)}"/>`;
    }
    case 'cross': {
      const d = s * 0.36;
      return `<path d="M${n(cx - d)} ${n(cy - d)}L${n(cx + d)} ${n(cy + d)}M${n(cx + d)} ${n(cy - d)}L${n(cx - d)} ${n(cy + d)}" stroke="${ink}" stroke-width="${n(stroke)}" stroke-linecap="round"/>`;
    }
  }
}
