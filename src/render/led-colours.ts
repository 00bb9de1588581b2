// What an RGB-lit control shows for each LED state. The colours are the ones the keys use for the same
// states (render/palette.ts), so a lit touch key and a key tile say the same thing the same way.
import type { LedState } from '../engine/surface.js';
import { CHANNEL_LOOKS, HOLD_RING, NEUTRAL, OKABE_ITO, dimmed, hexToRgb, type Rgb } from './palette.js';

export const LED_COLOURS: Readonly<Record<LedState, Rgb>> = {
  off: [0, 0, 0],
  idle: hexToRgb(NEUTRAL.idle),
  active: hexToRgb(OKABE_ITO.bluishGreen),
  recording: hexToRgb(CHANNEL_LOOKS.recording.band),
  paused: hexToRgb(CHANNEL_LOOKS.paused.band),
  armed: hexToRgb(CHANNEL_LOOKS.armed.band),
  'sync-recording': hexToRgb(CHANNEL_LOOKS['sync-recording'].band),
  wrong: hexToRgb(CHANNEL_LOOKS.wrong.band),
  'no-source': hexToRgb(NEUTRAL.noSource),
  // An LED has no room for an age text: stale is a faint amber ("not sure"), offline a faint red, so
  // neither reads as off.
  stale: hexToRgb(dimmed(OKABE_ITO.orange, 0.3)),
  offline: hexToRgb(dimmed(OKABE_ITO.vermillion, 0.15)),
  // White, which no state uses: a dialog is waiting for an answer.
  dialog: [255, 255, 255],
  holding: hexToRgb(HOLD_RING),
};

/** The lit part of an encoder's LED ring (a level, not a state: plain white). */
export const RING_COLOUR: Rgb = [200, 200, 200];
