// Pictures are compared in place on every refresh: equal data is the same picture however it was built,
// and any difference, however deep, is a different one.
import { describe, expect, it } from 'vitest';
import { pictureKey, samePicture, type Picture } from '../../src/engine/picture.js';

const meter = (levels: number[], overlay?: Picture['overlay']): Picture => ({ kind: 'meter', channel: 1, source: 'Cam 1', levels, gainDb: -3, freshness: 'live', ageS: null, ...(overlay ? { overlay } : {}) });

describe('samePicture', () => {
  it('agrees with the picture keys on pictures built apart', () => {
    const cases: Array<[Picture, Picture]> = [
      [meter([0.1, 0.2]), meter([0.1, 0.2])],
      [meter([0.1, 0.2]), meter([0.2, 0.1])],
      [meter([0.1, 0.2]), meter([0.1, 0.2, 0.3])],
      [meter([0.1], { flash: 'failed', reason: 'busy' }), meter([0.1], { flash: 'failed', reason: 'busy' })],
      [meter([0.1], { flash: 'failed', reason: 'busy' }), meter([0.1], { flash: 'failed', reason: 'idle' })],
      [meter([0.1], { hold: 0.5 }), meter([0.1])],
      [{ kind: 'blank' }, meter([])],
    ];
    for (const [a, b] of cases) expect(samePicture(a, b), `${pictureKey(a)} / ${pictureKey(b)}`).toBe(pictureKey(a) === pictureKey(b));
  });

  it('a property set to undefined is the same as one left out, as in the keys', () => {
    expect(samePicture(meter([0.1], { hold: undefined }), meter([0.1], {}))).toBe(true);
    expect(samePicture({ kind: 'blank', overlay: undefined }, { kind: 'blank' })).toBe(true);
  });

  it('null is not an empty object, and an array is not an object with the same indexes', () => {
    expect(samePicture({ kind: 'blank', overlay: null } as unknown as Picture, { kind: 'blank', overlay: {} })).toBe(false);
    expect(samePicture(meter([1]), { ...meter([1]), levels: { 0: 1 } } as unknown as Picture)).toBe(false);
  });
});
