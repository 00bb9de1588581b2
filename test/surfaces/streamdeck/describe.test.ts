import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { nodeStreamDeckBackend } from '../../../src/surfaces/streamdeck/backend-node.js';
import { describeStreamDecks } from '../../../src/surfaces/streamdeck/describe.js';
import { LIBUSB_MISSING } from '../../../src/surfaces/streamdeck/problems.js';
import { FakeStreamDeckBackend } from './helpers.js';

describe('describeStreamDecks (recdeck devices)', () => {
  it('one line per deck: model, serial, firmware, product name, path; each closed after', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.PLUS, 'CL1PLUS');
    backend.plug('/dev/hidraw2', DeviceModelId.ORIGINAL, 'AL2ORIG');
    backend.plug('/dev/hidraw3', DeviceModelId.PEDAL, 'FP3PEDAL0000');
    expect(await describeStreamDecks(backend)).toEqual([
      'plus  serial CL1PLUS  firmware 1.05.007  Stream Deck +  /dev/hidraw1',
      'original  serial AL2ORIG  firmware 1.05.007  Stream Deck  /dev/hidraw2',
      'pedal  serial FP3PEDAL0000  firmware 1.05.007  Stream Deck Pedal  /dev/hidraw3',
    ]);
    expect(backend.opened.every((hid) => hid.closed)).toBe(true);
  });

  it('a deck that cannot be opened says why', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.XL, 'CL4XL');
    backend.openErrors.set('/dev/hidraw1', new Error('cannot open device with path /dev/hidraw1'));
    const [line] = await describeStreamDecks(backend);
    expect(line).toMatch(/^xl {2}serial CL4XL {2}Stream Deck xl CL4XL at \/dev\/hidraw1 cannot be opened .*another program .*recdeck setup-udev/);
  });

  it('none plugged in', async () => {
    expect(await describeStreamDecks(new FakeStreamDeckBackend())).toEqual(['No Stream Deck found: none is plugged in (check the cable, and that a USB hub has power)']);
  });

  it('no libusb: says so instead', async () => {
    const backend = nodeStreamDeckBackend({ load: () => Promise.reject(new Error('libusb-1.0.so.0: cannot open shared object file: No such file or directory')) });
    expect(await describeStreamDecks(backend)).toEqual([LIBUSB_MISSING]);
  });
});
