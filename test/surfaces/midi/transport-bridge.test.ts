// A DAW's transport and a Mackie Control controller under the real bridge, against the simulator: the
// shipped maps and profiles (profiles/midi/daw-mmc.yaml, mackie-control.yaml) found by the MIDI
// manager over the REAL @julusian/midi and a fake RtMidi. An MMC Record Strobe reaches the recorder as
// exactly one request; the Mackie transport drives the InSync group and its LEDs follow the recorder
// (127 lit, 1 blinking, 0 off).
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/api/clock.js';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import type { Logger } from '../../../src/engine/log.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { FakeMidiSystem } from '../../support/fake-midi.js';
import { lastSeq, startFixture, writesSince, type SimulatorFixture } from '../../support/simulator.js';
import { until } from '../../support/until.js';
import { startShippedMidi } from './helpers.js';
import { realTime } from '../../../src/engine/engine-time.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The simulator with channels 1 and 2 in the InSync group, a bridge on it, and the shipped map and profile for a port. */
async function start(port: string, profileFile: string) {
  const fixture = await startFixture({ clock: realClock, grid: 4 });
  cleanups.push(() => fixture.close());
  for (const index of [0, 1]) await fixture.client.syncOn(index);
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
  const client = new RecorderClient({ url: fixture.sim.url, token: fixture.sim.token, clock: realClock });
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 100, slowMs: 500, meterMs: 100, thumbnailMs: 500, time: realTime });
  const system = new FakeMidiSystem();
  cleanups.push(async () => system.dispose());
  system.plug(port);
  const manager = await startShippedMidi(bridge, system, profileFile, log);
  cleanups.push(async () => {
    await bridge.stop();
    await manager.stop();
    await client.close();
  });
  /** The next command a control of this surface ran (its result included). */
  const nextCommand = (control: string) => firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === control), timeout(5000)));
  return { fixture, bridge, system, lines, nextCommand };
}

const syncRecording = (fixture: SimulatorFixture, paused: boolean) => async () => {
  const sync = await fixture.client.getSyncState();
  return sync.IsSyncRecording && sync.IsSyncRecordingPause === paused;
};

describe('a DAW transport over MMC', () => {
  const PORT = 'ardour:MMC out 130:0';
  const mmc = (device: number, command: number) => [0xf0, 0x7f, device, 0x06, command, 0xf7];

  it('an MMC Record Strobe from the DAW runs the bound action once; MMC to another device runs nothing', async () => {
    const { fixture, bridge, system, lines, nextCommand } = await start(PORT, 'midi-daw-mmc.yaml');
    await until(() => bridge.session('midi:DAW transport (MMC)') !== undefined, 'the DAW port opened as a surface');
    const mark = lastSeq(fixture.sim);

    const started = nextCommand('record-strobe');
    system.fromDevice(PORT, mmc(0x7f, 0x06));
    expect(await started).toMatchObject({ surface: 'midi:DAW transport (MMC)', action: 'sync-rec-start', result: 'ok' });
    await until(syncRecording(fixture, false), 'the InSync group recording');

    // To another device: nothing may run. Stop comes after it on the same port, so once Stop has run,
    // the message before it has been read and refused. The DAW's Stop pauses the takes (the shipped
    // profile never ends one from a single message).
    system.fromDevice(PORT, mmc(0x05, 0x06));
    const stopped = nextCommand('stop');
    system.fromDevice(PORT, mmc(0x7f, 0x01));
    expect(await stopped).toMatchObject({ action: 'sync-rec-pause', result: 'ok' });
    await until(syncRecording(fixture, true), 'the InSync group paused');

    expect(writesSince(fixture.sim, mark)).toEqual(['PUT /api/channels/sync-rec-start', 'PUT /api/channels/sync-rec-pause']);
    expect(lines.filter((l) => l.startsWith('warn') || l.startsWith('error'))).toEqual([
      'warn midi:DAW transport (MMC): ignored an MMC message to device 05: this map answers only MMC to all devices (7F) [F0 7F 05 06 06 F7]',
    ]);
  });
});

