// `recdeck devices`: one line per Stream Deck plugged in, or why none can be seen. Each device is opened
// briefly to read its firmware version, so one held by another program (or a running recdeck) says so.
import type { StreamDeck } from '@elgato-stream-deck/core';
import { messageOf } from '../../api/errors.js';
import type { StreamDeckBackend, StreamDeckListing } from './backend.js';
import { shortModelId } from './models.js';
import { explainOpenError } from './problems.js';

export async function describeStreamDecks(backend: StreamDeckBackend): Promise<string[]> {
  let listings: StreamDeckListing[];
  try {
    listings = await backend.list();
  } catch (error) {
    return [messageOf(error)];
  }
  if (listings.length === 0) return ['No Stream Deck found: none is plugged in (check the cable, and that a USB hub has power)'];
  const lines: string[] = [];
  for (const listing of listings) {
    const model = shortModelId(listing.model);
    let deck: StreamDeck | null = null;
    try {
      deck = await backend.open(listing.path);
      const serial = listing.serialNumber || (await deck.getSerialNumber());
      const firmware = await deck.getFirmwareVersion();
      lines.push(`${model}  serial ${serial}  firmware ${firmware}  ${deck.PRODUCT_NAME}  ${listing.path}`);
    } catch (error) {
      lines.push(`${model}  serial ${listing.serialNumber ?? 'unknown'}  ${deck === null ? explainOpenError(listing, error, model) : `could not be read: ${messageOf(error)}`}`);
    } finally {
      await deck?.close().catch(() => undefined);
    }
  }
  return lines;
}
