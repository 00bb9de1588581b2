import { describe, expect, it } from 'vitest';
import { STREAMDECK_UDEV_RULES_PATH, streamDeckUdevRules } from '../../../src/surfaces/streamdeck/udev.js';

const rules = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('Stream Deck udev rules', () => {
  it('desktop: uaccess for the logged-in user, one rule per subsystem, by vendor id', () => {
    const { path, text } = streamDeckUdevRules('desktop');
    expect(path).toBe('/etc/udev/rules.d/50-recdeck-streamdeck.rules');
    expect(path).toBe(STREAMDECK_UDEV_RULES_PATH);
    expect(rules(text)).toEqual(['SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="0fd9", TAG+="uaccess"', 'SUBSYSTEM=="usb", ATTR{idVendor}=="0fd9", TAG+="uaccess"']);
  });

  it('headless: the plugdev group, read-write', () => {
    const { text } = streamDeckUdevRules('headless');
    expect(rules(text)).toEqual(['SUBSYSTEM=="hidraw", KERNEL=="hidraw*", ATTRS{idVendor}=="0fd9", GROUP="plugdev", MODE="0660"', 'SUBSYSTEM=="usb", ATTR{idVendor}=="0fd9", GROUP="plugdev", MODE="0660"']);
    expect(text).toMatch(/plugdev/);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('no rule names a product id: every model, present and future, is covered', () => {
    for (const variant of ['desktop', 'headless'] as const) expect(streamDeckUdevRules(variant).text).not.toMatch(/idProduct/);
  });
});
