// How big the keys are drawn and in how many columns. At desk size a deck is shown as the device is
// (its own columns, keys at their own size). When the page is narrow (a phone, a tablet) one deck at a
// time fills the width: its keys grow or shrink to fit, never below MIN_KEY_PX, and a deck too wide for
// that folds each row into whole shorter rows (8 columns become 2 rows of 4), so the keys keep their
// reading order: channel 5 still follows channel 4.
// @ts-check

/** The smallest key a finger can aim at reliably. */
export const MIN_KEY_PX = 56;
/** Below this width the page shows one deck at a time, picked in the deck picker. */
export const NARROW_QUERY = '(max-width: 899px)';

/**
 * The columns to show and the key width, for a deck of `columns` keys across at `keySize` px, in
 * `width` px with `gap` px between keys. `fill`: grow the keys to the width (a narrow page).
 * @returns {{ columns: number, keyPx: number }}
 */
export function fitKeys(/** @type {number} */ columns, /** @type {number} */ keySize, /** @type {number} */ width, /** @type {number} */ gap, /** @type {boolean} */ fill) {
  const across = Math.max(1, columns);
  // Shrink first; fold only when the keys would get too small, and by whole divisors only, so that
  // every original row becomes whole rows.
  for (let shown = across; shown >= 1; shown--) {
    if (across % shown !== 0) continue;
    const room = Math.floor((width - gap * (shown - 1)) / shown);
    const keyPx = fill ? room : Math.min(keySize, room);
    if (keyPx >= MIN_KEY_PX) return { columns: shown, keyPx };
  }
  return { columns: 1, keyPx: MIN_KEY_PX };
}

/** Where a key of row `row`, column `column` goes when its deck is shown `shown` columns across. */
export function foldedCell(/** @type {number} */ row, /** @type {number} */ column, /** @type {number} */ columns, /** @type {number} */ shown) {
  const rowsPerRow = Math.max(1, Math.round(columns / shown));
  return { row: row * rowsPerRow + Math.floor(column / shown), column: column % shown };
}
