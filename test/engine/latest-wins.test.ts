// The one latest-wins queue: the newest item of a key replaces one waiting, in its place in line (with
// a merge where the waiting one's base matters); a turn's items leave in one batch, as page-frame work
// on the WorkScheduler (on the injected clock); a batch the link cannot take waits, the newest of each
// key, for the next flush, and one its slice had no time for goes on in the next slice.
import { describe, expect, it } from 'vitest';
import { LatestWins } from '../../src/engine/latest-wins.js';
import { TurnBatch } from '../../src/engine/turn-batch.js';
import { WorkScheduler } from '../../src/engine/work-scheduler.js';
import { VirtualTime } from '../support/virtual-time.js';
import { WorkTime } from '../support/work-time.js';

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

describe('TurnBatch', () => {
  it('what comes in one turn leaves together on the clock; a held batch goes with the next flush, the newest of each', () => {
    const time = new VirtualTime();
    const work = new WorkScheduler(time, { onError: (_priority, error) => { throw error; } });
    const batches: Array<Array<[string, number]>> = [];
    let open = true;
    const batch = new TurnBatch<string, number>(work, 'frames:test', (items) => {
      if (!open) return 0;
      batches.push([...items]);
      return items.length;
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

  it('a flush whose slice runs out sends the rest in the next slice, after more urgent work, the newest of each', () => {
    const time = new WorkTime();
    const work = new WorkScheduler(time, { sliceMs: 2, onError: (_priority, error) => { throw error; } });
    const batches: Array<Array<[string, number]>> = [];
    const batch = new TurnBatch<string, number>(work, 'frames:test', (items, slice) => {
      const sent: Array<[string, number]> = [];
      for (const item of items) {
        if (sent.length > 0 && slice.spent()) break;
        time.spend(1); // framing one image costs a millisecond
        sent.push(item);
      }
      batches.push(sent);
      return sent.length;
    });
    for (const key of ['a', 'b', 'c', 'd', 'e']) batch.push(key, 1);
    time.turn();
    expect(batches).toEqual([[['a', 1], ['b', 1]]]);
    batch.push('d', 2); // newer content for a key still waiting: it goes in that key's place
    const order: string[] = [];
    work.post('pictures', 'picture:k', () => void order.push(`picture after ${batches.length} batches`));
    time.turn();
    expect(order).toEqual(['picture after 1 batches']); // the picture went before the rest of the frames
    time.turn();
    time.turn();
    expect(batches).toEqual([[['a', 1], ['b', 1]], [['c', 1], ['d', 2]], [['e', 1]]]);
    expect(batch.waiting).toBe(0);
  });
});
