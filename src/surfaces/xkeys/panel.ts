// Opens an X-keys panel over its HID transport: the library's XKeys, initialised. The library's init
// asks the panel for its firmware version and unit id and waits for both answers with no limit of its
// own; a panel that does not answer (another program switched its mode, a half-enumerated device) would
// hang the scan, so it is given a bounded time on the engine's clock, then closed.
import { XKeys, type HIDDevice } from '@xkeys-lib/core';
import type { EngineTime } from '../../engine/engine-time.js';
import type { XkeysListing } from './backend.js';

/** How long a panel has to answer the library's first questions. */
export const PANEL_ANSWER_MS = 3000;

export async function openPanel(hid: HIDDevice, listing: XkeysListing, time: EngineTime, answerMs = PANEL_ANSWER_MS): Promise<XKeys> {
  let panel: XKeys;
  try {
    panel = new XKeys(hid, { product: listing.product, vendorId: listing.vendorId, productId: listing.productId, interface: listing.interface }, listing.path);
  } catch (error) {
    await hid.close().catch(() => undefined);
    throw error;
  }
  let failed: (error: unknown) => void = () => undefined;
  // Until the surface listens, an error from the device fails the opening (an 'error' nobody hears would throw).
  const onError = (error: unknown) => failed(error);
  panel.on('error', onError);
  let timer: { unsubscribe(): void } | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      failed = reject;
      timer = time.scheduler.schedule(() => reject(new Error(`the panel did not answer within ${answerMs / 1000} s (asked for its firmware version and unit id)`)), answerMs);
      panel.init().then(resolve, reject);
    });
  } catch (error) {
    // A closed panel's late errors mean nothing, but an 'error' nobody hears would throw.
    panel.on('error', () => undefined);
    await panel.close().catch(() => undefined);
    throw error;
  } finally {
    (timer as { unsubscribe(): void } | null)?.unsubscribe();
    panel.removeListener('error', onError);
  }
  return panel;
}
