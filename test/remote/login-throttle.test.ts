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

  it('counts an IPv6 client by its /64: rotating through its own block gives no fresh guesses', () => {
    const throttle = new LoginThrottle(new VirtualTime());
    for (let i = 1; i <= 5; i++) taken(throttle.arrive(`2001:db8:0:1::${i.toString(16)}`)).finished();
    expect(throttle.arrive('2001:db8:0:1:ffff:1:2:3')).toMatchObject({ kind: 'wait', inARow: 5 });
    expect(throttle.arrive('2001:0db8:0000:0001::abcd')).toMatchObject({ kind: 'wait', inARow: 5 });
    expect(taken(throttle.arrive('2001:db8:0:2::1')).inARow).toBe(1); // the next /64 is another client
    expect(taken(throttle.arrive('::ffff:192.0.2.7')).inARow).toBe(1);
    expect(taken(throttle.arrive('192.0.2.7')).inARow).toBe(2); // an IPv4-mapped address is its IPv4 address
  });

  it('remembers at most its limit of guessers, dropping the one heard from longest ago', () => {
    const time = new VirtualTime();
    const throttle = new LoginThrottle(time, 8, 3);
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) taken(throttle.arrive(address)).finished();
    time.advanceTo(time.now() + 1);
    taken(throttle.arrive('192.0.2.1')).finished(); // heard from again: now the newest
    taken(throttle.arrive('192.0.2.4')).finished(); // the table is full: 192.0.2.2 goes
    expect(taken(throttle.arrive('192.0.2.2')).inARow).toBe(1);
    expect(taken(throttle.arrive('192.0.2.1')).inARow).toBe(3);
  });
});
