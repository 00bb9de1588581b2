// What went wrong with a HID device family's support (its library over node-hid) or with one device,
// said so that an operator can act on it. Stream Decks and X-keys both reach their devices through
// node-hid, so they fail the same ways; each family names itself and the programs that hold its devices.

import { messageOf } from '../api/errors.js';

export interface HidFamilyWords {
  /** "Stream Deck" */
  name: string;
  /** "Stream Decks" */
  plural: string;
}

/** node-hid's native module needs libusb on Linux; without it no device of the family can be seen. */
export function libusbMissing(family: HidFamilyWords): string {
  return `${family.name} support needs libusb at run time: install the libusb-1.0-0 package (Debian/Ubuntu: apt-get install libusb-1.0-0)`;
}

/** Why the family's library (or node-hid under it) could not be loaded or could not list devices. */
export function supportProblem(family: HidFamilyWords, error: unknown, stage: 'load' | 'list'): string {
  const text = messageOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  // node-hid's native module links against libusb on Linux: "libusb-1.0.so.0: cannot open shared
  // object file". It loads lazily, so this shows up when listing, not only when importing.
  if (/libusb/i.test(text)) return libusbMissing(family);
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find (package|module)/i.test(text)) {
    return `${family.name} support is not installed (${text}): reinstall recdeck's dependencies (npm install)`;
  }
  if (stage === 'load') return `${family.name} support could not be loaded: ${text}`;
  return `${family.plural} could not be listed: ${text}`;
}

/** A family's library could not be loaded or could not list devices; none of its devices can be used until fixed. */
export class HidSupportError extends Error {
  constructor(family: HidFamilyWords, error: unknown, stage: 'load' | 'list') {
    super(supportProblem(family, error, stage), { cause: error });
    this.name = `${family.name.replace(/[^A-Za-z]/g, '')}SupportError`;
  }
}

/**
 * The family's library, loaded at the first call: a failure to load it is a HidSupportError, and is
 * tried again at the next call (the missing package may be installed while recdeck runs).
 */
export function lazyLibrary<T>(family: HidFamilyWords, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return async () => {
    try {
      loading ??= load();
      return await loading;
    } catch (error) {
      loading = null;
      throw new HidSupportError(family, error, 'load');
    }
  };
}

/** Why a listed device (`who`) could not be opened; `holders` names the programs that may hold it. */
export function explainHidOpenError(who: string, error: unknown, holders: string): string {
  const text = messageOf(error);
  // hidapi says "cannot open device with path …" both when another program holds the device and when
  // this user may not open it, so both causes are named.
  if (/EBUSY|resource busy|cannot open device|could not open/i.test(text)) {
    return `${who} cannot be opened (${text}): another program may be using it (${holders}, another recdeck), or this user may not open it (install the udev rules: recdeck setup-udev)`;
  }
  if (/EACCES|EPERM|permission denied/i.test(text)) {
    return `${who} cannot be opened (${text}): this user may not open it (install the udev rules: recdeck setup-udev)`;
  }
  return `${who} could not be opened: ${text}`;
}
