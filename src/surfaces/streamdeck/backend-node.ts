// The real backend: @elgato-stream-deck/node over node-hid. It is loaded only when first needed, and
// any failure to load it (node-hid's native module needs libusb on Linux) becomes a HidSupportError
// with a message that says what to install, so the rest of recdeck runs on without Stream Decks.
import type { StreamDeck } from '@elgato-stream-deck/core';
import type { StreamDeckBackend, StreamDeckListing } from './backend.js';
import { HidSupportError, lazyLibrary } from '../hid-support.js';
import { STREAM_DECK } from './problems.js';

/** The part of '@elgato-stream-deck/node' used here. */
export interface StreamDeckNodeLibrary {
  listStreamDecks(): Promise<Array<{ path: string; serialNumber?: string | undefined; model: string }>>;
  openStreamDeck(path: string): Promise<StreamDeck>;
}

export interface NodeBackendOptions {
  /** Loads the library; tests inject one that fails. */
  load?: () => Promise<StreamDeckNodeLibrary>;
}

const loadNodeLibrary = (): Promise<StreamDeckNodeLibrary> => import('@elgato-stream-deck/node');

export function nodeStreamDeckBackend(options: NodeBackendOptions = {}): StreamDeckBackend {
  const load = options.load ?? loadNodeLibrary;
  const library = lazyLibrary(STREAM_DECK, load);

  return {
    async list(): Promise<StreamDeckListing[]> {
      const sdk = await library();
      let found: Awaited<ReturnType<StreamDeckNodeLibrary['listStreamDecks']>>;
      try {
        found = await sdk.listStreamDecks();
      } catch (error) {
        // node-hid loads its native module on first use, so a missing libusb shows up here.
        throw new HidSupportError(STREAM_DECK, error, 'list');
      }
      return found.map((d) => ({ path: d.path, model: d.model, ...(d.serialNumber ? { serialNumber: d.serialNumber } : {}) }));
    },
    async open(path: string): Promise<StreamDeck> {
      return (await library()).openStreamDeck(path);
    },
  };
}
