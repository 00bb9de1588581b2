// udev rules that let recdeck open Stream Decks without root on Linux. Every Stream Deck model is
// matched by Elgato's vendor id, so a model released later is covered too. Two variants:
// - desktop: the user logged in at the machine gets access (systemd-logind's "uaccess" tag);
// - headless: members of the plugdev group get access (a service account, no one logged in).
// One rule per subsystem: hidraw is what recdeck opens; usb is the device itself (firmware tools, and
// libusb-based access).

export type UdevVariant = 'desktop' | 'headless';

/** Numbered below 73: the uaccess tag only takes effect when set before systemd's 73-seat-late.rules. */
export const STREAMDECK_UDEV_RULES_PATH = '/etc/udev/rules.d/50-recdeck-streamdeck.rules';

/** Run as root after writing the file, so already plugged-in decks get the new permissions. */
export const UDEV_RELOAD_COMMANDS = ['udevadm control --reload-rules', 'udevadm trigger --subsystem-match=usb --subsystem-match=hidraw'] as const;

const ACCESS: Readonly<Record<UdevVariant, { grant: string; note: string }>> = {
  desktop: { grant: 'TAG+="uaccess"', note: 'the user logged in at this machine may use Stream Decks' },
  headless: { grant: 'GROUP="plugdev", MODE="0660"', note: 'members of the plugdev group may use Stream Decks (add the recdeck user: usermod -aG plugdev USER)' },
};

export function streamDeckUdevRules(variant: UdevVariant): { path: string; text: string } {
  const { grant, note } = ACCESS[variant];
  const text = [
    `# Written by recdeck (setup-udev, ${variant}): ${note}.`,
    '# Every Elgato Stream Deck model, by USB vendor id 0fd9.',
    `SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="0fd9", ${grant}`,
    `SUBSYSTEM=="usb", ATTR{idVendor}=="0fd9", ${grant}`,
    '',
  ].join('\n');
  return { path: STREAMDECK_UDEV_RULES_PATH, text };
}
