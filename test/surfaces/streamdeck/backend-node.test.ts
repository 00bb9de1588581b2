import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { nodeStreamDeckBackend, type StreamDeckNodeLibrary } from '../../../src/surfaces/streamdeck/backend-node.js';
import { LIBUSB_MISSING, StreamDeckSupportError } from '../../../src/surfaces/streamdeck/problems.js';
import { openFakeStreamDeck } from '../../support/fake-hid.js';

// The text node-hid's native module fails with on a machine without libusb (as on this one).
const LIBUSB_ERROR_TEXT = 'libusb-1.0.so.0: cannot open shared object file: No such file or directory';

describe('the @elgato-stream-deck/node backend', () => {
  it('when the library cannot load for want of libusb: says to install libusb-1.0-0', async () => {
    const backend = nodeStreamDeckBackend({ load: () => Promise.reject(new Error(LIBUSB_ERROR_TEXT)) });
    const error = await backend.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamDeckSupportError);
    expect((error as Error).message).toBe(LIBUSB_MISSING);
    expect(LIBUSB_MISSING).toBe('Stream Deck support needs libusb at run time: install the libusb-1.0-0 package (Debian/Ubuntu: apt-get install libusb-1.0-0)');
    await expect(backend.open('/dev/hidraw0')).rejects.toThrow(LIBUSB_MISSING);
  });

  it('node-hid loads its native module lazily: a libusb failure while listing says the same', async () => {
    const library: StreamDeckNodeLibrary = {
      listStreamDecks: () => Promise.reject(new Error(LIBUSB_ERROR_TEXT)),
      openStreamDeck: () => Promise.reject(new Error('not reached')),
    };
    await expect(nodeStreamDeckBackend({ load: async () => library }).list()).rejects.toThrow(LIBUSB_MISSING);
  });

  it('the real library on this machine: no crash, the libusb message (or a plain list where libusb exists)', async () => {
    const listed = await nodeStreamDeckBackend()
      .list()
      .then((list) => ({ list }))
      .catch((error: unknown) => ({ error: (error as Error).message }));
    if ('error' in listed) expect(listed.error).toBe(LIBUSB_MISSING);
    else expect(Array.isArray(listed.list)).toBe(true);
  });

  it('other load failures are said plainly, and loading is tried again next time', async () => {
    let attempts = 0;
    const backend = nodeStreamDeckBackend({
      load: () => {
        attempts += 1;
        return Promise.reject(Object.assign(new Error("Cannot find package '@elgato-stream-deck/node'"), { code: 'ERR_MODULE_NOT_FOUND' }));
      },
    });
    await expect(backend.list()).rejects.toThrow(/Stream Deck support is not installed .*npm install/);
    await expect(backend.list()).rejects.toThrow(StreamDeckSupportError);
    expect(attempts).toBe(2);
    const broken = nodeStreamDeckBackend({ load: () => Promise.reject(new Error('bad ELF header')) });
    await expect(broken.list()).rejects.toThrow('Stream Deck support could not be loaded: bad ELF header');
  });

  it('lists and opens through the library once loaded (once)', async () => {
    let loads = 0;
    const { deck } = await openFakeStreamDeck(DeviceModelId.PLUS);
    const backend = nodeStreamDeckBackend({
      load: async () => {
        loads += 1;
        return {
          listStreamDecks: async () => [
            { path: '/dev/hidraw4', serialNumber: 'CL1', model: 'plus' },
            { path: '/dev/hidraw5', serialNumber: undefined, model: 'mini' },
          ],
          openStreamDeck: async () => deck,
        };
      },
    });
    expect(await backend.list()).toEqual([
      { path: '/dev/hidraw4', serialNumber: 'CL1', model: 'plus' },
      { path: '/dev/hidraw5', model: 'mini' },
    ]);
    expect(await backend.open('/dev/hidraw4')).toBe(deck);
    expect(loads).toBe(1);
  });
});
