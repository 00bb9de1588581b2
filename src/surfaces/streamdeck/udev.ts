// udev rules that let recdeck open Stream Decks without root on Linux (see ../udev.ts).
import { udevRules, type UdevVariant } from '../udev.js';

export const STREAMDECK_UDEV_RULES_PATH = '/etc/udev/rules.d/50-recdeck-streamdeck.rules';

export function streamDeckUdevRules(variant: UdevVariant): { path: string; text: string } {
  return udevRules({ path: STREAMDECK_UDEV_RULES_PATH, plural: 'Stream Decks', models: 'Every Elgato Stream Deck model', vendorId: '0fd9' }, variant);
}
