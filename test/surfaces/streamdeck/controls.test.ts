import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import type { ControlDefinition } from '../../../src/engine/surface.js';
import { compactIds } from '../../../src/engine/profile-match.js';
import { openFakeStreamDeck } from '../../support/fake-hid.js';
import { fakeSurface } from './helpers.js';

const byId = (controls: readonly ControlDefinition[], id: string) => controls.find((c) => c.id === id);

describe('Stream Deck controls from the library definitions', () => {
  it.each([
    [DeviceModelId.ORIGINAL, 'original', 'key0–key14', 72],
    [DeviceModelId.ORIGINALMK2, 'mk2', 'key0–key14', 72],
    [DeviceModelId.MINI, 'mini', 'key0–key5', 80],
    [DeviceModelId.XL, 'xl', 'key0–key31', 96],
  ])('%s: keys only, named by index, with the model pixel size', async (model, short, ids, size) => {
    const { surface } = await fakeSurface(model);
    expect(surface.model).toBe(short);
    expect(compactIds(surface.controls.map((c) => c.id))).toBe(ids);
    for (const control of surface.controls) expect(control).toMatchObject({ kind: 'key', pixelSize: { width: size, height: size } });
  });

  it('keys keep the row and column of the deck', async () => {
    const { surface } = await fakeSurface(DeviceModelId.ORIGINALMK2);
    expect(byId(surface.controls, 'key0')).toMatchObject({ row: 0, column: 0 });
    expect(byId(surface.controls, 'key7')).toMatchObject({ row: 1, column: 2 });
    expect(byId(surface.controls, 'key14')).toMatchObject({ row: 2, column: 4 });
  });

  it('plus: 8 keys, a touch strip split into one cell per dial, dials naming their cell', async () => {
    const { surface } = await fakeSurface(DeviceModelId.PLUS);
    expect(surface.model).toBe('plus');
    expect(compactIds(surface.controls.map((c) => c.id))).toBe('key0–key7, strip0–strip3, dial0–dial3');
    expect(byId(surface.controls, 'key3')).toMatchObject({ kind: 'key', pixelSize: { width: 120, height: 120 } });
    for (let i = 0; i < 4; i++) {
      expect(byId(surface.controls, `strip${i}`)).toEqual({ kind: 'lcd', id: `strip${i}`, pixelSize: { width: 200, height: 100 }, touch: true });
      expect(byId(surface.controls, `dial${i}`)).toEqual({ kind: 'encoder', id: `dial${i}`, pressable: true, ring: false, lcd: `strip${i}` });
    }
  });

  it('plus-xl: 36 keys, six strip cells of 200 x 100 above six dials', async () => {
    const { surface } = await fakeSurface(DeviceModelId.PLUS_XL);
    expect(surface.model).toBe('plus-xl');
    expect(compactIds(surface.controls.map((c) => c.id))).toBe('key0–key35, strip0–strip5, dial0–dial5');
    expect(byId(surface.controls, 'strip5')).toMatchObject({ pixelSize: { width: 200, height: 100 } });
  });

  it('neo: 8 keys, two LED touch keys and the info bar', async () => {
    const { surface } = await fakeSurface(DeviceModelId.NEO);
    expect(surface.model).toBe('neo');
    expect(compactIds(surface.controls.map((c) => c.id))).toBe('key0–key8, info, key9'); // the deck's own order: the bar sits between the touch keys
    expect(byId(surface.controls, 'key7')).toMatchObject({ kind: 'key', pixelSize: { width: 96, height: 96 } });
    expect(byId(surface.controls, 'key8')).toEqual({ kind: 'button', id: 'key8', feedback: 'led' });
    expect(byId(surface.controls, 'key9')).toEqual({ kind: 'button', id: 'key9', feedback: 'led' });
    expect(byId(surface.controls, 'info')).toEqual({ kind: 'lcd', id: 'info', pixelSize: { width: 248, height: 58 }, touch: false });
  });

  it('pedal: three buttons without feedback', async () => {
    const { surface } = await fakeSurface(DeviceModelId.PEDAL);
    expect(surface.model).toBe('pedal');
    expect(surface.controls).toEqual([0, 1, 2].map((i) => ({ kind: 'button', id: `pedal${i}`, feedback: 'none' })));
  });

  it('studio: 32 keys between two dials with LED rings', async () => {
    const { surface } = await fakeSurface(DeviceModelId.STUDIO);
    expect(surface.model).toBe('studio');
    expect(compactIds(surface.controls.map((c) => c.id))).toBe('dial0, key0–key31, dial1');
    expect(byId(surface.controls, 'key0')).toMatchObject({ kind: 'key', row: 0, column: 1, pixelSize: { width: 144, height: 112 } });
    expect(byId(surface.controls, 'dial1')).toEqual({ kind: 'encoder', id: 'dial1', pressable: true, ring: true });
  });

  it('identity: id from the serial, the library product name, kind streamdeck', async () => {
    const { deck } = await openFakeStreamDeck(DeviceModelId.ORIGINALMK2);
    const { surface } = await fakeSurface(DeviceModelId.ORIGINALMK2, { serial: 'CL12K1A00042' });
    expect(surface).toMatchObject({ id: 'streamdeck:CL12K1A00042', kind: 'streamdeck', model: 'mk2', name: deck.PRODUCT_NAME, serial: 'CL12K1A00042' });
    expect(surface.name).toBe('Stream Deck MK.2');
  });
});
