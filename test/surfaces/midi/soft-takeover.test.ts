// Soft takeover: a fader that is not where the gain is does nothing until it gets there (or crosses
// it), then follows; a gain changed elsewhere makes it wait again.
import { describe, expect, it } from 'vitest';
import { SoftTakeover } from '../../../src/surfaces/midi/soft-takeover.js';

describe('soft takeover', () => {
  it('passes everything on while no gain is known', () => {
    const fader = new SoftTakeover();
    expect(fader.move(0.9, 0)).toBe(0.9);
    expect(fader.pickedUp).toBe(true);
  });

  it('holds the fader back until it reaches the gain, then follows', () => {
    const fader = new SoftTakeover();
    fader.setTarget(0.5, 0);
    expect(fader.move(0.9, 10)).toBeNull();
    expect(fader.move(0.7, 20)).toBeNull();
    expect(fader.pickedUp).toBe(false);
    expect(fader.move(0.505, 30)).toBe(0.505);
    expect(fader.move(0.8, 40)).toBe(0.8);
    expect(fader.move(0.1, 50)).toBe(0.1);
  });

  it('picks up when a fast move jumps across the gain', () => {
    const fader = new SoftTakeover();
    fader.setTarget(0.5, 0);
    expect(fader.move(0.2, 10)).toBeNull();
    expect(fader.move(0.6, 20)).toBe(0.6);
  });

  it('does not take the first position as a crossing (nothing to cross from)', () => {
    const fader = new SoftTakeover();
    fader.setTarget(0.5, 0);
    expect(fader.move(0.1, 10)).toBeNull();
  });

  it('keeps following through the lagging echoes of its own moves', () => {
    const fader = new SoftTakeover({ graceMs: 1000 });
    fader.setTarget(0.5, 0);
    fader.move(0.5, 100);
    fader.move(0.8, 200);
    fader.setTarget(0.6, 300); // the gain of an earlier move, reported while the hand still moves
    expect(fader.move(0.85, 400)).toBe(0.85);
    fader.setTarget(0.85, 2000); // the echo of the last move, after the hand let go
    expect(fader.move(0.9, 2100)).toBe(0.9);
  });

  it('lets go when the gain is changed elsewhere while the fader rests', () => {
    const fader = new SoftTakeover({ graceMs: 1000 });
    fader.setTarget(0.5, 0);
    fader.move(0.5, 100);
    fader.setTarget(0.2, 5000); // set from another surface
    expect(fader.pickedUp).toBe(false);
    expect(fader.move(0.55, 5100)).toBeNull();
    expect(fader.move(0.21, 5200)).toBe(0.21);
  });
});
