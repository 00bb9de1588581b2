// End to end with the shipped profiles: the real bridge and renderer against the simulator, X-keys
// panels found by the manager (the real library over fake panels). On the XK-3 foot pedal the left pedal
// starts the InSync group, a tap on the middle pedal sends nothing and a held one stops it; on the XK-24
// a key's backlight follows its channel from blue to red when it records.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfileFile } from '../../../src/profiles/load.js';
import { XkeysManager } from '../../../src/surfaces/xkeys/device-manager.js';
import { deviceBridge } from '../../support/device-bridge.js';
import type { FakeXkeysHid } from '../../support/fake-xkeys-hid.js';
import { FakeXkeysBackend } from './helpers.js';

const PROFILES = join(import.meta.dirname, '../../../profiles');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function shipped(file: string) {
  const result = await loadProfileFile(join(PROFILES, file));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.loaded;
}

/** The bridge over the simulator with one panel plugged in, bound to a shipped profile. */
async function panelUnderBridge(productKey: 'XK3FOOT' | 'XK24', file: string) {
  const t = await deviceBridge();
  cleanups.push(t.close);
  const backend = new FakeXkeysBackend();
  backend.plug('/dev/hidraw4', productKey);
  const manager = new XkeysManager({ backend, log: t.log, scanIntervalMs: 60_000, watchHotplug: null, time: t.time });
  t.follow(manager);
  cleanups.push(() => manager.stop());
  t.bridge.setProfiles([await shipped(file)]);
  manager.start();
  await manager.scan();
  const hid = backend.hidAt('/dev/hidraw4') as FakeXkeysHid;
  return { ...t, hid };
}

describe('X-keys under the bridge, with the shipped profiles', () => {
  it('XK-3 foot pedal: left starts the InSync group; the middle stops it only when held a second', async () => {
    const t = await panelUnderBridge('XK3FOOT', 'xkeys-xk-3-foot-pedal.yaml');
    expect(t.bridge.session('xkeys:xk-3-foot-pedal:0')?.profileName).toBe('X-keys XK-3 Foot Pedal');
    await t.until(() => Boolean(t.bridge.recorderStates()[0]?.channels), 'the channels read');

    let mark = t.mark();
    t.hid.press(2); // left pedal
    t.hid.release(2);
    await t.until(() => t.commands.some((r) => r.control === 'key0'), 'the left pedal\'s command');
    expect(t.commands.find((r) => r.control === 'key0')).toMatchObject({ surface: 'xkeys:xk-3-foot-pedal:0', action: 'sync-rec-start' });
    expect(t.writesSince(mark)).toHaveLength(1);

    // A tap on the middle pedal: nothing is sent.
    mark = t.mark();
    t.hid.press(3);
    await t.advance(500);
    t.hid.release(3);
    await t.advance(1000);
    expect(t.commands.filter((r) => r.control === 'key1')).toEqual([]);
    expect(t.writesSince(mark)).toEqual([]);

    // Held a second: the group stops.
    t.hid.press(3);
    await t.advance(1000);
    await t.until(() => t.commands.some((r) => r.control === 'key1'), 'the middle pedal\'s command');
    t.hid.release(3);
    expect(t.commands.filter((r) => r.control === 'key1').map((r) => r.action)).toEqual(['sync-rec-stop']);
    expect(t.writesSince(mark)).toHaveLength(1);
    expect(t.log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('XK-24: key0 is lit blue at rest, and red once its channel records', async () => {
    const t = await panelUnderBridge('XK24', 'xkeys-xk-24.yaml');
    expect(t.bridge.session('xkeys:xk-24:0')?.profileName).toBe('X-keys XK-24');
    // key0 is the library's key 1: blue LED 0, red LED 32. The newest write to each says what it shows.
    const led = (index: number) => t.hid.writes.filter((w) => w[1] === 181 && w[2] === index).at(-1)?.[3];
    await t.until(() => led(0) === 1 && led(32) === 0, 'key0 lit blue');
    t.hid.press(1);
    t.hid.release(1);
    await t.until(() => t.commands.some((r) => r.control === 'key0'), 'the key\'s command');
    expect(t.commands.find((r) => r.control === 'key0')).toMatchObject({ action: 'rec-start', result: 'ok' });
    await t.until(() => led(0) === 0 && led(32) === 1, 'key0 lit red');
  });
});
