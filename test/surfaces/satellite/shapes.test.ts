// Every Stream Deck that Companion Satellite can put on the network, as a Satellite client describes it,
// gets the profile recdeck ships for that deck, with every binding fitting and the same control ids as
// the deck has over USB. The deck's controls come from the real Stream Deck library (over a fake HID
// device); the layout manifest is written from them the way Companion Satellite's Stream Deck plugin
// describes a deck (read in bitfocus/companion-surface-elgato-stream-deck, src/surface-schema.ts as of
// 39f34ec "fix: plus xl": keys with a bitmap of their size; an LCD segment the library draws by region
// cut into cells of equal width, one above each encoder's column (one a column on a deck without
// encoders), whole otherwise; buttons and encoders with an LED as "hex" colours, the rest showing
// nothing), for a server whose CAPS says NONSQUARE=1 as ours does.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceModelId, type StreamDeckControlDefinition } from '@elgato-stream-deck/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkBindings, chooseProfile } from '../../../src/engine/profile-match.js';
import type { ControlDefinition } from '../../../src/engine/surface.js';
import { loadProfileFile } from '../../../src/profiles/load.js';
import type { LoadedProfile } from '../../../src/profiles/schema.js';
import { layoutOf, type SatelliteLayout } from '../../../src/surfaces/satellite/layout.js';
import { AddDevice } from '../../../src/surfaces/satellite/protocol.js';
import { fakeSurface } from '../streamdeck/helpers.js';
import { openFakeStreamDeck } from '../../support/fake-hid.js';

const FOLDER = join(import.meta.dirname, '../../../profiles');
const shipped: LoadedProfile[] = [];
beforeAll(async () => {
  for (const file of readdirSync(FOLDER).filter((f) => f.endsWith('.yaml'))) {
    const result = await loadProfileFile(join(FOLDER, file));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    shipped.push(result.loaded);
  }
});

type Style = { bitmap?: { w: number; h: number }; colors?: 'hex' };

/** The layout manifest a Satellite client sends for a deck with these controls. */
function manifestOf(definitions: readonly StreamDeckControlDefinition[]) {
  const stylePresets: Record<string, Style> = { default: {}, empty: {}, rgb: { colors: 'hex' } };
  const controls: Record<string, { row: number; column: number; stylePreset: string }> = {};
  const bitmapPreset = (prefix: string, w: number, h: number) => {
    const id = `${prefix}_${w}x${h}`;
    stylePresets[id] = { bitmap: { w, h } };
    return id;
  };
  for (const control of definitions) {
    const place = (column: number, stylePreset: string) => (controls[`${control.row}/${column}`] = { row: control.row, column, stylePreset });
    switch (control.type) {
      case 'button':
        place(control.column, control.feedbackType === 'lcd' ? bitmapPreset('btn', control.pixelSize.width, control.pixelSize.height) : control.feedbackType === 'rgb' ? 'rgb' : 'empty');
        break;
      case 'encoder':
        place(control.column, control.hasLed || control.ledRingSteps > 0 ? 'rgb' : 'empty');
        break;
      case 'lcd-segment': {
        // Drawn by region: one cell above each encoder's column (the Plus XL's six dials stand under a
        // strip nine keys wide), else one a column; whole otherwise.
        const dials = definitions.filter((c) => c.type === 'encoder').map((c) => c.column);
        const cells = !control.drawRegions ? [0] : dials.length > 0 ? dials : Array.from({ length: control.columnSpan }, (_, i) => i);
        const preset = bitmapPreset('lcd', control.drawRegions ? Math.floor(control.pixelSize.width / cells.length) : control.pixelSize.width, control.pixelSize.height);
        for (const column of cells) place(control.column + column, preset);
        break;
      }
    }
  }
  return { stylePresets, controls };
}

/** ADD-DEVICE's parameters, checked by the protocol's schema, and the layout recdeck makes of them. */
function added(params: Record<string, string>): SatelliteLayout {
  const parsed = AddDevice.safeParse(params);
  if (!parsed.success) throw new Error(parsed.error.message);
  const layout = layoutOf(parsed.data);
  if ('problem' in layout) throw new Error(layout.problem);
  return layout;
}

