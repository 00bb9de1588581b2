// End to end with the shipped profiles: the real bridge and renderer against the simulator, X-keys
// panels found by the manager (the real library over fake panels). On the XK-3 foot pedal the left pedal
// starts the InSync group, a tap on the middle pedal sends nothing and a held one stops it; on the XK-24
// a key's backlight follows its channel from blue to red when it records.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import type { CommandRecord } from '../../../src/engine/log.js';
import { loadProfileFile } from '../../../src/profiles/load.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { XkeysManager } from '../../../src/surfaces/xkeys/device-manager.js';
import type { FakeXkeysHid } from '../../support/fake-xkeys-hid.js';
import { lastSeq, startFixture, writesSince } from '../../support/simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo, untilWithIo } from '../../support/virtual-time.js';
import { FakeXkeysBackend, recordingLogger } from './helpers.js';

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
  const time = new VirtualTime();
  const fixture = await startFixture({ now: time.now, grid: 16 });
  cleanups.push(() => fixture.close());
  const log = recordingLogger();
  const client = new RecorderClient({ url: fixture.sim.url, token: fixture.sim.token });
  const requests = new RequestCounter(client, time);
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 100, slowMs: 500, meterMs: 100, thumbnailMs: 500, time });
  const backend = new FakeXkeysBackend();
  backend.plug('/dev/hidraw4', productKey);
  const manager = new XkeysManager({ backend, log, scanIntervalMs: 60_000, watchHotplug: null, time });
  manager.surfaces$.subscribe((event) => (event.type === 'added' ? bridge.addSurface(event.surface) : bridge.removeSurface(event.id)));
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
  cleanups.push(async () => {
    await bridge.stop();
    await manager.stop();
    await client.close();
  });
  bridge.start();
  bridge.setProfiles([await shipped(file)]);
  manager.start();
  await manager.scan();
  const hid = backend.hidAt('/dev/hidraw4') as FakeXkeysHid;
  return {
    bridge,
    hid,
    log,
    commands,
    mark: () => lastSeq(fixture.sim),
    writesSince: (mark: number) => writesSince(fixture.sim, mark),
    until: (check: () => boolean, what: string) => untilWithIo(time, quiet, check, what),
    advance: (ms: number) => advanceWithIo(time, ms, quiet),
  };
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
