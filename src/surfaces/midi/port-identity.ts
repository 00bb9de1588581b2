// Which USB device is behind a MIDI port. A controller unplugged and plugged back usually comes back
// under the same ALSA client number, so under the same port name, and the handles opened before are
// dead: the name alone cannot tell that it is another device. On Linux the kernel numbers the sequencer
// clients of sound card N as 16 + 4·N (sound/core/seq/seq_clientmgr.c: 16 global clients, then 4 per
// card), and snd-usb-audio writes the card's USB bus and device address to /proc/asound/cardN/usbbus.
// The device address is new at every plug-in, so (bus, address) is the identity of the port.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A USB device as both the kernel and libusb number it. */
export interface UsbAddress {
  bus: number;
  address: number;
}

/** The USB device behind a port, or null when it cannot be told (not Linux, not USB, not a card client). */
export type PortIdentity = (portName: string) => UsbAddress | null;

const FIRST_CARD_CLIENT = 16;
const CLIENTS_PER_CARD = 4;
const FIRST_DYNAMIC_CLIENT = 128;

/** The ALSA sequencer client in an RtMidi port name ("client name:port name 20:0"). */
export function alsaClientOf(portName: string): number | null {
  const match = / (\d+):\d+$/.exec(portName);
  return match ? Number(match[1]) : null;
}

/** Reads the USB address of a port's card from an ALSA proc tree (the real one is /proc/asound). */
export function alsaPortIdentity(asoundRoot = '/proc/asound'): PortIdentity {
  return (portName) => {
    const client = alsaClientOf(portName);
    if (client === null || client < FIRST_CARD_CLIENT || client >= FIRST_DYNAMIC_CLIENT) return null;
    const card = Math.floor((client - FIRST_CARD_CLIENT) / CLIENTS_PER_CARD);
    let text: string;
    try {
      text = readFileSync(join(asoundRoot, `card${card}`, 'usbbus'), 'utf8');
    } catch {
      return null; // not a USB card, or gone this instant
    }
    const match = /^(\d+)\/(\d+)\s*$/.exec(text);
    return match ? { bus: Number(match[1]), address: Number(match[2]) } : null;
  };
}

export function sameUsbDevice(a: UsbAddress | null, b: UsbAddress | null): boolean {
  return a === null || b === null ? a === b : a.bus === b.bus && a.address === b.address;
}
