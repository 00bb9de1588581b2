// Finds X-keys panels and keeps them (../usb-device-manager.ts does the keeping): lists them through
// the backend, opens each over its HID transport as an XkeysSurface named by model and unit id.
import type { Logger } from '../../engine/log.js';
import { UsbDeviceManager, type DeviceSurfaceEvent, type UsbDeviceManagerOptions } from '../usb-device-manager.js';
import type { XkeysBackend, XkeysListing } from './backend.js';
import { XKEYS_VENDOR_ID, xkeysProduct } from './models.js';
import { openPanel } from './panel.js';
import { describePanel, explainPanelOpenError } from './problems.js';
import { XkeysSurface } from './xkeys-surface.js';

export type XkeysSurfaceEvent = DeviceSurfaceEvent<XkeysSurface>;

export interface XkeysManagerOptions extends UsbDeviceManagerOptions {
  backend: XkeysBackend;
  log: Logger;
  /** How long a panel has to answer when opened (see panel.ts). */
  answerMs?: number;
}

export class XkeysManager extends UsbDeviceManager<XkeysListing, XkeysSurface> {
  constructor(options: XkeysManagerOptions) {
    const { backend, log } = options;
    super(
      {
        name: 'X-keys',
        plural: 'X-keys panels',
        vendorId: XKEYS_VENDOR_ID,
        list: () => backend.list(),
        open: async (listing, onFailure) => {
          const product = xkeysProduct(listing);
          if (product === null) throw new Error(`product ${listing.productId} interface ${listing.interface} is no X-keys panel the xkeys library knows`);
          const panel = await openPanel(await backend.open(listing), listing, this.time, options.answerMs);
          return new XkeysSurface(panel, { product, log, time: this.time, onFailure });
        },
        // The unit id is known only once the panel is open: a problem before that is told by path.
        about: (listing) => listing.path,
        describe: (listing, surface) => describePanel(listing, surface?.unitId),
        explainOpenError: explainPanelOpenError,
        twin: "the same model and unit id: give each panel its own unit id (P.I. Engineering's MacroWorks sets it)",
      },
      options,
    );
  }
}
