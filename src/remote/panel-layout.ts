// How the web page lays out a surface it shows: a grid of keys (by their row and column), then LED
// buttons and pedals, LCD cells in a strip, and dials. Web surfaces are drawn like hardware ones.
import type { ControlDefinition } from '../engine/surface.js';

export interface PanelLayout {
  columns: number;
  keySize: number;
}

export function panelLayout(controls: readonly ControlDefinition[]): PanelLayout {
  const keys = controls.filter((c) => c.kind === 'key');
  const columns = keys.reduce((most, key) => Math.max(most, key.column + 1), 0);
  // Keys are shown at 96 px wide at most so that a 32-key deck fits a laptop screen beside the status.
  const native = keys[0]?.pixelSize.width ?? 96;
  return { columns, keySize: Math.min(native, 120) };
}
