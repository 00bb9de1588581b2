import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ControlDefinition } from '../../src/engine/surface.js';
import { parseProfile } from '../../src/profiles/load.js';
import type { LoadedProfile } from '../../src/profiles/schema.js';
import { checkBindings, chooseProfile, compactIds, profileFits, tieOf } from '../../src/engine/profile-match.js';
import { SHIPPED_PROFILES } from '../../src/profiles/origin.js';

function loaded(file: string, match: string, controls = '{}'): LoadedProfile {
  const result = parseProfile(`name: ${file}\nmatch: ${match}\npages: [{ name: main, controls: ${controls} }]\n`, file);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.loaded;
}

const XL = { kind: 'streamdeck', model: 'xl', name: 'Stream Deck XL', serial: 'CL123' } as const;

describe('profileFits', () => {
  it('rates serial over name over model over kind', () => {
    expect(profileFits(loaded('a', '{ kind: streamdeck }').profile, XL)).toBe(1);
    expect(profileFits(loaded('a', '{ kind: streamdeck, model: xl }').profile, XL)).toBe(2);
    expect(profileFits(loaded('a', '{ kind: streamdeck, name: Stream Deck XL }').profile, XL)).toBe(3);
    expect(profileFits(loaded('a', '{ kind: streamdeck, model: xl, serial: CL123 }').profile, XL)).toBe(4);
  });

  it('takes a list of models', () => {
    const profile = loaded('a', '{ kind: streamdeck, model: [mk2, xl] }').profile;
    expect(profileFits(profile, XL)).toBe(2);
    expect(profileFits(profile, { ...XL, model: 'plus' })).toBeNull();
  });

  it('needs every given field to agree', () => {
    expect(profileFits(loaded('a', '{ kind: midi }').profile, XL)).toBeNull();
    expect(profileFits(loaded('a', '{ kind: streamdeck, model: plus }').profile, XL)).toBeNull();
    expect(profileFits(loaded('a', '{ kind: streamdeck, name: Other }').profile, XL)).toBeNull();
    expect(profileFits(loaded('a', '{ kind: streamdeck, model: xl, serial: CL999 }').profile, XL)).toBeNull();
    expect(profileFits(loaded('a', '{ kind: streamdeck, serial: CL123 }').profile, { kind: 'streamdeck', model: 'xl', name: 'XL' })).toBeNull();
  });
});

describe('chooseProfile', () => {
  const winnerOf = (profiles: LoadedProfile[]) => chooseProfile(XL, profiles)?.winner;

  it('picks the most specific fit', () => {
    const general = loaded('a-general.yaml', '{ kind: streamdeck }');
    const model = loaded('b-model.yaml', '{ kind: streamdeck, model: xl }');
    const named = loaded('c-named.yaml', '{ kind: streamdeck, name: Stream Deck XL }');
    const pinned = loaded('d-pinned.yaml', '{ kind: streamdeck, serial: CL123 }');
    const other = loaded('e-midi.yaml', '{ kind: midi }');
    expect(chooseProfile(XL, [general, model, named, pinned, other])).toEqual({ winner: pinned, others: [] });
    expect(winnerOf([general, model, named, other])).toBe(named);
    expect(winnerOf([general, model, other])).toBe(model);
    expect(winnerOf([other, general])).toBe(general);
    expect(chooseProfile(XL, [other])).toBeUndefined();
  });

  it('breaks a tie by file path, whatever the order given, and reports the tie', () => {
    const first = loaded('mine/a.yaml', '{ kind: streamdeck, model: xl }');
    const second = loaded('mine/b.yaml', '{ kind: streamdeck, model: [plus, xl] }');
    const general = loaded('mine/0-general.yaml', '{ kind: streamdeck }');
    expect(chooseProfile(XL, [first, second, general])).toEqual({ winner: first, others: [second] });
    expect(chooseProfile(XL, [second, general, first])).toEqual({ winner: first, others: [second] });
    expect(tieOf(chooseProfile(XL, [second, first]))).toEqual({ winner: 'mine/a.yaml', others: ['mine/b.yaml'], origin: 'operator' });
    expect(tieOf(chooseProfile(XL, [first, general]))).toBeNull();
  });

  it("the operator's own profile outranks a shipped one as specific, with no tie; specificity still comes first", () => {
    const shippedXl = loaded(join(SHIPPED_PROFILES, 'streamdeck-xl.yaml'), '{ kind: streamdeck, model: xl }');
    const shippedCopy = loaded(join(SHIPPED_PROFILES, 'streamdeck-xl-copy.yaml'), '{ kind: streamdeck, model: xl }');
    const studio = loaded('/etc/recdeck/studio-a.yaml', '{ kind: streamdeck, model: xl }'); // after "streamdeck-xl" by name, wherever it lives
    const ownGeneral = loaded('/etc/recdeck/all-decks.yaml', '{ kind: streamdeck }');
    const pinnedShipped = loaded(join(SHIPPED_PROFILES, 'pinned.yaml'), '{ kind: streamdeck, serial: CL123 }');
    expect([shippedXl.origin, studio.origin]).toEqual(['shipped', 'operator']);
    expect(chooseProfile(XL, [shippedXl, studio, ownGeneral])).toEqual({ winner: studio, others: [] });
    expect(chooseProfile(XL, [shippedXl, studio, pinnedShipped])).toEqual({ winner: pinnedShipped, others: [] });
    // Two shipped ones alike (a backup copy left in the folder) tie; the operator's own still wins over both.
    expect(tieOf(chooseProfile(XL, [shippedXl, shippedCopy]))).toEqual({ winner: shippedCopy.file, others: [shippedXl.file], origin: 'shipped' });
    expect(chooseProfile(XL, [shippedXl, shippedCopy, studio])).toEqual({ winner: studio, others: [] });
  });
});

