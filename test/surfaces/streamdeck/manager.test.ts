// The manager over a fake backend whose decks are real library StreamDecks over fake HID devices, on
// virtual time: its periodic scans and the settling after a plug event run when the test moves the clock.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { StreamDeckManager } from '../../../src/surfaces/streamdeck/device-manager.js';
import type { HotplugEvent } from '../../../src/surfaces/usb-device-manager.js';
import { nodeStreamDeckBackend } from '../../../src/surfaces/streamdeck/backend-node.js';
import { LIBUSB_MISSING } from '../../../src/surfaces/streamdeck/problems.js';
import type { StreamDeckBackend } from '../../../src/surfaces/streamdeck/backend.js';
import type { StreamDeckSurface } from '../../../src/surfaces/streamdeck/streamdeck-surface.js';
import { managerHarness, type ManagerTiming } from '../../support/usb-managers.js';
import { settle } from '../../support/virtual-time.js';
import { FakeStreamDeckBackend, show } from './helpers.js';

const harness = managerHarness();
const managed = (backend: StreamDeckBackend, timing: ManagerTiming = {}) => harness((options) => new StreamDeckManager({ ...options, backend }), timing);

describe('StreamDeckManager', () => {
  it('opens what is plugged in, as surfaces with ids from their serial numbers', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.PLUS, 'CL1PLUS');
    backend.plug('/dev/hidraw2', DeviceModelId.PEDAL, 'CL2PEDAL');
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL1PLUS', 'added streamdeck:CL2PEDAL']);
    expect(manager.surfaces.map((s) => s.model)).toEqual(['plus', 'pedal']);
    expect(log.lines).toContainEqual({ level: 'info', message: 'streamdeck:CL1PLUS (Stream Deck +): connected at /dev/hidraw1' });
  });

  it('asks the device for its serial number when the listing has none', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plugged.set('/dev/hidraw1', { model: DeviceModelId.ORIGINALMK2, serial: 'CL3FROMDEVICE', serialInListing: false });
    const { manager, summary } = managed(backend);
    manager.start();
    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL3FROMDEVICE']);
  });

  it('a device error removes the surface; the next scan brings it back under the same id', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.ORIGINALMK2, 'CL4');
    const { manager, events, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    const firstHid = backend.hidAt('/dev/hidraw1');
    firstHid?.fail(new Error('could not read from HID device'));
    await Promise.resolve();
    expect(summary()).toEqual(['added streamdeck:CL4', 'removed streamdeck:CL4']);
    expect(manager.surfaces).toEqual([]);
    await settle(() => firstHid?.closed === true, 'the device closed');
    expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(1);

    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL4', 'removed streamdeck:CL4', 'added streamdeck:CL4']);
    const [first, , again] = events;
    expect(first?.type === 'added' && again?.type === 'added' && first.surface !== again.surface).toBe(true);
    expect(backend.opened).toHaveLength(2);
  });

  it('a write error does the same', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.XL, 'CL5');
    const { manager, summary } = managed(backend);
    manager.start();
    await manager.scan();
    const hid = backend.hidAt('/dev/hidraw1');
    if (hid) hid.writeError = new Error('could not write to HID device');
    await show(manager.surfaces[0] as StreamDeckSurface, { type: 'brightness', percent: 40 });
    expect(summary()).toEqual(['added streamdeck:CL5', 'removed streamdeck:CL5']);
    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL5', 'removed streamdeck:CL5', 'added streamdeck:CL5']);
  });

  it('unplugged: removed and closed at the next scan', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.MINI, 'CL6');
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    backend.plugged.delete('/dev/hidraw1');
    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL6', 'removed streamdeck:CL6']);
    expect(backend.hidAt('/dev/hidraw1')?.closed).toBe(true);
    expect(log.lines).toContainEqual({ level: 'info', message: 'streamdeck:CL6 (Stream Deck Mini): unplugged' });
  });

  it('a device another program holds: said once, naming serial and path, retried each scan until it opens', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw7', DeviceModelId.ORIGINALMK2, 'CL7BUSY');
    backend.openErrors.set('/dev/hidraw7', new Error('cannot open device with path /dev/hidraw7'));
    const { manager, summary, log } = managed(backend);
    manager.start();
    await manager.scan();
    await manager.scan();
    await manager.scan();
    const warnings = log.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('Stream Deck mk2 CL7BUSY at /dev/hidraw7 cannot be opened (cannot open device with path /dev/hidraw7): another program may be using it');
    expect(warnings[0]?.message).toContain('trying again at every scan');
    expect(summary()).toEqual([]);

    backend.openErrors.clear();
    await manager.scan();
    expect(summary()).toEqual(['added streamdeck:CL7BUSY']);

    // A new spell of trouble is told again.
    backend.hidAt('/dev/hidraw7')?.fail(new Error('gone'));
    backend.openErrors.set('/dev/hidraw7', new Error('cannot open device with path /dev/hidraw7'));
    await manager.scan();
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('a hot-plug event for the vendor scans promptly', async () => {
    const backend = new FakeStreamDeckBackend();
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
    expect(watchedVendor).toBe(0x0fd9);
    backend.plug('/dev/hidraw3', DeviceModelId.NEO, 'CL8NEO');
    (notify as ((event: HotplugEvent) => void) | null)?.('attach');
    // No scan asked for here: the event alone brings the deck in once the device has settled (300 ms),
    // though the periodic scan is half a minute away.
    await advance(299);
    expect(summary()).toEqual([]);
    await advance(1);
    expect(summary()).toEqual(['added streamdeck:CL8NEO']);
    await manager.stop();
    expect(notify).toBeNull();
  });

  it('while hot-plug events are heard, the fallback scan runs every 30 s instead of every 5 s', async () => {
    const count = async (watchHotplug: ManagerTiming['watchHotplug']) => {
      const backend = new FakeStreamDeckBackend();
      let listings = 0;
      const list = backend.list.bind(backend);
      backend.list = () => (listings++, list());
      const { manager, advance } = managed(backend, { scanIntervalMs: 5000, watchHotplug });
      manager.start();
      await advance(60_000);
      await manager.stop();
      return listings;
    };
    expect(await count(null)).toBe(13); // at start, then every 5 s
    expect(await count(async () => () => undefined)).toBe(3); // at start, then every 30 s
  });

  it('hot-plug unavailable: said once, and scanning carries on', async () => {
    const backend = new FakeStreamDeckBackend();
    const { manager, log } = managed(backend, { watchHotplug: () => Promise.reject(new Error('usb: no hotplug')) });
    manager.start();
    await manager.scan();
    expect(log.lines).toContainEqual({ level: 'info', message: 'USB hot-plug events unavailable (usb: no hotplug): Stream Decks are found by scanning every 60 s' });
  });

  it('stop closes every device and reports each removed', async () => {
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.STUDIO, 'CL9');
    backend.plug('/dev/hidraw2', DeviceModelId.ORIGINAL, 'CL10');
    const { manager, summary } = managed(backend);
    manager.start();
    await manager.scan();
    await manager.stop();
    expect(summary()).toEqual(['added streamdeck:CL9', 'added streamdeck:CL10', 'removed streamdeck:CL9', 'removed streamdeck:CL10']);
    expect(backend.opened.every((hid) => hid.closed)).toBe(true);
    await manager.scan(); // stopped: nothing happens
    expect(summary()).toHaveLength(4);
  });

  it('without libusb: says what to install, once, and runs on with no Stream Decks', async () => {
    const backend = nodeStreamDeckBackend({ load: () => Promise.reject(new Error('libusb-1.0.so.0: cannot open shared object file: No such file or directory')) });
    const { manager, log, summary } = managed(backend);
    manager.start();
    await manager.scan();
    await manager.scan();
    expect(log.lines).toEqual([{ level: 'warn', message: LIBUSB_MISSING }]);
    expect(summary()).toEqual([]);
  });
});
