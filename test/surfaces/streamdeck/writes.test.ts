// Everything else the surface writes, how its output keeps to one writer per device and writes nothing the
// deck shows already, and what a failing device does.
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { LED_COLOURS, RING_COLOUR } from '../../../src/render/led-colours.js';
import { openFakeStreamDeck } from '../../support/fake-hid.js';
import { until } from '../../support/until.js';
import { fakeSurface, image, show } from './helpers.js';
import { markedImage, solidImage } from './reports.js';

const bytes = (data: Uint8Array | undefined) => (data ? [...data] : undefined);

describe('lights, rings, brightness, clearing', () => {
  it('neo: an LED touch key is lit in its state colour (RGB fill of key 8)', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.NEO);
    await show(surface, { type: 'led', control: 'key8', state: 'recording' });
    expect(hid.featuresSince().map(bytes)).toEqual([[0x03, 0x06, 8, ...LED_COLOURS.recording]]);
  });

  it('a state already shown is not sent again', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.NEO);
    await show(surface, { type: 'led', control: 'key9', state: 'armed' });
    await show(surface, { type: 'led', control: 'key9', state: 'armed' });
    await show(surface, { type: 'led', control: 'key9', state: 'idle' });
    expect(hid.featuresSince().map((f) => f[2])).toEqual([9, 9]);
  });

  it('a pedal has no light: a light state sends nothing', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.PEDAL);
    await show(surface, { type: 'led', control: 'pedal0', state: 'recording' });
    expect(hid.calls).toEqual([]);
  });

  it('studio: a level lights that share of the ring', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.STUDIO);
    await show(surface, { type: 'level', control: 'dial0', level: 0.5 });
    const [report] = hid.reportsSince();
    expect(bytes(report?.subarray(0, 3))).toEqual([0x02, 0x0f, 0]);
    const lit = Array.from({ length: 24 }, (_, i) => report?.[3 + i * 3] !== 0);
    expect(lit.filter(Boolean)).toHaveLength(12);
    expect(bytes(report?.subarray(3, 6))).toEqual([...RING_COLOUR]);
  });

  it('studio: an unchanged ring is not sent again; an empty ring is one colour fill of black', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.STUDIO);
    await show(surface, { type: 'level', control: 'dial1', level: 0.5 });
    await show(surface, { type: 'level', control: 'dial1', level: 0.51 }); // still 12 of 24
    await show(surface, { type: 'level', control: 'dial1', level: 0 });
    const reports = hid.reportsSince();
    expect(reports).toHaveLength(2);
    expect(bytes(reports[1]?.subarray(0, 9))).toEqual([0x02, 0x0f, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('plus: dials without a ring take levels silently', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.PLUS);
    await show(surface, { type: 'level', control: 'dial0', level: 0.7 });
    expect(hid.calls).toEqual([]);
  });

  it('brightness: gen 2 feature report 0x03 0x08, gen 1 0x05 0x55 0xaa 0xd1; clamped and rounded', async () => {
    const mk2 = await fakeSurface(DeviceModelId.ORIGINALMK2);
    await show(mk2.surface, { type: 'brightness', percent: 70.4 });
    await show(mk2.surface, { type: 'brightness', percent: 70 });
    expect(mk2.hid.featuresSince().map((f) => bytes(f.subarray(0, 3)))).toEqual([[0x03, 0x08, 70]]);
    const original = await fakeSurface(DeviceModelId.ORIGINAL);
    await show(original.surface, { type: 'brightness', percent: 140 });
    expect(original.hid.featuresSince().map((f) => bytes(f.subarray(0, 6)))).toEqual([[0x05, 0x55, 0xaa, 0xd1, 0x01, 100]]);
  });

  it('neo: clear blanks the panel, the info bar and the LED touch keys', async () => {
    const { surface, hid } = await fakeSurface(DeviceModelId.NEO);
    await show(surface, { type: 'led', control: 'key8', state: 'recording' });
    const mark = hid.calls.length;
    await surface.output.clear();
    const features = hid.featuresSince(mark).map((f) => bytes(f.subarray(0, 6)));
    expect(features).toContainEqual([0x03, 0x05, 0, 0, 0, 0]);
    expect(features).toContainEqual([0x03, 0x06, 8, 0, 0, 0]);
    expect(features).toContainEqual([0x03, 0x06, 9, 0, 0, 0]);
    expect(hid.reportsSince(mark).some((r) => r[0] === 0x02 && r[1] === 0x0b)).toBe(true);
    // After clearing, the same state is sent again: the device no longer shows it.
    const afterClear = hid.calls.length;
    await show(surface, { type: 'led', control: 'key8', state: 'recording' });
    expect(hid.featuresSince(afterClear)).toHaveLength(1);
  });
});

