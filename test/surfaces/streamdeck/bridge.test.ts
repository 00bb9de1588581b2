// End to end: the real bridge and renderer against the simulator, a Stream Deck + found by the manager
// (a real library StreamDeck over a fake HID device). Pictures reach the device as HID reports, a dial
// turn reaches the recorder, and after a device error the reopened deck is drawn again from scratch.
// Time is virtual: the bridge, the manager and the simulator share one clock the test moves.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import type { CommandRecord } from '../../../src/engine/log.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { StreamDeckManager } from '../../../src/surfaces/streamdeck/device-manager.js';
import { parseTestProfile } from '../../support/bridge.js';
import type { FakeHidDevice } from '../../support/fake-hid.js';
import { startFixture } from '../../support/simulator.js';
import { RequestCounter, VirtualTime, untilWithIo } from '../../support/virtual-time.js';
import { FakeStreamDeckBackend, recordingLogger } from './helpers.js';
import { gen2KeyImages, lcdRegionImages } from './reports.js';

const PROFILE = `
name: plus on the desk
match: { kind: streamdeck, model: plus }
pages:
  - name: main
    controls:
      key0: { show: { channel: 1 }, press: { action: rec-start, channel: 1 } }
      dial0: { show: { meter: 1 }, turn: { action: gain-step, channel: 1, db: 0.5 } }
`;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


const drewKey0 = (hid: FakeHidDevice | undefined) => hid !== undefined && gen2KeyImages(hid.reportsSince()).some((image) => image.hidIndex === 0);
const drewStrip0 = (hid: FakeHidDevice | undefined) => hid !== undefined && lcdRegionImages(hid.reportsSince()).some((region) => region.x === 0 && region.width === 200);

describe('a Stream Deck + under the bridge', () => {
  it('is drawn, drives the recorder, and is redrawn in full when it comes back after an error', async () => {
    const time = new VirtualTime();
    const fixture = await startFixture({ clock: time, grid: 16 });
    cleanups.push(() => fixture.close());
    const log = recordingLogger();
    const client = new RecorderClient({ url: fixture.sim.url, token: fixture.sim.token });
    const requests = new RequestCounter(client, time);
    const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 100, slowMs: 500, meterMs: 100, thumbnailMs: 500, time });
    const backend = new FakeStreamDeckBackend();
    backend.plug('/dev/hidraw1', DeviceModelId.PLUS, 'CLE2E');
    const manager = new StreamDeckManager({ backend, log, scanIntervalMs: 60_000, watchHotplug: null, time });
    manager.surfaces$.subscribe((event) => (event.type === 'added' ? bridge.addSurface(event.surface) : bridge.removeSurface(event.id)));
    const commands: CommandRecord[] = [];
    bridge.commands$.subscribe((record) => commands.push(record));
    const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
    const until = (check: () => boolean, what: string) => untilWithIo(time, quiet, check, what);
    cleanups.push(async () => {
      await bridge.stop();
      await manager.stop();
      await client.close();
    });
    bridge.start();
    bridge.setProfiles([parseTestProfile(PROFILE)]);
    manager.start();
    await manager.scan();

    const first = backend.hidAt('/dev/hidraw1');
    await until(() => drewKey0(first) && drewStrip0(first), 'key0 and strip0 drawn on the device');
    expect(log.lines.filter((l) => l.level !== 'info')).toEqual([]);

    // Turn dial0 three detents down, as the device reports it, once the bridge knows the channel's source
    // and the source list (a gain step is refused before: "channel 1 has no known source").
    await until(() => Boolean(bridge.recorderStates()[0]?.sources && bridge.recorderStates()[0]?.channels), 'the sources and channels read');
    first?.input([0x03, 0x05, 0x00, 0x01, 0xfd, 0, 0, 0]);
    await until(() => commands.some((r) => r.control === 'dial0'), 'the dial\'s command');
    const record = commands.find((r) => r.control === 'dial0');
    expect(record).toMatchObject({ surface: 'streamdeck:CLE2E', action: 'gain-step', result: 'ok' });
    expect(record?.request).toMatch(/^PUT \/api\/sources\/0/);

    first?.fail(new Error('could not read from HID device'));
    expect(bridge.session('streamdeck:CLE2E')).toBeUndefined();
    await manager.scan();
    const second = backend.hidAt('/dev/hidraw1');
    expect(second).not.toBe(first);
    await until(() => drewKey0(second) && drewStrip0(second), 'key0 and strip0 drawn again on the reopened device');
    expect(bridge.session('streamdeck:CLE2E')?.profileName).toBe('plus on the desk');

    // On exit the bridge blanks the deck: gen 2 full-panel clear.
    await bridge.stop();
    expect(second?.featuresSince().some((f) => f[0] === 0x03 && f[1] === 0x05)).toBe(true);
  });
});
