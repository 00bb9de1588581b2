// Shared by the X-keys tests: panels over in-memory HID devices, opened by the real library.
import type { HIDDevice } from '@xkeys-lib/core';
import type { XkeysBackend, XkeysListing } from '../../../src/surfaces/xkeys/backend.js';
import { xkeysProduct } from '../../../src/surfaces/xkeys/models.js';
import { openPanel } from '../../../src/surfaces/xkeys/panel.js';
import { XkeysSurface } from '../../../src/surfaces/xkeys/xkeys-surface.js';
import type { SurfaceInput } from '../../../src/engine/surface.js';
import { FakeXkeysHid, type ProductKey } from '../../support/fake-xkeys-hid.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { recordingLogger, type RecordingLogger } from '../streamdeck/helpers.js';
import { realTime } from '../../../src/engine/engine-time.js';

export { recordingLogger };

export function listingOf(hid: FakeXkeysHid): XkeysListing {
  return { path: hid.path, ...hid.identity };
}

export interface PanelFixture {
  surface: XkeysSurface;
  hid: FakeXkeysHid;
  log: RecordingLogger;
  inputs: SurfaceInput[];
  failures: unknown[];
}

/** An XkeysSurface over the library's XKeys, opened over a fake panel of that model. */
export async function fakePanel(productKey: ProductKey, unitId = 0): Promise<PanelFixture> {
  const hid = new FakeXkeysHid(productKey, unitId);
  const listing = listingOf(hid);
  const panel = await openPanel(hid, listing, new VirtualTime());
  const log = recordingLogger();
  const failures: unknown[] = [];
  const product = xkeysProduct(listing);
  if (!product) throw new Error(`${productKey} is no X-keys product`);
  const surface = new XkeysSurface(panel, { time: realTime, product, log, onFailure: (_s, error) => failures.push(error) });
  const inputs: SurfaceInput[] = [];
  surface.input.subscribe((input) => inputs.push(input));
  return { surface, hid, log, inputs, failures };
}

/** Panels "plugged in" by path; each open hands out a fresh fake HID device. */
export class FakeXkeysBackend implements XkeysBackend {
  readonly plugged = new Map<string, { productKey: ProductKey; unitId: number }>();
  readonly opened: FakeXkeysHid[] = [];
  /** When set for a path, opening it fails with this error (another program holds the panel). */
  readonly openErrors = new Map<string, Error>();
  /** Paths whose panels do not answer when opened. */
  readonly silent = new Set<string>();

  plug(path: string, productKey: ProductKey, unitId = 0): void {
    this.plugged.set(path, { productKey, unitId });
  }

  async list(): Promise<XkeysListing[]> {
    return [...this.plugged].map(([path, p]) => listingOf(new FakeXkeysHid(p.productKey, p.unitId, path)));
  }

  async open(listing: XkeysListing): Promise<HIDDevice> {
    const error = this.openErrors.get(listing.path);
    if (error) throw error;
    const plugged = this.plugged.get(listing.path);
    if (!plugged) throw new Error(`cannot open device with path ${listing.path}`);
    const hid = new FakeXkeysHid(plugged.productKey, plugged.unitId, listing.path);
    hid.answers = !this.silent.has(listing.path);
    this.opened.push(hid);
    return hid;
  }

  /** The fake device most recently opened at a path. */
  hidAt(path: string): FakeXkeysHid | undefined {
    return this.opened.filter((hid) => hid.path === path).at(-1);
  }
}
