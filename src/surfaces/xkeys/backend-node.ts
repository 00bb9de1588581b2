// The real backend: node-hid lists HID devices and opens them, the xkeys package's NodeHIDDevice wraps
// one as the library's transport. Both are loaded only when first needed, and any failure to load them
// (node-hid's native module needs libusb on Linux) becomes a HidSupportError that says what to
// install, so the rest of recdeck runs on without X-keys.
import { createRequire } from 'node:module';
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

// Required, not imported: Node scans a CommonJS module imported from an ES module (and the modules it
// re-exports) for its export names, which cost xkeys' load 40-60 ms of CPU more than a require
// (docs/performance.md, "CommonJS packages required"). A require that fails rejects the load as an
// import did: lazyLibrary turns it into the HidSupportError.
const loadNodeLibrary = async (): Promise<XkeysNodeLibrary> => {
  const requireHere = createRequire(import.meta.url);
  const hid = requireHere('node-hid') as typeof import('node-hid');
  const { NodeHIDDevice } = requireHere('xkeys') as typeof import('xkeys');
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
