import { describe, expect, it } from 'vitest';
import { nodeXkeysBackend } from '../../../src/surfaces/xkeys/backend-node.js';
import { describeXkeys } from '../../../src/surfaces/xkeys/describe.js';
import { XKEYS_LIBUSB_MISSING } from '../../../src/surfaces/xkeys/problems.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { FakeXkeysBackend } from './helpers.js';

describe('describeXkeys (recdeck devices)', () => {
  it('one line per panel: model, unit id, firmware, product name, path; each closed after', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw4', 'XK3FOOT', 0);
    backend.plug('/dev/hidraw5', 'XK24', 7);
    expect(await describeXkeys(backend, new VirtualTime())).toEqual([
      'xk-3-foot-pedal  unit 0  firmware 12  XK-3 Foot Pedal  /dev/hidraw4',
      'xk-24  unit 7  firmware 12  XK-24  /dev/hidraw5',
    ]);
    expect(backend.opened.every((hid) => hid.closed)).toBe(true);
  });

  it('a panel that cannot be opened says why', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw5', 'XK24');
    backend.openErrors.set('/dev/hidraw5', new Error('cannot open device with path /dev/hidraw5'));
    const [line] = await describeXkeys(backend, new VirtualTime());
    expect(line).toMatch(/^xk-24 {2}X-keys xk-24 at \/dev\/hidraw5 cannot be opened .*another program .*recdeck setup-udev/);
  });

  it('none plugged in, or no libusb: says so', async () => {
    expect(await describeXkeys(new FakeXkeysBackend(), new VirtualTime())).toEqual(['No X-keys found: none is plugged in (check the cable, and that a USB hub has power)']);
    const backend = nodeXkeysBackend({ load: () => Promise.reject(new Error('libusb-1.0.so.0: cannot open shared object file: No such file or directory')) });
    expect(await describeXkeys(backend, new VirtualTime())).toEqual([XKEYS_LIBUSB_MISSING]);
  });
});
