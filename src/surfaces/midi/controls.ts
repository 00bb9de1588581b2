// What the engine sees of a MIDI map: its controls as surface control definitions. A knob is an absolute
// fader to the engine (it reports a position); an encoder reports turns. An MMC command read is a button
// with nothing to light (a DAW's transport has no LED recdeck could set); an MMC control sent from is a
// button that is never pressed and is lit like an LED: the state it is given is what the DAW follows.
import type { ControlDefinition } from '../../engine/surface.js';
import type { MidiControl, MidiMap } from './midi-map.js';

export function controlDefinition(control: MidiControl): ControlDefinition {
  switch (control.role) {
    case 'button':
      return { kind: 'button', id: control.id, feedback: control.led === undefined ? 'none' : 'led' };
    case 'fader':
    case 'knob':
      return { kind: 'fader', id: control.id, motorised: control.motorised };
    case 'encoder':
      // Relative encoders have no ring the bridge can set here, and their press (if any) is its own note.
      return { kind: 'encoder', id: control.id, pressable: false, ring: false };
  }
}

export function controlDefinitions(map: Pick<MidiMap, 'controls' | 'mmc'>): ControlDefinition[] {
  const mmc = (map.mmc?.controls ?? []).map((control): ControlDefinition => ({ kind: 'button', id: control.id, feedback: 'none' }));
  const sent = (map.mmc?.send ?? []).map((send): ControlDefinition => ({ kind: 'button', id: send.id, feedback: 'led' }));
  return [...map.controls.map(controlDefinition), ...mmc, ...sent];
}
