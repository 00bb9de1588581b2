// `recdeck devices`: one line per X-keys panel plugged in, or why none can be seen. Each panel is opened
// briefly to read its unit id and firmware version, so one held by another program (or a running
// recdeck) says so.
import type { EngineTime } from '../../engine/engine-time.js';
import { messageOf } from '../../api/errors.js';
import type { XkeysBackend, XkeysListing } from './backend.js';
import { modelIdOf, xkeysProduct } from './models.js';
import { openPanel } from './panel.js';
import { explainPanelOpenError } from './problems.js';

export async function describeXkeys(backend: XkeysBackend, time: EngineTime): Promise<string[]> {
  let listings: XkeysListing[];
  try {
    listings = await backend.list();
  } catch (error) {
    return [messageOf(error)];
  }
  if (listings.length === 0) return ['No X-keys found: none is plugged in (check the cable, and that a USB hub has power)'];
  const lines: string[] = [];
  for (const listing of listings) {
    const product = xkeysProduct(listing);
    const model = product ? modelIdOf(product) : `product ${listing.productId}`;
    try {
      const panel = await openPanel(await backend.open(listing), listing, time);
      lines.push(`${model}  unit ${panel.unitId}  firmware ${panel.firmwareVersion}  ${product?.name ?? ''}  ${listing.path}`);
      await panel.close().catch(() => undefined);
    } catch (error) {
      lines.push(`${model}  ${explainPanelOpenError(listing, error)}`);
    }
  }
  return lines;
}
