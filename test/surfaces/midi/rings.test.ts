// Motors and LED rings, like LEDs, are sent only what changed: the shipped X-Touch Mini map and profile
// under the real bridge (virtual time, meters read 4 times a second as `recdeck run` does) and the real
// @julusian/midi over a fake RtMidi. With the gains still and only the meters moving, the device hears
// nothing at all; a gain that changes moves its ring once; a device opened again gets every ring again.
import { afterEach, expect, it } from 'vitest';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import type { MeterPicture } from '../../../src/engine/picture.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { FakeMidiSystem } from '../../support/fake-midi.js';
import { startFixture } from '../../support/simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo } from '../../support/virtual-time.js';
import { startShippedMidi } from './helpers.js';
import { realClock } from '../../../src/api/clock.js';

const PORT = 'X-TOUCH MINI:X-TOUCH MINI MIDI 1 24:0';
/** The knobs' rings: CC 1-8 on channel 11. */
const isRing = (bytes: number[]) => bytes[0] === 0xba && (bytes[1] ?? 0) >= 1 && (bytes[1] ?? 0) <= 8;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function xTouchBridge() {
  const time = new VirtualTime();
  const fixture = await startFixture({ clock: time, grid: 16 });
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
  const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: fixture.sim.token });
  const requests = new RequestCounter(client, time);
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 250, meterMs: 250, time });
  const system = new FakeMidiSystem();
  system.plug(PORT);
  const manager = await startShippedMidi(bridge, system, 'midi-x-touch-mini.yaml', log);
  cleanups.push(async () => {
    await bridge.stop();
    await manager.stop();
    await client.close();
    await fixture.close();
    system.dispose();
  });
  const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
  const knob0 = () => bridge.session('midi:X-Touch Mini')?.describeControls().find((c) => c.control.id === 'knob0')?.picture as MeterPicture | undefined;
  return {
    fixture,
    system,
    manager,
    warnings,
    knob0,
    advance: (ms: number) => advanceWithIo(time, ms, quiet),
  };
}

it('an X-Touch Mini hears nothing in 2.5 s while only the meters move; a gain change moves its ring once; a reopened device gets every ring again', async () => {
  const x = await xTouchBridge();
  const rings = () => new Set(x.system.sent(PORT).filter(isRing).map((bytes) => bytes[1]));
  await x.advance(2000);
  expect(rings().size).toBe(8); // every ring set

  x.system.clearSent();
  const levelsBefore = x.knob0()?.levels;
  const mark = x.fixture.sim.log.list().at(-1)?.seq ?? 0;
  await x.advance(2500);
  const meterReads = x.fixture.sim.log.list().filter((r) => r.seq > mark && r.path === '/api/sources/0').length;
  expect(meterReads).toBeGreaterThanOrEqual(8); // 4 a second: the meters were read and moved
  expect(x.knob0()?.levels).not.toEqual(levelsBefore);
  expect(x.system.sent(PORT)).toEqual([]);

  // Another operator sets channel 1's gain to +10 dB: knob0's ring moves there, once.
  await x.fixture.client.updateSource(0, { AudioGain: 10 });
  await x.advance(2500);
  expect(x.system.sent(PORT)).toEqual([[0xba, 1, Math.round((70 / 80) * 127)]]);

  // Unplugged and plugged in again: every ring is sent again.
  x.system.unplug(PORT);
  await x.manager.check();
  x.system.clearSent();
  x.system.plug(PORT);
  await x.manager.check();
  await x.advance(1000);
  expect(rings().size).toBe(8); // every ring set again
  expect(x.system.sent(PORT).find((bytes) => isRing(bytes) && bytes[1] === 1)).toEqual([0xba, 1, Math.round((70 / 80) * 127)]);
  expect(x.warnings).toEqual([]);
});
