// What went wrong with Stream Deck support or one device, said so that an operator can act on it.
import { messageOf } from '../../api/errors.js';

export const LIBUSB_MISSING = 'Stream Deck support needs libusb at run time: install the libusb-1.0-0 package (Debian/Ubuntu: apt-get install libusb-1.0-0)';

/** The library could not be loaded or could not list devices; no Stream Deck can be used until fixed. */
export class StreamDeckSupportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StreamDeckSupportError';
  }
}

/** Why '@elgato-stream-deck/node' (or node-hid under it) could not be loaded or could not list devices. */
export function supportError(error: unknown, stage: 'load' | 'list'): StreamDeckSupportError {
  const text = messageOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  // node-hid's native module links against libusb on Linux: "libusb-1.0.so.0: cannot open shared
  // object file". It loads lazily, so this shows up when listing, not only when importing.
  if (/libusb/i.test(text)) return new StreamDeckSupportError(LIBUSB_MISSING, { cause: error });
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find (package|module)/i.test(text)) {
    return new StreamDeckSupportError(`Stream Deck support is not installed (${text}): reinstall recdeck's dependencies (npm install)`, { cause: error });
  }
  if (stage === 'load') return new StreamDeckSupportError(`Stream Deck support could not be loaded: ${text}`, { cause: error });
  return new StreamDeckSupportError(`Stream Decks could not be listed: ${text}`, { cause: error });
}

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
  const text = messageOf(error);
  const who = describeDevice(device, model);
  // hidapi says "cannot open device with path …" both when another program holds the device and when
  // this user may not open it, so both causes are named.
  if (/EBUSY|resource busy|cannot open device|could not open/i.test(text)) {
    return `${who} cannot be opened (${text}): another program may be using it (the Elgato Stream Deck app, Bitfocus Companion, another recdeck), or this user may not open it (install the udev rules: recdeck setup-udev)`;
  }
  if (/EACCES|EPERM|permission denied/i.test(text)) {
    return `${who} cannot be opened (${text}): this user may not open it (install the udev rules: recdeck setup-udev)`;
  }
  return `${who} could not be opened: ${text}`;
}
