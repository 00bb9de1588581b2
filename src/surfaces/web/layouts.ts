// The web deck's layouts as data: a grid of keys, and optionally dials with a touch strip above them
// (one strip cell per dial, as on a Stream Deck Plus). A web profile picks one by its model.
import type { ControlDefinition, PixelSize } from '../../engine/surface.js';
import { keyGrid } from '../../engine/surface.js';

export interface WebLayout {
  model: string;
  name: string;
  rows: number;
  columns: number;
  keySize: number;
  dials: number;
  /** Size of one strip cell (one per dial). */
  stripCell: PixelSize | null;
}

export const WEB_LAYOUTS: Readonly<Record<string, WebLayout>> = {
  'web-15': { model: 'web-15', name: 'Web deck, 15 keys', rows: 3, columns: 5, keySize: 96, dials: 0, stripCell: null },
  'web-32': { model: 'web-32', name: 'Web deck, 32 keys', rows: 4, columns: 8, keySize: 96, dials: 0, stripCell: null },
  'web-plus': { model: 'web-plus', name: 'Web deck, 8 keys, 4 dials and a strip', rows: 2, columns: 4, keySize: 120, dials: 4, stripCell: { width: 200, height: 100 } },
};

export function webControls(layout: WebLayout): ControlDefinition[] {
  const controls: ControlDefinition[] = keyGrid(layout.rows, layout.columns, layout.keySize);
  for (let i = 0; i < layout.dials; i++) {
    const hasStrip = layout.stripCell !== null;
    controls.push({ kind: 'encoder', id: `dial${i}`, pressable: true, ring: false, ...(hasStrip ? { lcd: `strip${i}` } : {}) });
    if (layout.stripCell) controls.push({ kind: 'lcd', id: `strip${i}`, pixelSize: layout.stripCell, touch: true });
  }
  return controls;
}
