// The one teardown of `recdeck run` (src/cli/teardown.ts): reverse order, each release awaited, a
// failing release logged without keeping the others from being released, idempotent, and a start that
// fails half-way releasing only what it had acquired. start-bridge-teardown.test.ts drives the real
// wiring through it.
import { describe, expect, it } from 'vitest';
import { Teardown } from '../../src/cli/teardown.js';

function logged(): { errors: string[]; log: { error: (message: string) => void } } {
  const errors: string[] = [];
  return { errors, log: { error: (message) => errors.push(message) } };
}

/** A promise settled from outside, so a release can be held open while the test looks. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('Teardown', () => {
  it('releases in the reverse order of acquisition, each awaited before the next begins', async () => {
    const { log, errors } = logged();
    const teardown = new Teardown(log);
    const events: string[] = [];
    const slow = gate();
    teardown.defer('first', () => void events.push('first'));
    teardown.defer('second', async () => {
      events.push('second begins');
      await slow.promise;
      events.push('second ends');
    });
    teardown.defer('third', () => void events.push('third'));
    const released = teardown.release();
    // Let every pending callback run: the first must still wait for the second's release.
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(events).toEqual(['third', 'second begins']);
    slow.open();
    await released;
    expect(events).toEqual(['third', 'second begins', 'second ends', 'first']);
    expect(errors).toEqual([]);
  });

  it('logs a release that throws or rejects, naming it, and still releases the rest', async () => {
    const { log, errors } = logged();
    const teardown = new Teardown(log);
    const released: string[] = [];
    teardown.defer('devices', () => void released.push('devices'));
    teardown.defer('web server', async () => {
      throw new Error('would not close');
    });
    teardown.defer('bridge', () => void released.push('bridge'));
    teardown.defer('alarms', () => {
      throw new Error('stuck');
    });
    await teardown.release(); // resolves: a stop goes on to the end
    expect(released).toEqual(['bridge', 'devices']);
    expect(errors).toEqual(['stopping: alarms: stuck; the rest is released', 'stopping: web server: would not close; the rest is released']);
  });

  it('is idempotent: a second call, during or after the first, waits for the same teardown and releases nothing twice', async () => {
    const { log } = logged();
    const teardown = new Teardown(log);
    const calls = new Map<string, number>();
    const slow = gate();
    const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
    teardown.defer('a', () => void count('a'));
    teardown.defer('b', async () => {
      count('b');
      await slow.promise;
    });
    const first = teardown.release();
    const during = teardown.release();
    expect(during).toBe(first);
    let duringDone = false;
    void during.then(() => (duringDone = true));
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(duringDone).toBe(false); // it waits for the release under way, not for nothing
    slow.open();
    await first;
    expect(duringDone).toBe(true);
    await teardown.release();
    expect(Object.fromEntries(calls)).toEqual({ a: 1, b: 1 });
  });

  it('refuses a resource deferred once the teardown has begun (nothing would release it)', async () => {
    const { log } = logged();
    const teardown = new Teardown(log);
    await teardown.release();
    expect(() => teardown.defer('late server', () => undefined)).toThrow('late server: acquired after the teardown began; nothing would release it');
  });

  it('after a start that fails half-way, releases exactly what was acquired until then', async () => {
    const { log } = logged();
    const open = new Set<string>();
    // A start like startBridge's: acquire, defer, ..., and on a failure release and pass the failure on.
    const start = async (failAt: number): Promise<Teardown> => {
      const teardown = new Teardown(log);
      try {
        for (const [i, name] of ['sources', 'audit file', 'simulator', 'bridge', 'web server'].entries()) {
          if (i === failAt) throw new Error(`${name} failed`);
          open.add(name);
          teardown.defer(name, () => void open.delete(name));
        }
        return teardown;
      } catch (error) {
        await teardown.release();
        throw error;
      }
    };
    for (let failAt = 0; failAt < 5; failAt += 1) {
      await expect(start(failAt)).rejects.toThrow('failed');
      expect([...open]).toEqual([]);
    }
    const running = await start(5);
    expect(open.size).toBe(5);
    await running.release();
    expect([...open]).toEqual([]);
  });
});
