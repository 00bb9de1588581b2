// Where X-keys panels come from: the manager lists HID devices and opens their transport through this,
// so tests can hand it in-memory devices under the real xkeys code, and the real one can load node-hid
// only when needed. The transport is @xkeys-lib/core's HIDDevice, the seam the library itself has
// between its panel logic and node-hid.
import type { HIDDevice } from '@xkeys-lib/core';
import type { HidIdentity } from './models.js';

export interface XkeysListing extends HidIdentity {
  /** The HID path to open it by (e.g. /dev/hidraw3); changes when it is plugged in elsewhere. */
  path: string;
}

export interface XkeysBackend {
  /** The X-keys panels plugged in now. Rejects with a clear reason when none can be seen at all. */
  list(): Promise<XkeysListing[]>;
  /** Opens a listed panel's HID device. */
  open(listing: XkeysListing): Promise<HIDDevice>;
}
