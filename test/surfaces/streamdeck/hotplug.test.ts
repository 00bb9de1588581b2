import { describe, expect, it } from 'vitest';
import { watchUsbHotplug } from '../../../src/surfaces/usb-device-manager.js';

describe('USB hot-plug watching', () => {
  it('the real `usb` package loads lazily, watches, and stops (no Stream Deck needed)', async () => {
    const events: string[] = [];
    const stop = await watchUsbHotplug(0x0fd9, (event) => events.push(event));
    expect(typeof stop).toBe('function');
    stop();
    expect(events).toEqual([]);
  });
});
