// End to end: the real bridge and renderer against the simulator, an APC mini mk2 found by the MIDI
// manager (the real @julusian/midi over a fake RtMidi) and bound to the shipped profile. A pad press reaches
// the recorder, the pad's LED turns to the recording colour, and after the device is unplugged and
// plugged in again (also between two checks, under the same name) every LED is sent again.
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/api/clock.js';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import type { Logger } from '../../../src/engine/log.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { FakeMidiSystem } from '../../support/fake-midi.js';
import { startFixture } from '../../support/simulator.js';
import { until } from '../../support/until.js';
import { startShippedMidi } from './helpers.js';
import { realTime } from '../../../src/engine/engine-time.js';

const PORT = 'APC mini mk2:APC mini mk2 APC mini mk2 _ 20:0';
const LED_CONTROLS = 80; // 64 pads, 8 track buttons, 8 scene buttons

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


/** The LEDs sent so far: note number → the last note-on for it. */
function leds(sent: number[][]): Map<number, number[]> {
  const last = new Map<number, number[]>();
  for (const bytes of sent) if (((bytes[0] ?? 0) & 0xf0) === 0x90) last.set(bytes[1] ?? -1, bytes);
  return last;
}

describe('an APC mini mk2 under the bridge', () => {
  it('lights its LEDs, drives the recorder, and is lit again in full when it comes back', async () => {
    const fixture = await startFixture({ clock: realClock, grid: 16 });
    cleanups.push(() => fixture.close());
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
    const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: fixture.sim.token });
    const bridge = new Bridge({ time: realTime, recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 100, slowMs: 500, meterMs: 100, thumbnailMs: 500 });
    const system = new FakeMidiSystem();
    cleanups.push(async () => system.dispose());
    system.plug(PORT);
    const manager = await startShippedMidi(bridge, system, 'midi-apc-mini-mk2.yaml', log);
    cleanups.push(async () => {
      await bridge.stop();
      await manager.stop();
      await client.close();
    });

    await until(() => leds(system.sent(PORT)).size === LED_CONTROLS, 'every LED sent');
    expect(lines.filter((l) => l.startsWith('warn') || l.startsWith('error'))).toEqual([]);

    // Top-left pad: channel 1. A press (shorter than the hold that would stop it) starts recording.
    const command = firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === 'pad56'), timeout(5000)));
    system.fromDevice(PORT, [0x90, 56, 127]);
    system.fromDevice(PORT, [0x80, 56, 0]);
    expect(await command).toMatchObject({ surface: 'midi:APC mini mk2', action: 'rec-start', result: 'ok', request: 'PUT /api/channels/0/rec-start' });
    await until(() => leds(system.sent(PORT)).get(56)?.join() === [0x96, 56, 5].join(), 'pad56 red at full brightness');

    system.unplug(PORT);
    await manager.check();
    expect(bridge.session('midi:APC mini mk2')).toBeUndefined();

    system.clearSent();
    system.plug(PORT);
    await manager.check();
    await until(() => leds(system.sent(PORT)).size === LED_CONTROLS, 'every LED sent again');
    // Red again (on a busy machine the first state sent may be stale, read more than 3 polls ago).
    await until(() => leds(system.sent(PORT)).get(56)?.join() === [0x96, 56, 5].join(), 'pad56 red again');

    // Unplugged and back between two checks, under the same name and ALSA client (20): the old handles
    // are dead, so only reopening (the USB device behind the name changed) lights it again.
    system.unplug(PORT);
    system.plug(PORT);
    system.clearSent();
    await manager.check();
    await until(() => leds(system.sent(PORT)).size === LED_CONTROLS, 'every LED sent after a quick replug');
    await until(() => leds(system.sent(PORT)).get(56)?.join() === [0x96, 56, 5].join(), 'pad56 red after a quick replug');
    expect(system.unclosedInputs()).toBe(1);
  });
});
