// The one decision of what a source's gain is and how current: pure, over what was read and written and
// when, so each rule is a line here (the bridge-level cases are in test/remote/gain-truth.test.ts and
// test/surfaces/streamdeck/session-truth.test.ts).
import { describe, expect, it } from 'vitest';
import { gainTruth, stepBasis, type GainFacts, type GainRead, type GainWrites } from '../../src/engine/gain-truth.js';

const LIVE_FOR = 300; // 3 meter intervals of 100 ms
const read = (db: number, at: number, order: number): GainRead => ({ db, levels: [-20, -24], at, order });
const written = (db: number, over: Partial<GainWrites> = {}): GainWrites => ({ db, inFlight: 0, answered: null, ...over });
const facts = (over: Partial<GainFacts>): GainFacts => ({ read: null, written: null, now: 10_000, liveForMs: LIVE_FOR, offline: false, ...over });

describe('a read gain', () => {
  it('is live while younger than 3 meter intervals, with its levels (both go the millisecond after)', () => {
    const truth = gainTruth(facts({ read: read(-6, 9_800, 1) }));
    expect(truth).toEqual({ db: -6, freshness: 'live', ageS: null, levels: [-20, -24], changesAt: 10_101 });
    expect(gainTruth(facts({ read: read(-6, 9_800, 1), now: 10_100 })).freshness).toBe('live');
    expect(gainTruth(facts({ read: read(-6, 9_800, 1), now: 10_101 }))).toMatchObject({ freshness: 'stale', levels: null });
    expect(stepBasis(truth)).toBe(-6);
  });

  it('older than that it is shown with its age and no levels, and no step starts from it', () => {
    const truth = gainTruth(facts({ read: read(-6, 4_000, 1) }));
    expect(truth).toEqual({ db: -6, freshness: 'stale', ageS: 6, levels: null, changesAt: 11_000 });
    expect(stepBasis(truth)).toBeNull();
  });

  it('never read: unknown, and a step reads it first', () => {
    expect(gainTruth(facts({}))).toEqual({ db: null, freshness: 'stale', ageS: null, levels: null, changesAt: null });
    expect(stepBasis(gainTruth(facts({})))).toBeNull();
  });

  it('of a recorder that is offline is never live, however young', () => {
    const truth = gainTruth(facts({ read: read(-6, 9_900, 1), offline: true }));
    expect(truth).toMatchObject({ db: -6, freshness: 'offline', levels: null });
    expect(stepBasis(truth)).toBeNull();
  });
});

describe('a gain this bridge writes', () => {
  it('is the gain while its write is under way, whatever a read says meanwhile: quick detents chain', () => {
    const truth = gainTruth(facts({ read: read(0, 9_990, 5), written: written(-1.5, { inFlight: 2, answered: { at: 9_980, order: 4, ok: true } }) }));
    expect(truth).toMatchObject({ db: -1.5, freshness: 'live' });
    expect(stepBasis(truth)).toBe(-1.5);
  });

  it('stays the gain for 3 meter intervals after its answer; a read sent before that answer does not undo it', () => {
    const sentBefore = read(0, 9_950, 3); // came back after the answer, but left before it
    expect(gainTruth(facts({ read: sentBefore, written: written(-2, { answered: { at: 9_900, order: 4, ok: true } }) }))).toMatchObject({ db: -2, freshness: 'live', levels: [-20, -24] });
  });

  it('lapses after that: shown as old, not live, when no read follows (nobody views the deck)', () => {
    const truth = gainTruth(facts({ read: read(0, 2_000, 1), written: written(-2, { answered: { at: 4_000, order: 2, ok: true } }) }));
    expect(truth).toEqual({ db: -2, freshness: 'stale', ageS: 6, levels: null, changesAt: 11_000 });
    expect(stepBasis(truth)).toBeNull();
  });

  it('gives way to a read sent after its answer: another operator\'s change is the gain', () => {
    const truth = gainTruth(facts({ read: read(6, 9_990, 5), written: written(-2, { answered: { at: 9_950, order: 4, ok: true } }) }));
    expect(truth).toMatchObject({ db: 6, freshness: 'live' });
  });

  it('that the recorder refused (or whose answer never came) is no gain to build on: the read before it is old', () => {
    const truth = gainTruth(facts({ read: read(0, 9_900, 1), written: written(-2, { answered: { at: 9_950, order: 2, ok: false } }) }));
    expect(truth).toMatchObject({ db: 0, freshness: 'stale', ageS: 0 });
    expect(stepBasis(truth)).toBeNull();
    expect(gainTruth(facts({ written: written(-2, { answered: { at: 9_950, order: 2, ok: false } }) }))).toMatchObject({ db: null, freshness: 'stale' });
  });

  it('under way while the recorder is offline shows offline, and no step starts from it', () => {
    const truth = gainTruth(facts({ written: written(-2, { inFlight: 1 }), offline: true }));
    expect(truth.freshness).toBe('offline');
    expect(stepBasis(truth)).toBeNull();
  });
});
