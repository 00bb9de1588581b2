// Label icons as simple SVG shapes on a 24-unit grid, scaled into the space the label leaves for them.
import type { IconName } from '../../engine/picture.js';
import type { Rect } from './plan.js';
import { n } from './svg.js';

/** Shapes on a 24x24 grid; "F" marks filled in the ink colour, "S" stroked (width 2.4), "B" filled in the background (cutouts). */
const ICONS: Readonly<Record<IconName, string>> = {
  record: 'F:<circle cx="12" cy="12" r="8"/>',
  pause: 'F:<rect x="5" y="4" width="5" height="16"/><rect x="14" y="4" width="5" height="16"/>',
  stop: 'F:<rect x="5" y="5" width="14" height="14"/>',
  sync: 'S:<circle cx="8.5" cy="12" r="5.5"/><circle cx="15.5" cy="12" r="5.5"/>',
  ok: 'S:<path d="M4 12.5L9.5 18L20 6.5" stroke-linecap="round" stroke-linejoin="round"/>',
  cancel: 'S:<path d="M5.5 5.5L18.5 18.5M18.5 5.5L5.5 18.5" stroke-linecap="round"/>',
  next: 'F:<path d="M5 4L16 12L5 20Z"/><rect x="17" y="4" width="3" height="16"/>',
  previous: 'F:<path d="M19 4L8 12L19 20Z"/><rect x="4" y="4" width="3" height="16"/>',
  grid: 'F:<rect x="3" y="3" width="5" height="5"/><rect x="9.5" y="3" width="5" height="5"/><rect x="16" y="3" width="5" height="5"/><rect x="3" y="9.5" width="5" height="5"/><rect x="9.5" y="9.5" width="5" height="5"/><rect x="16" y="9.5" width="5" height="5"/><rect x="3" y="16" width="5" height="5"/><rect x="9.5" y="16" width="5" height="5"/><rect x="16" y="16" width="5" height="5"/>',
  save: 'F:<path d="M3 3H17L21 7V21H3Z"/>|B:<rect x="7" y="3" width="9" height="6"/><rect x="6" y="13" width="12" height="8"/>',
  load: 'F:<path d="M2 5H9L11 7H20V9H6L2 19Z"/><path d="M7 10H23L19 20H3Z"/>',
  new: 'F:<path d="M5 2H14L19 7V22H5Z"/>|B:<rect x="11" y="9" width="2" height="10"/><rect x="7" y="13" width="10" height="2"/>',
  schedule: 'S:<circle cx="12" cy="12" r="9"/><path d="M12 6.5V12L16 14.5" stroke-linecap="round"/>',
  gain: 'S:<path d="M6 3V21M12 3V21M18 3V21" stroke-linecap="round"/>|F:<rect x="3" y="13" width="6" height="4" rx="1"/><rect x="9" y="6" width="6" height="4" rx="1"/><rect x="15" y="10" width="6" height="4" rx="1"/>',
  brightness: 'F:<circle cx="12" cy="12" r="4.5"/>|S:<path d="M12 1.5V4.5M12 19.5V22.5M1.5 12H4.5M19.5 12H22.5M4.6 4.6L6.7 6.7M17.3 17.3L19.4 19.4M4.6 19.4L6.7 17.3M17.3 6.7L19.4 4.6" stroke-linecap="round"/>',
  macro: 'F:<path d="M13.5 2L4 14H11L9.5 22L20 9.5H13Z"/>',
};

/** The icon fitted (square) and centred in the rect. */
export function iconSvg(icon: IconName, rect: Rect, ink: string, background: string): string {
  const side = Math.min(rect.width, rect.height);
  const scale = side / 24;
  const x = rect.x + (rect.width - side) / 2;
  const y = rect.y + (rect.height - side) / 2;
  const layers = ICONS[icon]
    .split('|')
    .map((layer) => {
      const mode = layer.slice(0, 1);
      const shapes = layer.slice(2);
      if (mode === 'S') return `<g fill="none" stroke="${ink}" stroke-width="2.4">${shapes}</g>`;
      return `<g fill="${mode === 'B' ? background : ink}">${shapes}</g>`;
    })
    .join('');
  return `<g transform="translate(${n(x)} ${n(y)}) scale(${Math.round(scale * 1000) / 1000})">${layers}</g>`;
}
