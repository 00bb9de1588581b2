// Bench (i)'s split of the cores: the bridge alone on CPU 0, the world on the rest; and the affinity read
// back from taskset for this very process (the list the bench restores after its rows).
import { describe, expect, it } from 'vitest';
import { affinityOf, cpuSplit } from '../../src/bench/cpu-pinning.js';

describe('cpu pinning', () => {
  it('one core has nothing to separate; two or more put the bridge on CPU 0 and the world on the rest', () => {
    expect(cpuSplit(1)).toBeNull();
    expect(cpuSplit(2)).toEqual({ bridge: '0', world: '1' });
    expect(cpuSplit(4)).toEqual({ bridge: '0', world: '1-3' });
  });

  it("reads this process's CPU list as taskset gives it", async () => {
    expect(await affinityOf(process.pid)).toMatch(/^\d+([-,]\d+)*$/);
  });
});
