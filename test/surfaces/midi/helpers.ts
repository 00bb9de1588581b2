// A bridge bound to a shipped MIDI profile, with a MIDI manager over a fake RtMidi and the shipped maps:
// controllers are bound to the bridge as they come and go (as `recdeck run` wires them).
import type { Bridge } from '../../../src/engine/bridge.js';
import type { Logger } from '../../../src/engine/log.js';
import { MidiManager } from '../../../src/surfaces/midi/midi-manager.js';
import { alsaPortIdentity } from '../../../src/surfaces/midi/port-identity.js';
import { rtMidiOver, type FakeMidiSystem } from '../../support/fake-midi.js';
import { shippedMidiMaps, shippedProfile } from '../../support/shipped-profiles.js';

/** Starts the bridge with the shipped profile `profileFile` (in profiles/) and a manager finding the system's ports; the caller stops both. */
export async function startShippedMidi(bridge: Bridge, system: FakeMidiSystem, profileFile: string, log: Logger): Promise<MidiManager> {
  const manager = new MidiManager({ maps: await shippedMidiMaps(), log, loadMidi: async () => rtMidiOver(system), watchUsb: null, portIdentity: alsaPortIdentity(system.asoundRoot), checkEveryMs: 60_000, time: bridge.time });
  manager.surfaces$.subscribe((event) => (event.type === 'added' ? bridge.addSurface(event.surface) : bridge.removeSurface(event.id)));
  const profile = await shippedProfile(profileFile);
  bridge.start();
  bridge.setProfiles([profile]);
  await manager.start();
  return manager;
}