describe('checkBindings', () => {
  const plusLike: ControlDefinition[] = [
    ...Array.from({ length: 15 }, (_, i): ControlDefinition => ({ kind: 'key', id: `key${i}`, row: Math.floor(i / 5), column: i % 5, pixelSize: { width: 96, height: 96 } })),
    { kind: 'encoder', id: 'dial0', pressable: true, ring: false, lcd: 'strip0' },
    { kind: 'encoder', id: 'dial1', pressable: false, ring: false },
    { kind: 'encoder', id: 'dial2', pressable: true, ring: false, lcd: 'strip2' },
    { kind: 'encoder', id: 'dial3', pressable: true, ring: false },
    { kind: 'lcd', id: 'strip0', pixelSize: { width: 200, height: 100 }, touch: true },
    { kind: 'lcd', id: 'strip2', pixelSize: { width: 200, height: 100 }, touch: false },
    { kind: 'fader', id: 'fader0', motorised: false },
    { kind: 'button', id: 'pedal', feedback: 'none' },
  ];

  it('accepts bindings the controls can carry out', () => {
    const profile = loaded(
      'ok.yaml',
      '{ kind: memory }',
      `{ key0: { press: { action: dialog-ok }, hold: { do: { action: dialog-cancel } } }, dial0: { turn: { action: page-next }, press: { action: page-previous }, touch: { tap: { action: page-next } } }, strip0: { touch: { long: { action: page-next } }, press: { action: page-next } }, fader0: { fader: { action: gain-fader, channel: 1 } }, pedal: { press: { action: page-next } } }`,
    ).profile;
    expect(checkBindings(profile, plusLike)).toEqual([]);
  });

  it('says what each control cannot do, naming page and control', () => {
    const profile = loaded(
      'bad.yaml',
      '{ kind: memory }',
      `{ key15: { press: { action: page-next } }, key1: { turn: { action: page-next }, touch: { tap: { action: page-next } } }, dial3: { fader: { action: gain-fader, channel: 1 }, touch: { tap: { action: page-next } } }, dial1: { press: { action: page-next } }, fader0: { press: { action: page-next }, release: { action: page-next } }, strip2: { press: { action: page-next }, touch: { tap: { action: page-next } } }, pedal: { turn: { action: page-next } } }`,
    ).profile;
    expect(checkBindings(profile, plusLike)).toEqual([
      'page "main": control "key15": not on this surface, which has key0–key14, dial0–dial3, strip0, strip2, fader0, pedal',
      'page "main": control "key1": turn is bound, but it is a key; only dials turn',
      'page "main": control "key1": touch is bound, but it is a key; only touch LCD cells (and the dials they belong to) take touches',
      'page "main": control "dial3": fader is bound, but it is a dial; only faders and absolute knobs move',
      'page "main": control "dial3": touch is bound, but it is a dial; only touch LCD cells (and the dials they belong to) take touches',
      'page "main": control "dial1": press is bound, but this dial cannot be pressed',
      'page "main": control "fader0": press and release are bound, but it is a fader, which cannot be pressed',
      'page "main": control "strip2": touch is bound, but this LCD cell does not take touches',
      'page "main": control "strip2": press is bound, but it is an LCD cell that does not take touches',
      'page "main": control "pedal": turn is bound, but it is a button; only dials turn',
    ]);
  });
});

describe('compactIds', () => {
  it('shows runs of numbered ids as ranges', () => {
    expect(compactIds(['key0', 'key1', 'key2', 'dial0', 'dial1', 'pedal', 'key7', 'key01'])).toBe('key0–key2, dial0, dial1, pedal, key7, key01');
    expect(compactIds([])).toBe('no controls');
  });
});