/** The profile a Satellite device of this layout gets among the shipped ones, and what of it does not fit. */
function profileFor(layout: SatelliteLayout, productName: string) {
  const surface = { kind: 'satellite' as const, model: layout.model, name: productName, serial: 'sat-1', ...(layout.standsInFor ? { standsInFor: layout.standsInFor } : {}) };
  const choice = chooseProfile(surface, shipped);
  return { name: choice?.winner.profile.name, ties: choice?.others.map((o) => o.file) ?? [], problems: choice ? checkBindings(choice.winner.profile, layout.definitions) : ['no profile'] };
}

/** What the engine sees of a control: its id and kind, and whether an LCD takes touches. */
const shapeOf = (controls: readonly ControlDefinition[]) =>
  controls.map((c) => ({ id: c.id, kind: c.kind, ...(c.kind === 'lcd' ? { touch: c.touch } : {}) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

const MODELS: DeviceModelId[] = [DeviceModelId.MINI, DeviceModelId.ORIGINALMK2, DeviceModelId.ORIGINAL, DeviceModelId.XL, DeviceModelId.PLUS, DeviceModelId.PLUS_XL, DeviceModelId.NEO, DeviceModelId.PEDAL, DeviceModelId.STUDIO];

describe('Stream Decks offered by a Satellite client', () => {
  it.each(MODELS)('%s, from its layout manifest: the shipped profile of that deck, no tie, every binding fits, the USB control ids', async (model) => {
    const { deck } = await openFakeStreamDeck(model);
    const layout = added({ DEVICEID: `streamdeck:${model}`, PRODUCT_NAME: deck.PRODUCT_NAME, LAYOUT_MANIFEST: Buffer.from(JSON.stringify(manifestOf(deck.CONTROLS))).toString('base64') });
    const usb = await fakeSurface(model);
    const overUsb = chooseProfile(usb.surface, shipped);
    const overSatellite = profileFor(layout, deck.PRODUCT_NAME);
    expect(overSatellite).toEqual({ name: overUsb?.winner.profile.name, ties: [], problems: [] });
    expect(shapeOf(layout.definitions)).toEqual(shapeOf(usb.surface.controls));
  });

  it.each([DeviceModelId.PLUS, DeviceModelId.PLUS_XL])('%s: each dial turns under the strip cell above it, the cells of the USB size', async (model) => {
    const { deck } = await openFakeStreamDeck(model);
    const layout = added({ DEVICEID: `streamdeck:${model}`, PRODUCT_NAME: deck.PRODUCT_NAME, LAYOUT_MANIFEST: Buffer.from(JSON.stringify(manifestOf(deck.CONTROLS))).toString('base64') });
    const usb = await fakeSurface(model);
    const dialsAndStrip = (controls: readonly ControlDefinition[]) => controls.filter((c) => c.kind === 'encoder' || c.kind === 'lcd').sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(dialsAndStrip(layout.definitions)).toEqual(dialsAndStrip(usb.surface.controls));
  });

  it.each([
    [6, 3, 'Stream Deck Mini'],
    [15, 5, 'Stream Deck 15 keys'],
    [32, 8, 'Stream Deck XL'],
  ])('%i keys in rows of %i the old way (KEYS_TOTAL, BITMAPS): %s', (keys, perRow, profile) => {
    const layout = added({ DEVICEID: 'x', PRODUCT_NAME: `Satellite StreamDeck: ${keys}`, KEYS_TOTAL: String(keys), KEYS_PER_ROW: String(perRow), BITMAPS: '72' });
    expect(profileFor(layout, `Satellite StreamDeck: ${keys}`)).toEqual({ name: profile, ties: [], problems: [] });
  });

  it('a shape no Stream Deck has stands in for none: 15 keys in rows of 3, or 15 keys with no bitmaps', () => {
    expect(added({ DEVICEID: 'x', PRODUCT_NAME: 'odd', KEYS_TOTAL: '15', KEYS_PER_ROW: '3', BITMAPS: '72' }).standsInFor).toBeNull();
    expect(added({ DEVICEID: 'x', PRODUCT_NAME: 'odd', KEYS_TOTAL: '15', KEYS_PER_ROW: '5', COLORS: 'hex' }).standsInFor).toBeNull();
    expect(added({ DEVICEID: 'x', PRODUCT_NAME: 'odd', KEYS_TOTAL: '15', KEYS_PER_ROW: '5', COLORS: 'hex' }).model).toBe('15-keys');
  });
});
