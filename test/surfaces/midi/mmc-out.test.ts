// MMC out under the real bridge, against the simulator, on virtual time: the shipped daw-mmc map found by
// the MIDI manager over the REAL @julusian/midi and a fake RtMidi, on a DAW's two ports (its MMC out read,
// its MMC in written, as Ardour names them). Takes started, paused and stopped at the recorder reach the
// DAW as one MMC command each, byte for byte; nothing is sent from stale data, and the return of live
// data sends only what the DAW was not told.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadedProfile } from '../../../src/profiles/schema.js';
import { MidiManager } from '../../../src/surfaces/midi/midi-manager.js';
import { alsaPortIdentity } from '../../../src/surfaces/midi/port-identity.js';
import { parseTestProfile } from '../../support/bridge.js';
import { deviceBridge } from '../../support/device-bridge.js';
import { FakeMidiSystem, rtMidiOver } from '../../support/fake-midi.js';
import { SHIPPED_PROFILES, shippedMidiMaps, shippedProfile } from '../../support/shipped-profiles.js';

const DAW_OUT = 'ardour:MMC out 130:0';
const DAW_IN = 'ardour:MMC in 130:1';
const SURFACE = 'midi:DAW transport (MMC)';
/** The shipped map sets no mmc.device: its MMC goes to every device. */
const mmc = (command: number) => [0xf0, 0x7f, 0x7f, 0x06, command, 0xf7];
const RECORD_STROBE = mmc(0x06);
const PAUSE = mmc(0x09);
const STOP = mmc(0x01);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The bridge on the simulator (channels 1 and 2 in the InSync group), the DAW's ports, and the shipped daw-mmc map under `profile`. */
async function start(profile: LoadedProfile) {
  const rig = await deviceBridge();
  cleanups.push(() => rig.close());
  for (const index of [0, 1]) await rig.fixture.client.syncOn(index);
  const system = new FakeMidiSystem();
  cleanups.push(async () => system.dispose());
  system.plug(DAW_OUT, { output: false });
  system.plug(DAW_IN, { input: false });
  const manager = new MidiManager({ maps: await shippedMidiMaps(), log: rig.log, loadMidi: async () => rtMidiOver(system), watchUsb: null, portIdentity: alsaPortIdentity(system.asoundRoot), checkEveryMs: 60_000, time: rig.bridge.time });
  rig.follow(manager);
  rig.bridge.setProfiles([profile]);
  await manager.start();
  cleanups.push(() => manager.stop());
  const surface = manager.surfaces.find((s) => s.id === SURFACE);
  if (surface === undefined) throw new Error(`no surface ${SURFACE}: ${manager.surfaces.map((s) => s.id).join(', ')}`);
  /** The state the follow control shows now. */
  const follows = () => surface.output.shown().leds.get('follow');
  const sent = () => system.sent(DAW_IN);
  return { ...rig, follows, sent };
}

/** The shipped midi-daw-mmc profile with its `follow` line uncommented, as its comment tells an operator to. */
function followingProfile(): LoadedProfile {
  const shipped = readFileSync(join(SHIPPED_PROFILES, 'midi-daw-mmc.yaml'), 'utf8');
  const text = shipped.replace('# follow: { show: sync }', 'follow: { show: sync }');
  if (text === shipped) throw new Error('midi-daw-mmc.yaml has no commented follow line to turn on');
  return parseTestProfile(text, 'midi-daw-mmc-following.yaml');
}

describe('MMC out to a DAW, under the bridge', () => {
  it('the shipped profile as shipped sends nothing: an upgrade never moves a DAW by itself', async () => {
    const { fixture, advance, follows, sent } = await start(await shippedProfile('midi-daw-mmc.yaml'));
    await advance(500);
    expect(follows()).toBe('off'); // nothing bound: an unbound LED is off
    await fixture.client.syncRecStart();
    await advance(1000); // ten polls that say the group records
    await fixture.client.syncRecStop();
    await advance(1000);
    expect(sent()).toEqual([]);
  });

  it('the shipped profile with follow on: the InSync group starting, pausing and stopping at the recorder sends Record Strobe, Pause and Stop, each exactly once', async () => {
    const { fixture, until, advance, follows, sent } = await start(followingProfile());
    await until(() => follows() === 'armed', 'the group shown live, armed');
    await advance(500);
    expect(sent()).toEqual([]); // what the recorder did before recdeck saw it is no change

    await fixture.client.syncRecStart();
    await until(() => sent().length > 0, 'MMC sent to the DAW');
    await advance(500); // five polls more, every one saying the group records
    expect(sent()).toEqual([RECORD_STROBE]);

    await fixture.client.syncRecPause();
    await until(() => sent().length > 1, 'the pause sent');
    await fixture.client.syncRecStop();
    await until(() => sent().length > 2, 'the stop sent');
    await advance(500);
    expect(sent()).toEqual([RECORD_STROBE, PAUSE, STOP]);
  });

  it('a channel\'s take (channel 3, outside the group): nothing from stale data; live again it sends nothing the DAW has, and the stop it missed', async () => {
    const profile = parseTestProfile('name: DAW follows channel 3\nmatch: { kind: midi, model: daw-mmc }\npages:\n  - name: Follow\n    controls:\n      follow: { show: { channel: 3 } }\n');
    const { fixture, until, advance, follows, sent } = await start(profile);
    const reads = (failing: boolean) => fixture.sim.faults.set(failing ? [{ kind: 'status', method: 'GET', path: '/api/channels', probability: 1, latencyMs: 0, status: 500 }] : []);
    await until(() => follows() === 'idle', 'channel 3 shown live, idle');

    await fixture.client.recStart(2);
    await until(() => sent().length > 0, 'the take sent');
    expect(sent()).toEqual([RECORD_STROBE]);

    // The reads fail and the take goes on: stale, then live again, recording all along.
    reads(true);
    await until(() => follows() === 'stale', 'channel 3 shown stale');
    reads(false);
    await until(() => follows() === 'recording', 'channel 3 live again');
    await advance(500);
    expect(sent()).toEqual([RECORD_STROBE]);

    // The reads fail and the take stops meanwhile: nothing while stale, Stop once the stop is read.
    reads(true);
    await until(() => follows() === 'stale', 'channel 3 stale again');
    await fixture.client.recStop(2);
    await advance(2000);
    expect(follows()).toBe('stale');
    expect(sent()).toEqual([RECORD_STROBE]);
    reads(false);
    await until(() => sent().length > 1, 'the stop sent');
    await advance(500);
    expect(sent()).toEqual([RECORD_STROBE, STOP]);
  });
});
