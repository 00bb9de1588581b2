// udev rules that let recdeck open a family of USB devices (Stream Decks, X-keys) without root on Linux.
// Every model of a family is matched by its maker's vendor id, so a model released later is covered
// too. Two variants:
// - desktop: the user logged in at the machine gets access (systemd-logind's "uaccess" tag);
// - headless: members of the plugdev group get access (a service account, no one logged in).
// One rule per subsystem: hidraw is what recdeck opens; usb is the device itself (firmware tools, and
// libusb-based access).

export type UdevVariant = 'desktop' | 'headless';

/** Run as root after writing the files, so devices already plugged in get the new permissions. */
export const UDEV_RELOAD_COMMANDS = ['udevadm control --reload-rules', 'udevadm trigger --subsystem-match=usb --subsystem-match=hidraw'] as const;

export interface UdevFamily {
  /** Numbered below 73: the uaccess tag only takes effect when set before systemd's 73-seat-late.rules. */
  path: string;
  /** "Stream Decks" */
  plural: string;
  /** "Every Elgato Stream Deck model" */
  models: string;
  /** Four lowercase hex digits, as udev compares them. */
  vendorId: string;
}

export function udevRules(family: UdevFamily, variant: UdevVariant): { path: string; text: string } {
  const { grant, note } =
    variant === 'desktop'
      ? { grant: 'TAG+="uaccess"', note: `the user logged in at this machine may use ${family.plural}` }
      : { grant: 'GROUP="plugdev", MODE="0660"', note: `members of the plugdev group may use ${family.plural} (add the recdeck user: usermod -aG plugdev USER)` };
  const text = [
    `# Written by recdeck (setup-udev, ${variant}): ${note}.`,
    `# ${family.models}, by USB vendor id ${family.vendorId}.`,
    `SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="${family.vendorId}", ${grant}`,
    `SUBSYSTEM=="usb", ATTR{idVendor}=="${family.vendorId}", ${grant}`,
    '',
  ].join('\n');
  return { path: family.path, text };
}
