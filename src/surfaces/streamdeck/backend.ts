// Where Stream Decks come from: the manager lists and opens devices through this, so tests can hand it
// decks opened over in-memory HID devices and the real one can load the USB library only when needed.
import type { StreamDeck } from '@elgato-stream-deck/core';

export interface StreamDeckListing {
  /** The HID path to open it by (e.g. /dev/hidraw3); changes when it is plugged in elsewhere. */
  path: string;
  /** As the USB descriptor says; absent on some platforms, when the device itself is asked. */
  serialNumber?: string;
  /** The library's DeviceModelId, e.g. "original-mk2". */
  model: string;
}

export interface StreamDeckBackend {
  /** The Stream Decks plugged in now. Rejects with a StreamDeckSupportError when none can be seen at all. */
  list(): Promise<StreamDeckListing[]>;
  open(path: string): Promise<StreamDeck>;
}
