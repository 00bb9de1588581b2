// The login throttle as a pure decision over the guesses of each address (issue 25): counted when they
// arrive, places among the logins under way given back when answered, episodes said once, addresses
// forgotten after an hour of quiet.
import { describe, expect, it } from 'vitest';
import { LoginThrottle, type Arrival, type Guess } from '../../src/remote/login-throttle.js';
import { VirtualTime } from '../support/virtual-time.js';

function taken(arrival: Arrival): Guess {
  if (arrival.kind !== 'taken') throw new Error(`expected the guess taken, got ${JSON.stringify(arrival)}`);
  return arrival.guess;
}

describe('the login throttle', () => {
  it('counts a guess when it arrives: the sixth at once waits, though none has been looked at', () => {
    const time = new VirtualTime();
    const throttle = new LoginThrottle(time);
    const guesses = [1, 2, 3, 4, 5].map(() => taken(throttle.arrive('192.0.2.1')));
    expect(guesses.map((g) => g.inARow)).toEqual([1, 2, 3, 4, 5]);
    expect(throttle.arrive('192.0.2.1')).toEqual({ kind: 'wait', waitS: 1, inARow: 5, firstRefusal: true });
    expect(throttle.arrive('192.0.2.1')).toMatchObject({ kind: 'wait', firstRefusal: false });
    expect(taken(throttle.arrive('192.0.2.2')).inARow).toBe(1); // another address is not touched
  });

  it('a right one clears its address and ends the episode', () => {
    const time = new VirtualTime();
    const throttle = new LoginThrottle(time);
    for (let i = 0; i < 5; i++) taken(throttle.arrive('192.0.2.1')).finished();
    expect(throttle.arrive('192.0.2.1')).toMatchObject({ kind: 'wait', firstRefusal: true });
    time.advanceTo(time.now() + 1000);
    const guess = taken(throttle.arrive('192.0.2.1'));
    expect(guess.inARow).toBe(6);
    guess.right();
    guess.finished();
    for (let i = 0; i < 5; i++) taken(throttle.arrive('192.0.2.1')).finished();
    expect(throttle.arrive('192.0.2.1')).toMatchObject({ kind: 'wait', waitS: 1, firstRefusal: true });
  });

  it('caps the guesses under way per address; an answered one gives its place back, once', () => {
    const time = new VirtualTime();
    const throttle = new LoginThrottle(time, 2);
    const first = taken(throttle.arrive('192.0.2.1'));
    taken(throttle.arrive('192.0.2.1'));
    expect(throttle.arrive('192.0.2.1')).toEqual({ kind: 'busy', underWay: 2 });
    first.finished();
    first.finished();
    taken(throttle.arrive('192.0.2.1'));
    expect(throttle.arrive('192.0.2.1')).toEqual({ kind: 'busy', underWay: 2 });
  });

  it('forgets an address quiet for an hour', () => {
    const time = new VirtualTime();
    const throttle = new LoginThrottle(time);
    for (const address of ['192.0.2.1', '192.0.2.2']) for (let i = 0; i < 5; i++) taken(throttle.arrive(address)).finished();
    time.advanceTo(time.now() + 60 * 60_000);
    expect(taken(throttle.arrive('192.0.2.1')).inARow).toBe(6); // quiet for exactly an hour: still remembered
    time.advanceTo(time.now() + 1);
    expect(taken(throttle.arrive('192.0.2.2')).inARow).toBe(1);
  });
});
