// udev rules that let recdeck open X-keys panels without root on Linux (see ../udev.ts).
import { udevRules, type UdevVariant } from '../udev.js';
import { XKEYS_VENDOR_ID } from './models.js';

export const XKEYS_UDEV_RULES_PATH = '/etc/udev/rules.d/50-recdeck-xkeys.rules';

export function xkeysUdevRules(variant: UdevVariant): { path: string; text: string } {
  return udevRules({ path: XKEYS_UDEV_RULES_PATH, plural: 'X-keys panels', models: "Every P.I. Engineering X-keys model", vendorId: XKEYS_VENDOR_ID.toString(16).padStart(4, '0') }, variant);
}