describe('a controller in Mackie Control mode', () => {
  const PORT = 'X-Touch:X-Touch MIDI 1 20:0';
  const RECORD = 95;
  const PLAY = 94;
  const STOP = 93;
  const LED_BUTTONS = 13; // transport 91-95, REC 0-7

  /** The last note-on sent for each note. */
  const leds = (sent: number[][]) => {
    const last = new Map<number, number>();
    for (const [status, note, velocity] of sent) if (status === 0x90 && note !== undefined && velocity !== undefined) last.set(note, velocity);
    return last;
  };

  it('Record starts the InSync group, Play pauses and resumes it, a held Stop stops it; the LEDs follow the recorder', async () => {
    const { fixture, system, lines, nextCommand } = await start(PORT, 'midi-mackie-control.yaml');
    const press = (note: number) => system.fromDevice(PORT, [0x90, note, 127]);
    const release = (note: number) => system.fromDevice(PORT, [0x90, note, 0]);
    await until(() => leds(system.sent(PORT)).size === LED_BUTTONS, 'every button LED sent');
    // Blinking until the first poll is in (not live yet), then off: the group is armed, not recording.
    await until(() => leds(system.sent(PORT)).get(RECORD) === 0, 'Record off');

    const started = nextCommand('record');
    press(RECORD);
    release(RECORD);
    expect(await started).toMatchObject({ surface: 'midi:Mackie Control', action: 'sync-rec-start', result: 'ok' });
    await until(() => leds(system.sent(PORT)).get(RECORD) === 127 && leds(system.sent(PORT)).get(PLAY) === 127, 'Record and Play lit');

    const paused = nextCommand('play');
    press(PLAY);
    release(PLAY);
    expect(await paused).toMatchObject({ action: 'sync-rec-pause-toggle', result: 'ok' });
    await until(syncRecording(fixture, true), 'the group paused');
    await until(() => leds(system.sent(PORT)).get(RECORD) === 1 && leds(system.sent(PORT)).get(PLAY) === 1, 'Record and Play blinking');

    // A tap on Stop stops nothing (a brushed Stop never ends a take): Play resumes the group, and the
    // only stop the recorder sees is the held one, more than a second after the tap.
    const mark = lastSeq(fixture.sim);
    press(STOP);
    release(STOP);
    const resumed = nextCommand('play');
    press(PLAY);
    release(PLAY);
    expect(await resumed).toMatchObject({ action: 'sync-rec-pause-toggle', result: 'ok' });
    await until(syncRecording(fixture, false), 'the group recording again');
    await until(() => leds(system.sent(PORT)).get(RECORD) === 127 && leds(system.sent(PORT)).get(PLAY) === 127, 'Record and Play lit again');

    const stopped = nextCommand('stop');
    press(STOP);
    expect(await stopped).toMatchObject({ action: 'sync-rec-stop', result: 'ok' });
    release(STOP);
    await until(() => leds(system.sent(PORT)).get(RECORD) === 0 && leds(system.sent(PORT)).get(PLAY) === 0, 'Record and Play off');
    expect(writesSince(fixture.sim, mark)).toEqual(['PUT /api/channels/sync-rec-start', 'PUT /api/channels/sync-rec-stop']);
    expect(lines.filter((l) => l.startsWith('warn') || l.startsWith('error'))).toEqual([]);
  });

  it('a strip\'s REC button starts its channel and lights while it records; the transport stays off', async () => {
    const { fixture, system, nextCommand } = await start(PORT, 'midi-mackie-control.yaml');
    await until(() => leds(system.sent(PORT)).size === LED_BUTTONS, 'every button LED sent');
    const mark = lastSeq(fixture.sim);
    const started = nextCommand('rec2');
    system.fromDevice(PORT, [0x90, 2, 127]);
    system.fromDevice(PORT, [0x90, 2, 0]);
    expect(await started).toMatchObject({ action: 'rec-start', result: 'ok', request: 'PUT /api/channels/2/rec-start' });
    await until(() => leds(system.sent(PORT)).get(2) === 127, 'REC 3 lit');
    expect(leds(system.sent(PORT)).get(RECORD)).toBe(0);
    expect(writesSince(fixture.sim, mark)).toEqual(['PUT /api/channels/2/rec-start']);
  });
});
