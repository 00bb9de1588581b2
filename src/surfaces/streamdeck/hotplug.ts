// Prompt notice of Stream Decks plugged in or out: the USB attach/detach events (../usb-events.ts) of
// one vendor. Optional: the manager's periodic scan still finds every change, only a few seconds later.
import { watchUsbEvents } from '../usb-events.js';

export type HotplugEvent = 'attach' | 'detach';

/** Starts watching one USB vendor; resolves with a function that stops. Rejects when it cannot watch. */
export type WatchHotplug = (vendorId: number, onEvent: (event: HotplugEvent) => void) => Promise<() => void>;

export const watchUsbHotplug: WatchHotplug = (vendorId, onEvent) =>
  watchUsbEvents((event) => {
    if (event.vendorId === vendorId) onEvent(event.type);
  });