describe('one writer per device', () => {
  it('writes to one device never overlap, though the library itself would overlap them', async () => {
    // The library alone: two images asked for at once are written at once (their JPEG encoding runs on
    // other threads, so the writes are held until both have started, however the encodings finish).
    const direct = await openFakeStreamDeck(DeviceModelId.ORIGINALMK2);
    let release = () => undefined as void;
    direct.hid.heldUntil = new Promise<void>((resolve) => (release = resolve));
    const both = Promise.all([direct.deck.fillKeyBuffer(0, markedImage(72, 72, [200, 0, 0]).data), direct.deck.fillKeyBuffer(1, markedImage(72, 72, [0, 0, 200]).data)]);
    await until(() => direct.hid.writesInFlight === 2, 'both of the library\'s writes started at once');
    release();
    await both;
    expect(direct.hid.maxWritesInFlight).toBe(2);

    const { surface, hid } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    hid.slowWrites = true;
    await show(surface, image('key0', markedImage(72, 72, [200, 0, 0])), image('key1', markedImage(72, 72, [0, 0, 200])), image('key2', solidImage(72, 72, [0, 200, 0])), { type: 'brightness', percent: 50 });
    expect(hid.maxWritesInFlight).toBe(1);
    // In the order they were asked for.
    expect(hid.calls.map((c) => (c.type === 'reports' ? `image ${c.reports[0]?.[2]}` : c.type === 'feature' ? `feature ${c.data[1]}` : c.type))).toEqual(['image 0', 'image 1', 'feature 6', 'feature 8']);
  });
});

describe('a failing device', () => {
  it('a write error: logged, the surface closes, the owner is told once, later writes are dropped', async () => {
    const { surface, hid, log, failures } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    let completed = false;
    surface.input.subscribe({ complete: () => (completed = true) });
    hid.writeError = new Error('could not write to HID device');
    await show(surface, image('key0', markedImage(72, 72, [200, 0, 0])), image('key1', markedImage(72, 72, [0, 0, 200])));
    const callsAfterFailure = hid.calls.length;
    await show(surface, { type: 'brightness', percent: 10 });
    expect(hid.calls).toHaveLength(callsAfterFailure);
    expect(failures).toHaveLength(1);
    expect(surface.isOpen).toBe(false);
    expect(completed).toBe(true);
    expect(log.lines).toEqual([{ level: 'error', message: 'streamdeck:CL00TEST (Stream Deck MK.2): drawing key0 failed: could not write to HID device; closed until the device is seen again' }]);
    await surface.close();
    expect(hid.closed).toBe(true);
  });

  it("the device's own error event does the same", async () => {
    const { surface, hid, log, failures } = await fakeSurface(DeviceModelId.PLUS);
    hid.fail(new Error('could not read from HID device'));
    hid.fail(new Error('could not read from HID device'));
    expect(failures).toHaveLength(1);
    expect(surface.isOpen).toBe(false);
    expect(log.lines).toEqual([{ level: 'error', message: 'streamdeck:CL00TEST (Stream Deck +): device error: could not read from HID device; closed until the device is seen again' }]);
    await surface.close();
    expect(hid.closed).toBe(true);
  });
});
