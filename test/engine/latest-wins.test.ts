// The one latest-wins queue: the newest item of a key replaces one waiting, in its place in line (with
// a merge where the waiting one's base matters); a turn's items leave in one batch on the injected
// clock, and a batch the link cannot take waits, the newest of each key, for the next flush.
import { describe, expect, it } from 'vitest';
import { LatestWins, PerKeyWriter, TurnBatch } from '../../src/engine/latest-wins.js';
import { VirtualTime } from '../support/virtual-time.js';

describe('LatestWins', () => {
  it('the newest per key, in the order first asked for; next() skips keys that are not ready', () => {
    const line = new LatestWins<string, number>();
    line.put('a', 1);
    line.put('b', 2);
    line.put('a', 3);
    expect(line.next((key) => key !== 'a')).toBe('b');
    expect(line.takeAll()).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    expect(line.size).toBe(0);
  });

  it('a merge keeps what the waiting item knows', () => {
    const line = new LatestWins<string, { from: number; to: number }>((waiting, newer) => ({ ...newer, from: waiting.from }));
    line.put('k', { from: 0, to: 1 });
    line.put('k', { from: 1, to: 2 });
    expect(line.take('k')).toEqual({ from: 0, to: 2 });
  });
});

describe('PerKeyWriter', () => {
  it('one write at a time per key, the newest replacing what waits; keys do not wait for each other', async () => {
    const writes: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writer = new PerKeyWriter<string, number>(
      async (key, item) => {
        writes.push(`${key}${item}`);
        if (key === 'a' && item === 1) await gate;
      },
      () => undefined,
    );
    writer.push('a', 1);
    writer.push('a', 2);
    writer.push('a', 3);
    writer.push('b', 1);
    expect(writes).toEqual(['a1', 'b1']);
    release();
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(writes).toEqual(['a1', 'b1', 'a3']);
    expect(writer.idle).toBe(true);
  });
});

describe('TurnBatch', () => {
  it('what comes in one turn leaves together on the clock; a held batch goes with the next flush, the newest of each', () => {
    const time = new VirtualTime();
    const batches: Array<Array<[string, number]>> = [];
    let open = true;
    const batch = new TurnBatch<string, number>(time, (items) => {
      if (!open) return false;
      batches.push([...items]);
      return true;
    });
    batch.push('a', 1);
    batch.push('b', 1);
    batch.push('a', 2);
    expect(batches).toEqual([]); // nothing leaves before the clock moves
    time.advance(0);
    expect(batches).toEqual([
      [
        ['a', 2],
        ['b', 1],
      ],
    ]);
    open = false;
    batch.push('a', 3);
    time.advance(0);
    expect(batch.waiting).toBe(1);
    batch.push('a', 4);
    open = true;
    time.advance(0);
    expect(batches.at(-1)).toEqual([['a', 4]]);
    batch.push('c', 1);
    batch.clear();
    time.advance(0);
    expect(batches).toHaveLength(2);
  });
});
