// Prompt notice of Stream Decks plugged in or out, from the `usb` package's attach/detach events. It is
// optional: when `usb` cannot load or watch, the manager's periodic scan still finds every change, only
// a few seconds later. Loaded lazily, so a broken `usb` install costs nothing but this.
import type { Device } from 'usb';

export type HotplugEvent = 'attach' | 'detach';

/** Starts watching one USB vendor; resolves with a function that stops. Rejects when it cannot watch. */
export type WatchHotplug = (vendorId: number, onEvent: (event: HotplugEvent) => void) => Promise<() => void>;

export const watchUsbHotplug: WatchHotplug = async (vendorId, onEvent) => {
  const { usb } = await import('usb');
  const listeners = (['attach', 'detach'] as const).map((event) => {
    const listener = (device: Device) => {
      if (device.deviceDescriptor.idVendor === vendorId) onEvent(event);
    };
    usb.on(event, listener);
    return { event, listener };
  });
  // Watching must never be what keeps the process alive.
  usb.unrefHotplugEvents();
  return () => {
    for (const { event, listener } of listeners) usb.removeListener(event, listener);
  };
};
