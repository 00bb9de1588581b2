// An in-memory X-keys panel under the real xkeys code: it implements @xkeys-lib/core's HIDDevice, the
// transport the library's XKeys talks through (node-hid's HIDAsync, wrapped by the xkeys package's
// NodeHIDDevice, on a real machine). It answers the library's opening questions (firmware version, unit
// id), builds input reports from the library's own product table the way the panel lays them out (a
// bit per switch, column by column; jog, shuttle and T-bar in their bytes), records every report the
// library writes, and fails writes or reads on demand.
import { EventEmitter } from 'node:events';
import { PRODUCTS, XKEYS_VENDOR_ID, type HIDDevice, type Product } from '@xkeys-lib/core';

/** Long enough for every model's bytes (the last analog or timestamp byte is below 36). */
const REPORT_BYTES = 36;
/** The library's commands: ask for the firmware version, ask for a report of the current state. */
const GET_VERSION = 214;
const GENERATE_DATA = 177;

export type ProductKey = keyof typeof PRODUCTS & string;

export class FakeXkeysHid extends EventEmitter implements HIDDevice {
  /** Every report the library wrote, in order (its 36 bytes as the library padded them). */
  readonly writes: number[][] = [];
  /** When set, every write fails with it, as a write to an unplugged panel does (reported as an 'error'). */
  writeError: Error | null = null;
  /** False: the panel never answers the library's opening questions. */
  answers = true;
  closed = false;
  readonly product: Product;
  private readonly pressed = new Set<number>();
  /** Analog bytes as the panel reports them now. */
  private readonly analog = new Map<number, number>();
  private inFlight: Array<Promise<void>> = [];

  constructor(
    readonly productKey: ProductKey,
    readonly unitId = 0,
    /** Where it is "plugged in". */
    readonly path = `/dev/fake-${productKey}`,
    readonly firmware = 12,
  ) {
    super();
    this.product = PRODUCTS[productKey] as Product;
  }

  /** What node-hid would list for it. */
  get identity(): { vendorId: number; productId: number; interface: number; product: string } {
    const [productId, iface] = this.product.hidDevices[0] as [number, number];
    return { vendorId: XKEYS_VENDOR_ID, productId, interface: iface, product: this.product.name };
  }

  write(data: number[]): void {
    if (this.closed) throw new Error('fake X-keys: written after close');
    // As NodeHIDDevice does: the write is queued, and a failed one comes back as an 'error'.
    this.inFlight.push(
      Promise.resolve().then(() => {
        if (this.writeError) return void this.emit('error', this.writeError);
        this.writes.push([...data]);
        if (!this.answers) return;
        if (data[1] === GET_VERSION) this.emit('data', this.versionReport());
        if (data[1] === GENERATE_DATA) this.emit('data', this.stateReport(true));
      }),
    );
  }

  async flush(): Promise<void> {
    const writes = this.inFlight;
    this.inFlight = [];
    await Promise.all(writes);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** A key (the library's index: 1 is top left, counting down the first column) goes down. */
  press(keyIndex: number): void {
    this.pressed.add(keyIndex);
    this.emit('data', this.stateReport(false));
  }

  release(keyIndex: number): void {
    this.pressed.delete(keyIndex);
    this.emit('data', this.stateReport(false));
  }

  /** The jog wheel turned by `delta` detents: one report with the delta, then one with it back at 0, as the panel sends. */
  jog(delta: number, index = 0): void {
    const byte = (this.product.hasJog?.[index] as { jogByte: number }).jogByte;
    this.analogReport(byte, delta & 0xff);
    this.analogReport(byte, 0);
  }

  /** The shuttle held at a signed position (-7 … 7; 0 at rest). */
  shuttle(position: number, index = 0): void {
    this.analogReport((this.product.hasShuttle?.[index] as { shuttleByte: number }).shuttleByte, position & 0xff);
  }

  /** The T-bar at 0 … 255. */
  tbar(value: number, index = 0): void {
    this.analogReport((this.product.hasTbar?.[index] as { tbarByte: number }).tbarByte, value);
  }

  /** Unplugged: node-hid's read fails, and says so in the words the library looks for. */
  unplug(): void {
    this.emit('error', new Error('could not read from HID device'));
  }

  /** The reports written since a count of writes (e.g. `writes.length` before an action). */
  writesSince(from: number): number[][] {
    return this.writes.slice(from).map((w) => w.slice(0, 8));
  }

  private analogReport(byte: number, value: number): void {
    this.analog.set(byte, value);
    this.emit('data', this.stateReport(false));
  }

  /** A data report: unit id, the flags byte (bit 1: an answer to GENERATE_DATA), a bit per switch, analog bytes. */
  private stateReport(generated: boolean): Buffer {
    const report = Buffer.alloc(REPORT_BYTES);
    report[0] = this.unitId;
    report[1] = (generated ? 2 : 0) | (this.pressed.has(0) ? 1 : 0);
    for (const keyIndex of this.pressed) {
      if (keyIndex === 0) continue;
      const bit = keyIndex - 1;
      const byte = 2 + Math.floor(bit / this.product.bBits);
      report[byte] = (report[byte] as number) | (1 << bit % this.product.bBits);
    }
    for (const [byte, value] of this.analog) report[byte] = value;
    return report;
  }

  /** The answer to GET_VERSION: unit id, 214, the firmware version at byte 10, the product id after it. */
  private versionReport(): Buffer {
    const report = Buffer.alloc(REPORT_BYTES);
    report[0] = this.unitId;
    report[1] = GET_VERSION;
    report[10] = this.firmware;
    report.writeUInt16LE(this.identity.productId, 11);
    return report;
  }
}
