// MMC out, decided without side effects: a DAW's transport following what a control shows. The map
// names a control under `mmc.send`; the profile gives it a show (a channel, the sync group, a recorder
// group); the painter lights it like any LED, and the LED state it is given is its picture's meaning.
// This file says what that meaning is to a DAW's transport and when it is worth a command.
//
// The rule, for each such control:
// - Only a live state has a meaning: recording (a take, alone or synchronous), paused, or stopped (idle,
//   armed, no source, or a fault that is not recording). Stale and offline say what the recorder did when
//   last seen, not what it does: they send nothing and forget nothing. Nor does a blank control (a page
//   without it), a dialog or a hold (they say nothing about the transport).
// - The first meaning after the device opened is where the DAW is taken to follow from, and is sent
//   nothing: recdeck does not know what the DAW is doing, and starting recdeck (or plugging the DAW's
//   port in) must not move a transport. A take that was running then is not a change recdeck saw.
// - A later meaning unlike the last one told (or taken) sends that meaning's commands once; it is the
//   one told only once the port took every command (a send that failed is tried again at the next
//   state, the DAW's state being unknown).
// - So a return from stale (or from another page) to the meaning the DAW was told sends nothing, and a
//   return to another meaning (the take stopped while the link was down) sends it, from live data.
// Repeats never reach here twice anyway: the device's output compares each state with the one it
// shows, so a poll that changes nothing writes nothing.
import type { LedState } from '../../engine/surface.js';

export const TRANSPORT_MEANINGS = ['recording', 'paused', 'stopped'] as const;
export type TransportMeaning = (typeof TRANSPORT_MEANINGS)[number];

const MEANING_OF: Readonly<Record<LedState, TransportMeaning | null>> = {
  recording: 'recording',
  'sync-recording': 'recording',
  paused: 'paused',
  idle: 'stopped',
  armed: 'stopped',
  'no-source': 'stopped',
  // A channel with a fault and not recording (show.ts); a control that cannot be pressed never flashes one.
  wrong: 'stopped',
  stale: null,
  offline: null,
  off: null,
  active: null,
  dialog: null,
  holding: null,
};

/** What a control's state says of the recorder's transport; null when it says nothing live. */
export function transportMeaning(state: LedState): TransportMeaning | null {
  return MEANING_OF[state];
}

/** What to do with a control's new state. */
export type FollowStep =
  /** Nothing to send, nothing to remember. */
  | { type: 'none' }
  /** The first live meaning: remembered as where the DAW follows from, nothing sent. */
  | { type: 'start'; meaning: TransportMeaning }
  /** A change of meaning: send its commands, then remember it as told. */
  | { type: 'send'; meaning: TransportMeaning };

/** The step for `state`, given the meaning last told (or taken at the start) through this control; undefined: none yet. */
export function followStep(told: TransportMeaning | undefined, state: LedState): FollowStep {
  const meaning = transportMeaning(state);
  if (meaning === null || meaning === told) return { type: 'none' };
  return told === undefined ? { type: 'start', meaning } : { type: 'send', meaning };
}
