// The small-machine section's --cpu-quota: whole percents of a core, repeated or comma-separated.
import { expect, it } from 'vitest';
import { parseCpuQuotas } from '../../src/bench/bench-flags.js';

it('takes quotas repeated or comma-separated, each once, in order', () => {
  expect(parseCpuQuotas(['25'])).toEqual([25]);
  expect(parseCpuQuotas(['25', '15'])).toEqual([25, 15]);
  expect(parseCpuQuotas(['25,15', '25'])).toEqual([25, 15]);
  expect(parseCpuQuotas([])).toEqual([]);
});

it.each(['0', '5', '101', '12.5', 'abc', '', '25,', '-25'])('refuses %j, naming it', (text) => {
  expect(() => parseCpuQuotas([text])).toThrow(`--cpu-quota: expected whole percents of one core from 10 to 100 (e.g. 25 or 25,15), got`);
});
