// Which Stream Deck is which, in the words profiles use. The library names models by DeviceModelId
// ("original-mk2"); profiles match short, stable ids ("mk2"), so a library rename does not break them.
import type { DeviceModelId } from '@elgato-stream-deck/core';

/** Elgato's USB vendor id: every Stream Deck model carries it. */
export const ELGATO_VENDOR_ID = 0x0fd9;

// `satisfies` over every DeviceModelId: a model added to the library fails the type check here until
// it is given a short id on purpose.
const SHORT_MODEL_IDS = {
  original: 'original',
  originalv2: 'original-v2',
  'original-mk2': 'mk2',
  'original-mk2-scissor': 'mk2-scissor',
  mini: 'mini',
  xl: 'xl',
  pedal: 'pedal',
  plus: 'plus',
  neo: 'neo',
  studio: 'studio',
  '6-module': 'module-6',
  '15-module': 'module-15',
  '32-module': 'module-32',
  'network-dock': 'network-dock',
  'galleon-k100': 'galleon-k100',
  'plus-xl': 'plus-xl',
} as const satisfies Record<`${DeviceModelId}`, string>;

/** The model id a profile matches, e.g. "mk2" for the library's "original-mk2"; unknown ids pass through. */
export function shortModelId(modelId: string): string {
  return (SHORT_MODEL_IDS as Readonly<Record<string, string>>)[modelId] ?? modelId;
}

/** The Network Dock only carries other decks over Ethernet; it has no controls of its own to bind. */
export function hasOwnControls(modelId: string): boolean {
  return modelId !== 'network-dock';
}
