// The bench's percentiles are nearest-rank: a p99 of 100 samples is the 99th smallest, never an interpolation.
import { expect, it } from 'vitest';
import { mean, percentile } from '../../src/bench/stats.js';

it('takes the nearest rank, whatever the order of the samples', () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1
  expect(percentile(samples, 50)).toBe(50);
  expect(percentile(samples, 99)).toBe(99);
  expect(percentile(samples, 100)).toBe(100);
  expect(percentile(samples, 0)).toBe(1);
  expect(percentile([7], 99)).toBe(7);
  expect(percentile([3, 1, 2], 95)).toBe(3);
});

it('has no figure for no samples', () => {
  expect(percentile([], 50)).toBeNaN();
  expect(mean([])).toBeNaN();
  expect(mean([1, 2, 6])).toBe(3);
});
