// The real backend: node-hid lists HID devices and opens them, the xkeys package's NodeHIDDevice wraps
// one as the library's transport. Both are loaded only when first needed, and any failure to load them
// (node-hid's native module needs libusb on Linux) becomes a HidSupportError that says what to
// install, so the rest of recdeck runs on without X-keys.
import type { HIDDevice } from '@xkeys-lib/core';
import type { XkeysBackend, XkeysListing } from './backend.js';
import { XKEYS_VENDOR_ID, xkeysProduct } from './models.js';
import { HidSupportError, lazyLibrary } from '../hid-support.js';
import { XKEYS } from './problems.js';

/** The parts of 'node-hid' and 'xkeys' used here. */
export interface XkeysNodeLibrary {
  devicesAsync(): Promise<Array<{ path?: string | undefined; vendorId: number; productId: number; interface: number; product?: string | undefined }>>;
  openTransport(path: string): Promise<HIDDevice>;
}

export interface XkeysNodeBackendOptions {
  /** Loads the libraries; tests inject one that fails. */
  load?: () => Promise<XkeysNodeLibrary>;
}

const loadNodeLibrary = async (): Promise<XkeysNodeLibrary> => {
  const [hid, { NodeHIDDevice }] = await Promise.all([import('node-hid'), import('xkeys')]);
  return {
    devicesAsync: () => hid.devicesAsync(),
    openTransport: async (path) => new NodeHIDDevice(await hid.HIDAsync.open(path)),
  };
};

export function nodeXkeysBackend(options: XkeysNodeBackendOptions = {}): XkeysBackend {
  const load = options.load ?? loadNodeLibrary;
  const library = lazyLibrary(XKEYS, load);

  return {
    async list(): Promise<XkeysListing[]> {
      const hid = await library();
      let found: Awaited<ReturnType<XkeysNodeLibrary['devicesAsync']>>;
      try {
        found = await hid.devicesAsync();
      } catch (error) {
        // node-hid loads its native module on first use, so a missing libusb shows up here.
        throw new HidSupportError(XKEYS, error, 'list');
      }
      const listings: XkeysListing[] = [];
      for (const d of found) {
        // Each panel shows several HID interfaces (keyboard, mouse emulation): only the library's one is a panel.
        if (d.path === undefined || d.vendorId !== XKEYS_VENDOR_ID || xkeysProduct(d) === null) continue;
        listings.push({ path: d.path, vendorId: d.vendorId, productId: d.productId, interface: d.interface, ...(d.product ? { product: d.product } : {}) });
      }
      return listings;
    },
    async open(listing: XkeysListing): Promise<HIDDevice> {
      return (await library()).openTransport(listing.path);
    },
  };
}
