// Finds Stream Decks and keeps them (../usb-device-manager.ts does the keeping): lists them through the
// backend, opens each as a StreamDeckSurface named by its serial number (asked of the device when the
// listing has none), and leaves out what has no controls of its own (the Network Dock).
import type { Logger } from '../../engine/log.js';
import { UsbDeviceManager, type DeviceSurfaceEvent, type UsbDeviceManagerOptions } from '../usb-device-manager.js';
import type { StreamDeckBackend, StreamDeckListing } from './backend.js';
import { ELGATO_VENDOR_ID, hasOwnControls, shortModelId } from './models.js';
import { describeDevice, explainOpenError } from './problems.js';
import { StreamDeckSurface } from './streamdeck-surface.js';

export type StreamDeckSurfaceEvent = DeviceSurfaceEvent<StreamDeckSurface>;

export interface StreamDeckManagerOptions extends UsbDeviceManagerOptions {
  backend: StreamDeckBackend;
  log: Logger;
}

export class StreamDeckManager extends UsbDeviceManager<StreamDeckListing, StreamDeckSurface> {
  constructor(options: StreamDeckManagerOptions) {
    const { backend, log } = options;
    super(
      {
        name: 'Stream Deck',
        plural: 'Stream Decks',
        vendorId: ELGATO_VENDOR_ID,
        list: () => backend.list(),
        open: async (listing, onFailure) => {
          const deck = await backend.open(listing.path);
          let serial: string;
          try {
            // The path is the last resort: it names the device until it is plugged in elsewhere.
            serial = listing.serialNumber || (await deck.getSerialNumber()).trim() || listing.path;
          } catch (error) {
            await deck.close().catch(() => undefined);
            throw error;
          }
          return new StreamDeckSurface(deck, { serial, log, time: this.time, onFailure });
        },
        unused: (listing) => (hasOwnControls(listing.model) ? null : 'has no controls of its own'),
        // By serial when known, so it survives a change of USB port.
        about: (listing) => listing.serialNumber ?? listing.path,
        describe: (listing, surface) => describeDevice(listing, surface?.model ?? shortModelId(listing.model)),
        explainOpenError: (listing, error) => explainOpenError(listing, error, shortModelId(listing.model)),
        twin: 'the same serial number',
      },
      options,
    );
  }
}
