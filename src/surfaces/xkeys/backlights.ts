// What an X-keys key's backlight shows for each LED state. Most keypads (XK-24, XK-60, XK-80) have a
// blue and a red LED under each key, each on or off, and the panel flashes lit keys in step; RGB models
// take any colour. Red is the tally colour: steady red is recording and nothing else. Blue is a bound
// key at rest; both together (violet) a state that is on. Flashing asks for attention: red for a fault
// or a failed command, blue for data that is not live (stale, offline), both for a pause or a dialog.
import { BackLightType, type Color } from '@xkeys-lib/core';
import type { LedState } from '../../engine/surface.js';
import { LED_COLOURS } from '../../render/led-colours.js';

export interface Backlight {
  color: Color;
  flashing: boolean;
}

const OFF: Color = { r: 0, g: 0, b: 0 };
const RED: Color = { r: 255, g: 0, b: 0 };
const BLUE: Color = { r: 0, g: 0, b: 255 };
const BOTH: Color = { r: 255, g: 0, b: 255 };

/** Red and blue banks (what the library makes of a colour there: red when r or g, blue when b). */
const RED_BLUE: Readonly<Record<LedState, Backlight>> = {
  off: { color: OFF, flashing: false },
  idle: { color: BLUE, flashing: false },
  'no-source': { color: BLUE, flashing: false },
  active: { color: BOTH, flashing: false },
  armed: { color: BOTH, flashing: false },
  holding: { color: BOTH, flashing: false },
  recording: { color: RED, flashing: false },
  'sync-recording': { color: RED, flashing: false },
  paused: { color: BOTH, flashing: true },
  dialog: { color: BOTH, flashing: true },
  wrong: { color: RED, flashing: true },
  stale: { color: BLUE, flashing: true },
  offline: { color: BLUE, flashing: true },
};

/** The states that flash on red/blue keys flash on RGB keys too, in the colours the key tiles use. */
const RGB: Readonly<Record<LedState, Backlight>> = Object.fromEntries(
  (Object.keys(RED_BLUE) as LedState[]).map((state) => {
    const [r, g, b] = LED_COLOURS[state];
    return [state, { color: { r, g, b }, flashing: RED_BLUE[state].flashing }];
  }),
) as Record<LedState, Backlight>;

/** Blue LEDs only (the Stick models): lit for every state but off, flashing as above. */
const BLUE_ONLY: Readonly<Record<LedState, Backlight>> = Object.fromEntries(
  (Object.keys(RED_BLUE) as LedState[]).map((state) => [state, { color: state === 'off' ? OFF : BLUE, flashing: RED_BLUE[state].flashing }]),
) as Record<LedState, Backlight>;

/** The backlight a state is shown with on a panel of this backlight type. */
export function backlightFor(type: BackLightType, state: LedState): Backlight {
  switch (type) {
    case BackLightType.RGBx2:
    case BackLightType.REMAP_24:
      return RGB[state];
    case BackLightType.STICK_BUTTONS:
      return BLUE_ONLY[state];
    default:
      return RED_BLUE[state];
  }
}
