// USB devices plugged in or out, from the `usb` package's (libusb's) attach/detach events. Every
// hardware adapter that wants prompt notice listens here (Stream Decks by vendor, MIDI controllers to
// any USB device, since a MIDI map does not name a vendor). It is optional: when `usb` cannot load or
// watch, the adapters' periodic checks still find every change, only later. Loaded lazily, so a broken
// `usb` install costs nothing but this.
import { createRequire } from 'node:module';
import type { Device } from 'usb';

export interface UsbEvent {
  type: 'attach' | 'detach';
  vendorId: number;
  productId: number;
  /** The bus and device address, as /proc/asound/cardN/usbbus gives them for a USB sound card. */
  bus: number;
  address: number;
}

/** Starts watching; resolves with a function that stops. Rejects when it cannot watch. */
export type WatchUsbEvents = (onEvent: (event: UsbEvent) => void) => Promise<() => void>;

export const watchUsbEvents: WatchUsbEvents = async (onEvent) => {
  // Required, not imported: Node scans a CommonJS module imported from an ES module (and those it
  // re-exports) for their export names, 30-40 ms of CPU more than a require (docs/performance.md,
  // "CommonJS packages required"). A require that fails rejects, as the import did.
  const { usb } = createRequire(import.meta.url)('usb') as typeof import('usb');
  const listeners = (['attach', 'detach'] as const).map((type) => {
    const listener = (device: Device) => {
      const { idVendor, idProduct } = device.deviceDescriptor;
      onEvent({ type, vendorId: idVendor, productId: idProduct, bus: device.busNumber, address: device.deviceAddress });
    };
    usb.on(type, listener);
    return { type, listener };
  });
  // Watching must never be what keeps the process alive.
  usb.unrefHotplugEvents();
  return () => {
    for (const { type, listener } of listeners) usb.removeListener(type, listener);
  };
};
