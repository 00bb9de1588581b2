// A bridge bound to a shipped MIDI profile, with a MIDI manager over a fake RtMidi and the shipped maps:
// controllers are bound to the bridge as they come and go (as `recdeck run` wires them).
import { join } from 'node:path';
import type { Bridge } from '../../../src/engine/bridge.js';
import type { Logger } from '../../../src/engine/log.js';
import { loadProfileFile } from '../../../src/profiles/load.js';
import { loadMidiMapFolder } from '../../../src/surfaces/midi/load-midi-map.js';
import { MidiManager } from '../../../src/surfaces/midi/midi-manager.js';
import { alsaPortIdentity } from '../../../src/surfaces/midi/port-identity.js';
import { rtMidiOver, type FakeMidiSystem } from '../../support/fake-midi.js';

const SHIPPED_PROFILES = join(import.meta.dirname, '../../../profiles');

/** Starts the bridge with the shipped profile `profileFile` (in profiles/) and a manager finding the system's ports; the caller stops both. */
export async function startShippedMidi(bridge: Bridge, system: FakeMidiSystem, profileFile: string, log: Logger): Promise<MidiManager> {
  const { maps } = await loadMidiMapFolder(join(SHIPPED_PROFILES, 'midi'));
  const manager = new MidiManager({ maps: maps.map((m) => m.map), log, loadMidi: async () => rtMidiOver(system), watchUsb: null, portIdentity: alsaPortIdentity(system.asoundRoot), checkEveryMs: 60_000, time: bridge.time });
  manager.surfaces$.subscribe((event) => (event.type === 'added' ? bridge.addSurface(event.surface) : bridge.removeSurface(event.id)));
  const profile = await loadProfileFile(join(SHIPPED_PROFILES, profileFile));
  if (!profile.ok) throw new Error(JSON.stringify(profile.problems));
  bridge.start();
  bridge.setProfiles([profile.loaded]);
  await manager.start();
  return manager;
}
