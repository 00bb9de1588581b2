// The lazy loaders' one shape (src/api/loaded-once.ts): the package is loaded at the first call, not
// before, and only once; a load that failed is tried again rather than kept as a failure.
import { describe, expect, it } from 'vitest';
import { loadedOnce } from '../../src/api/loaded-once.js';

describe('loadedOnce', () => {
  it('loads at the first call and answers every later call with the same value', () => {
    let loads = 0;
    const library = loadedOnce(() => ({ loaded: ++loads }));
    expect(loads).toBe(0);
    const first = library();
    expect(first).toEqual({ loaded: 1 });
    expect(library()).toBe(first);
    expect(loads).toBe(1);
  });

  it('a load that throws is tried again at the next call; a value that is undefined is kept too', () => {
    let loads = 0;
    const library = loadedOnce(() => {
      loads++;
      if (loads === 1) throw new Error('cannot load');
      return 'loaded';
    });
    expect(() => library()).toThrow('cannot load');
    expect(library()).toBe('loaded');
    expect(library()).toBe('loaded');
    expect(loads).toBe(2);
    let empty = 0;
    const nothing = loadedOnce(() => void empty++);
    nothing();
    nothing();
    expect(empty).toBe(1);
  });
});
