// An X-keys panel's controls, from the library's product table, turned into ours, with the way back:
// which of the library's key indexes each control id stands for.
//
// The library numbers keys down the columns of its switch matrix (1 is top left, 2 below it), with 0
// for the program switch. Profiles name keys the way every recdeck surface does: `key<i>` in reading
// order, left to right and top to bottom from key0, by the row and column the product table gives each
// key (an XK-24's second row starts at key4; an XK-3's pedals are key0, key1, key2, left to right).
// Switch positions the model does not have (disableButtons, or no place on the panel) are left out,
// and so is the program switch: it is the panel's programming button, under the case on most models.
import { BackLightType, type Product } from '@xkeys-lib/core';
import type { ControlDefinition } from '../../engine/surface.js';

export interface PanelLayout {
  controls: readonly ControlDefinition[];
  /** Control id by the library's key index. */
  keys: ReadonlyMap<number, string>;
  /** The library's key index by control id. */
  keyIndexes: ReadonlyMap<string, number>;
  /** Whether the keys have backlights at all. */
  backlit: boolean;
}

/** `jog`, `shuttle`, `tbar` for the first (every model has one at most), then `jog1`, … */
export function analogId(kind: 'jog' | 'shuttle' | 'tbar', index: number): string {
  return index === 0 ? kind : `${kind}${index}`;
}

export function panelLayout(product: Product): PanelLayout {
  const backlit = product.backLightType !== BackLightType.NONE;
  const disabled = new Set(product.disableButtons ?? []);
  const placed: Array<{ keyIndex: number; row: number; col: number }> = [];
  const matrixKeys = product.bBytes * product.bBits;
  for (let keyIndex = 1; keyIndex <= matrixKeys + (product.hasExtraButtons?.length ?? 0); keyIndex++) {
    if (disabled.has(keyIndex)) continue;
    const [row, col] = placeOf(product, keyIndex);
    if (row < 1 || col < 1 || row > product.rowCount || col > product.colCount) continue;
    placed.push({ keyIndex, row, col });
  }
  const keys = new Map<number, string>();
  const keyIndexes = new Map<string, number>();
  const controls: ControlDefinition[] = [];
  for (const { keyIndex, row, col } of placed.sort((a, b) => a.row - b.row || a.col - b.col)) {
    const id = `key${(row - 1) * product.colCount + (col - 1)}`;
    if (keyIndexes.has(id)) continue; // a place the product table gives two switches: the first answers for it
    keys.set(keyIndex, id);
    keyIndexes.set(id, keyIndex);
    controls.push({ kind: 'button', id, feedback: backlit ? 'led' : 'none' });
  }
  (product.hasJog ?? []).forEach((_, i) => controls.push({ kind: 'encoder', id: analogId('jog', i), pressable: false, ring: false }));
  // The shuttle springs back to the middle; the T-bar stays where it is put: both are positions.
  (product.hasShuttle ?? []).forEach((_, i) => controls.push({ kind: 'fader', id: analogId('shuttle', i), motorised: false }));
  (product.hasTbar ?? []).forEach((_, i) => controls.push({ kind: 'fader', id: analogId('tbar', i), motorised: false }));
  return { controls, keys, keyIndexes, backlit };
}

/** [row, column], 1-based, as the library places a key: its own table where it has one, else the matrix (column by column). */
function placeOf(product: Product, keyIndex: number): [number, number] {
  const listed = product.btnLocation?.[keyIndex];
  if (product.btnLocation !== undefined) return listed ?? [0, 0];
  const col = Math.ceil(keyIndex / product.bBits);
  return [keyIndex - product.bBits * (col - 1), col];
}
