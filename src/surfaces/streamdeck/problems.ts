// What went wrong with Stream Deck support or one device, said so that an operator can act on it (the
// wording shared with other HID families is in ../hid-support.ts).
import { explainHidOpenError, HidSupportError, libusbMissing } from '../hid-support.js';

export const STREAM_DECK = { name: 'Stream Deck', plural: 'Stream Decks' };

export const LIBUSB_MISSING = libusbMissing(STREAM_DECK);

/** '@elgato-stream-deck/node' (or node-hid under it) could not be loaded or could not list devices. */
export { HidSupportError as StreamDeckSupportError };

export interface DeviceWhereabouts {
  path: string;
  serialNumber?: string;
  model?: string;
}

/** "Stream Deck mk2 CL12K1A00042 at /dev/hidraw3" */
export function describeDevice(device: DeviceWhereabouts, model = device.model): string {
  return ['Stream Deck', model, device.serialNumber, `at ${device.path}`].filter((part) => part !== undefined && part !== '').join(' ');
}

/** Why a listed device could not be opened. */
export function explainOpenError(device: DeviceWhereabouts, error: unknown, model?: string): string {
  return explainHidOpenError(describeDevice(device, model), error, 'the Elgato Stream Deck app, Bitfocus Companion');
}
