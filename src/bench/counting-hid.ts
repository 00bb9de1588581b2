// A HID device that takes everything at once and counts the bytes: the real @elgato-stream-deck/core
// builds a real StreamDeck over it, so a benchmark measures the library's image packing and framing and
// the bridge's drawing, not a USB bus.
import { DEVICE_MODELS2, type ChildHIDDeviceInfo, type DeviceModelId, type HIDDevice, type HIDDeviceEvents, type HIDDeviceInfo, type StreamDeck } from '@elgato-stream-deck/core';
import { createHash } from 'node:crypto';
import jpegTurbo from '@julusian/jpeg-turbo';
import { EventEmitter } from 'eventemitter3';

export class CountingHidDevice extends EventEmitter<HIDDeviceEvents> implements HIDDevice {
  bytes = 0;
  writes = 0;
  /** Image writes byte-identical to the last one sent to the same key: work nobody can see. */
  identicalWrites = 0;
  private readonly lastImage = new Map<string, string>();

  constructor(readonly info: HIDDeviceInfo) {
    super();
  }

  async close(): Promise<void> {}

  async sendFeatureReport(data: Uint8Array): Promise<void> {
    this.bytes += data.length;
    this.writes += 1;
  }

  /** Identity reads (serial, firmware) answer zeros: the benchmark gives the serial itself. */
  async getFeatureReport(_reportId: number, reportLength: number): Promise<Uint8Array> {
    return new Uint8Array(reportLength);
  }

  async sendReports(buffers: Uint8Array[]): Promise<void> {
    const hash = createHash('sha1');
    for (const buffer of buffers) {
      this.bytes += buffer.length;
      hash.update(buffer);
    }
    this.writes += 1;
    // One call carries one image; its first report's header names the target (command and key).
    const target = Buffer.from(buffers[0]?.subarray(0, 3) ?? []).toString('hex');
    const content = hash.digest('hex');
    if (this.lastImage.get(target) === content) this.identicalWrites += 1;
    this.lastImage.set(target, content);
  }

  async getDeviceInfo(): Promise<HIDDeviceInfo> {
    return this.info;
  }

  async getChildDeviceInfo(): Promise<ChildHIDDeviceInfo | null> {
    return null;
  }
}

/** jpeg-turbo at the quality @elgato-stream-deck/node uses by default. */
async function encodeJpeg(rgba: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  return jpegTurbo.compress(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), { format: jpegTurbo.FORMAT_RGBA, width, height, quality: 95 });
}

/** A real StreamDeck of the model over a counting device, built as openStreamDeck builds one. */
export async function openCountingStreamDeck(model: DeviceModelId): Promise<{ deck: StreamDeck; hid: CountingHidDevice }> {
  const spec = DEVICE_MODELS2[model];
  const hid = new CountingHidDevice({ path: `/dev/bench-${model}`, productId: spec.productIds[0] as number, vendorId: spec.vendorId });
  const deck = await spec.factory(hid, { encodeJPEG: encodeJpeg });
  return { deck, hid };
}
