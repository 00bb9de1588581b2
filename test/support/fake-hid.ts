// An in-memory HID device under the real @elgato-stream-deck/core: the library's own model factories
// build real StreamDeck objects over it, so tests exercise the library's input parsing, image packing
// and report framing exactly as they run against hardware. It records every call the library makes
// and lets a test push input reports and raise device errors.
import { DEVICE_MODELS2, type ChildHIDDeviceInfo, type DeviceModelId, type HIDDevice, type HIDDeviceEvents, type HIDDeviceInfo, type StreamDeck } from '@elgato-stream-deck/core';
import jpegTurbo from '@julusian/jpeg-turbo';
import { EventEmitter } from 'eventemitter3';

export type HidCall =
  | { type: 'reports'; reports: Uint8Array[] }
  | { type: 'feature'; data: Uint8Array }
  | { type: 'get-feature'; reportId: number; length: number };

export class FakeHidDevice extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  /** Every call the library made, in order, with copies of what it sent. */
  readonly calls: HidCall[] = [];
  /** Answers to getFeatureReport, by report id (serial number, firmware version). */
  readonly featureAnswers = new Map<number, Uint8Array>();
  /** When set, every write fails with it, as a write to an unplugged device does. */
  writeError: Error | null = null;
  /**
   * Each write finishes only on a later turn of the event loop, as a real USB write does: a second write
   * started without waiting for the first overlaps it, which lets a test see whether writes overlap.
   */
  slowWrites = false;
  /**
   * When set, every write waits for it, as writes to a device that is busy do: a test holds the writes,
   * sees how many the library has started at once (`writesInFlight`), then lets them finish.
   */
  heldUntil: Promise<void> | null = null;
  /** The most writes ever in progress at once. */
  maxWritesInFlight = 0;
  closed = false;
  writesInFlight = 0;

  constructor(readonly info: HIDDeviceInfo) {
    super();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  async sendFeatureReport(data: Uint8Array): Promise<void> {
    await this.write({ type: 'feature', data: Uint8Array.from(data) });
  }

  async getFeatureReport(reportId: number, reportLength: number): Promise<Uint8Array> {
    this.calls.push({ type: 'get-feature', reportId, length: reportLength });
    const answer = this.featureAnswers.get(reportId);
    if (!answer) throw new Error(`fake HID device: no answer for feature report ${reportId}`);
    return Uint8Array.from(answer);
  }

  async sendReports(buffers: Uint8Array[]): Promise<void> {
    await this.write({ type: 'reports', reports: buffers.map((b) => Uint8Array.from(b)) });
  }

  async getDeviceInfo(): Promise<HIDDeviceInfo> {
    return this.info;
  }

  async getChildDeviceInfo(): Promise<ChildHIDDeviceInfo | null> {
    return null;
  }

  /** An input report as node-hid hands it to the library: the bytes after report id 0x01. */
  input(bytes: readonly number[]): void {
    this.emit('input', Uint8Array.from(bytes));
  }

  /** The device failing, as node-hid reports a read error on unplug. */
  fail(error: Error): void {
    this.emit('error', error);
  }

  /** Feature reports (0x03 …, 0x05 …) sent since a call index. */
  featuresSince(from = 0): Uint8Array[] {
    return this.calls.slice(from).flatMap((c) => (c.type === 'feature' ? [c.data] : []));
  }

  /** Output reports (images, rings) sent since a call index, flattened in order. */
  reportsSince(from = 0): Uint8Array[] {
    return this.calls.slice(from).flatMap((c) => (c.type === 'reports' ? c.reports : []));
  }

  private async write(call: HidCall): Promise<void> {
    if (this.closed) throw new Error('fake HID device: written after close');
    this.writesInFlight += 1;
    this.maxWritesInFlight = Math.max(this.maxWritesInFlight, this.writesInFlight);
    try {
      if (this.slowWrites) await new Promise((resolve) => setImmediate(resolve));
      if (this.heldUntil) await this.heldUntil;
      if (this.writeError) throw this.writeError;
      this.calls.push(call);
    } finally {
      this.writesInFlight -= 1;
    }
  }
}

export interface FakeStreamDeckOptions {
  serial?: string;
  firmware?: string;
  path?: string;
}

/** The JPEG encoder the node package uses by default (jpeg-turbo), fed the RGBA the library hands it. */
export async function encodeJpeg(rgba: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  return jpegTurbo.compress(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { format: jpegTurbo.FORMAT_RGBA, width, height, quality: 95 });
}

/**
 * A real StreamDeck of the given model over a FakeHidDevice, built the way @elgato-stream-deck/node's
 * openStreamDeck builds one: the model's factory from the core's DEVICE_MODELS, given the HID device.
 */
export async function openFakeStreamDeck(model: DeviceModelId, options: FakeStreamDeckOptions = {}): Promise<{ deck: StreamDeck; hid: FakeHidDevice }> {
  const spec = DEVICE_MODELS2[model];
  const hid = new FakeHidDevice({ path: options.path ?? `/dev/fake-${model}`, productId: spec.productIds[0] as number, vendorId: spec.vendorId });
  answerIdentity(hid, model, options.serial ?? 'FAKE0000001', options.firmware ?? '1.00.000');
  const deck = await spec.factory(hid, { encodeJPEG: encodeJpeg });
  return { deck, hid };
}

/** Feature report answers for serial number and firmware, in each generation's layout (see the core's properties services). */
function answerIdentity(hid: FakeHidDevice, model: DeviceModelId, serial: string, firmware: string): void {
  const ascii = (text: string) => [...Buffer.from(text, 'ascii')];
  const padded = (bytes: number[]) => Uint8Array.from([...bytes, ...new Array<number>(Math.max(0, 32 - bytes.length)).fill(0)]);
  if (model === 'original' || model === 'mini' || model === '6-module') {
    // Gen 1: text from byte 5, serial up to the first unprintable byte, firmware up to the first 0.
    hid.featureAnswers.set(3, padded([3, 0, 0, 0, 0, ...ascii(serial)]));
    hid.featureAnswers.set(4, padded([4, 0, 0, 0, 0, ...ascii(firmware)]));
  } else if (model === 'pedal') {
    hid.featureAnswers.set(6, padded([6, 12, ...ascii(serial.padEnd(12).slice(0, 12))]));
    hid.featureAnswers.set(5, padded([5, 0, 0, 0, 0, 0, ...ascii(firmware)]));
  } else {
    // Gen 2: byte 1 holds the length; serial from byte 2, firmware from byte 6 (after a checksum).
    hid.featureAnswers.set(6, padded([6, serial.length, ...ascii(serial)]));
    hid.featureAnswers.set(5, padded([5, firmware.length + 4, 0, 0, 0, 0, ...ascii(firmware)]));
  }
}
