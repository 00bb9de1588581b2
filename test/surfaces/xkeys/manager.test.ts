// The X-keys manager over a fake backend whose panels are the real library's XKeys over fake HID
// devices, on virtual time: found at a scan, hot-plugged, unplugged, failed and reopened, told apart by
// unit id, and a panel that never answers given up on in bounded time.
import { describe, expect, it } from 'vitest';
import type { HotplugEvent } from '../../../src/surfaces/usb-device-manager.js';
import { nodeXkeysBackend } from '../../../src/surfaces/xkeys/backend-node.js';
import type { XkeysBackend } from '../../../src/surfaces/xkeys/backend.js';
import { XkeysManager } from '../../../src/surfaces/xkeys/device-manager.js';
import { XKEYS_LIBUSB_MISSING } from '../../../src/surfaces/xkeys/problems.js';
import { managerHarness, type ManagerTiming } from '../../support/usb-managers.js';
import { settle } from '../../support/virtual-time.js';
import { FakeXkeysBackend } from './helpers.js';

const harness = managerHarness();
const managed = (backend: XkeysBackend, timing: ManagerTiming = {}) => harness((options) => new XkeysManager({ ...options, backend }), timing);

describe('XkeysManager', () => {
  it('opens the panels plugged in, as surfaces named by model and unit id', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw4', 'XK3FOOT');
    backend.plug('/dev/hidraw5', 'XK24', 2);
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-3-foot-pedal:0', 'added xkeys:xk-24:2']);
    expect(log.lines).toContainEqual({ level: 'info', message: 'xkeys:xk-24:2 (XK-24): connected at /dev/hidraw5' });
  });

  it('a hot-plug event for P.I. Engineering’s vendor id scans once the device has settled', async () => {
    const backend = new FakeXkeysBackend();
    let notify: ((event: HotplugEvent) => void) | null = null;
    let watchedVendor = 0;
    const { manager, summary, advance } = managed(backend, {
      watchHotplug: async (vendorId, onEvent) => {
        watchedVendor = vendorId;
        notify = onEvent;
        return () => (notify = null);
      },
    });
    manager.start();
    await manager.scan();
    expect(watchedVendor).toBe(0x05f3);
    backend.plug('/dev/hidraw6', 'XK24', 1);
    (notify as ((event: HotplugEvent) => void) | null)?.('attach');
    await advance(299);
    expect(summary()).toEqual([]);
    await advance(1);
    expect(summary()).toEqual(['added xkeys:xk-24:1']);
    await manager.stop();
    expect(notify).toBeNull();
  });

  it('unplugged (the library sees its read fail): removed at once, and back under the same id when it returns', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw4', 'XK3FOOT');
    const { manager, events, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    const first = backend.hidAt('/dev/hidraw4');
    first?.unplug();
    await settle(() => first?.closed === true, 'the device closed');
    expect(summary()).toEqual(['added xkeys:xk-3-foot-pedal:0', 'removed xkeys:xk-3-foot-pedal:0']);
    expect(log.lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'xkeys:xk-3-foot-pedal:0 (XK-3 Foot Pedal): disconnected: the panel went away; closed until the device is seen again',
    ]);
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-3-foot-pedal:0', 'removed xkeys:xk-3-foot-pedal:0', 'added xkeys:xk-3-foot-pedal:0']);
    const [added, , again] = events;
    expect(added?.type === 'added' && again?.type === 'added' && added.surface !== again.surface).toBe(true);
  });

  it('gone from the listing: removed and closed at the next scan', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw5', 'XK24');
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    backend.plugged.delete('/dev/hidraw5');
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-24:0', 'removed xkeys:xk-24:0']);
    expect(backend.hidAt('/dev/hidraw5')?.closed).toBe(true);
    expect(log.lines).toContainEqual({ level: 'info', message: 'xkeys:xk-24:0 (XK-24): unplugged' });
  });

  it('two panels of one model with one unit id: the second is not used, and the fix is named', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw5', 'XK24', 0);
    backend.plug('/dev/hidraw6', 'XK24', 0);
    backend.plug('/dev/hidraw7', 'XK24', 1);
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-24:0', 'added xkeys:xk-24:1']);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      "X-keys xk-24 unit 0 at /dev/hidraw6: another open X-keys has the same model and unit id: give each panel its own unit id (P.I. Engineering's MacroWorks sets it); not used",
    ]);
    expect(backend.hidAt('/dev/hidraw6')?.closed).toBe(true);
  });

  it('a panel another program holds: said once, retried at every scan until it opens', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw5', 'XK24');
    backend.openErrors.set('/dev/hidraw5', new Error('cannot open device with path /dev/hidraw5'));
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    await manager.scan();
    const warnings = log.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('X-keys xk-24 at /dev/hidraw5 cannot be opened (cannot open device with path /dev/hidraw5): another program may be using it');
    expect(warnings[0]).toContain("P.I. Engineering's MacroWorks");
    backend.openErrors.clear();
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-24:0']);
  });

  it('a panel that never answers the library: given up after 3 s of engine time, closed, said, tried again', async () => {
    const backend = new FakeXkeysBackend();
    backend.plug('/dev/hidraw5', 'XK24');
    backend.silent.add('/dev/hidraw5');
    const { manager, summary, log, advance } = managed(backend);
    const warnings = () => log.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    manager.start(); // its first scan waits for the panel
    await advance(2999);
    expect(warnings()).toEqual([]);
    await advance(1);
    await settle(() => warnings().length > 0, 'the panel given up on');
    expect(summary()).toEqual([]);
    expect(backend.hidAt('/dev/hidraw5')?.closed).toBe(true);
    expect(warnings()).toEqual([
      'X-keys xk-24 at /dev/hidraw5 could not be opened: the panel did not answer within 3 s (asked for its firmware version and unit id); trying again at every scan',
    ]);
    backend.silent.clear();
    await manager.scan();
    expect(summary()).toEqual(['added xkeys:xk-24:0']);
  });

  it('without libusb: says what to install, once, and runs on with no X-keys', async () => {
    const backend = nodeXkeysBackend({ load: () => Promise.reject(new Error('libusb-1.0.so.0: cannot open shared object file: No such file or directory')) });
    const { manager, log, summary } = managed(backend);
    manager.start();
    await manager.scan();
    await manager.scan();
    expect(log.lines).toEqual([{ level: 'warn', message: XKEYS_LIBUSB_MISSING }]);
    expect(XKEYS_LIBUSB_MISSING).toBe('X-keys support needs libusb at run time: install the libusb-1.0-0 package (Debian/Ubuntu: apt-get install libusb-1.0-0)');
    expect(summary()).toEqual([]);
  });

  it('the real libraries on this machine load lazily and list (no X-keys plugged in here)', async () => {
    const listed = await nodeXkeysBackend()
      .list()
      .then((listings) => ({ listings }))
      .catch((error: Error) => ({ error: error.message }));
    if ('error' in listed) expect(listed.error).toBe(XKEYS_LIBUSB_MISSING);
    else expect(listed.listings.every((l) => l.vendorId === 0x05f3)).toBe(true);
  });
});
