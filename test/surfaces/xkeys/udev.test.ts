import { describe, expect, it } from 'vitest';
import { xkeysUdevRules } from '../../../src/surfaces/xkeys/udev.js';

const rules = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('X-keys udev rules', () => {
  it("every X-keys model by P.I. Engineering's vendor id 05f3, uaccess on a desktop, plugdev headless", () => {
    const desktop = xkeysUdevRules('desktop');
    expect(desktop.path).toBe('/etc/udev/rules.d/50-recdeck-xkeys.rules');
    expect(rules(desktop.text)).toEqual(['SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="05f3", TAG+="uaccess"', 'SUBSYSTEM=="usb", ATTR{idVendor}=="05f3", TAG+="uaccess"']);
    expect(rules(xkeysUdevRules('headless').text)).toEqual(['SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="05f3", GROUP="plugdev", MODE="0660"', 'SUBSYSTEM=="usb", ATTR{idVendor}=="05f3", GROUP="plugdev", MODE="0660"']);
    expect(desktop.text).not.toMatch(/idProduct/);
  });
});
