// What went wrong with X-keys support or one panel, said so that an operator can act on it (the wording
// shared with other HID families is in ../hid-support.ts).
import { explainHidOpenError, libusbMissing } from '../hid-support.js';
import type { XkeysListing } from './backend.js';
import { modelIdOf, xkeysProduct } from './models.js';

export const XKEYS = { name: 'X-keys', plural: 'X-keys panels' };

export const XKEYS_LIBUSB_MISSING = libusbMissing(XKEYS);

/** "X-keys xk-24 unit 3 at /dev/hidraw5" (the unit id once the panel has said it). */
export function describePanel(listing: XkeysListing, unitId?: number): string {
  const product = xkeysProduct(listing);
  return ['X-keys', product ? modelIdOf(product) : `product ${listing.productId}`, unitId === undefined ? undefined : `unit ${unitId}`, `at ${listing.path}`].filter((part) => part !== undefined).join(' ');
}

/** Why a listed panel could not be opened. */
export function explainPanelOpenError(listing: XkeysListing, error: unknown): string {
  return explainHidOpenError(describePanel(listing), error, "P.I. Engineering's MacroWorks, Bitfocus Companion");
}
