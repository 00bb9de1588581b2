// The bench's own flags: the small-machine section's --cpu-quota (whole percents of a core, repeated or
// comma-separated) and --press-trace, which only the desk section (i) understands.
import { expect, it } from 'vitest';
import { deskSelected, parseCpuQuotas, parsePressTrace } from '../../src/bench/bench-flags.js';

it('takes quotas repeated or comma-separated, each once, in order', () => {
  expect(parseCpuQuotas(['25'])).toEqual([25]);
  expect(parseCpuQuotas(['25', '15'])).toEqual([25, 15]);
  expect(parseCpuQuotas(['25,15', '25'])).toEqual([25, 15]);
  expect(parseCpuQuotas([])).toEqual([]);
});

it.each(['0', '5', '101', '12.5', 'abc', '', '25,', '-25'])('refuses %j, naming it', (text) => {
  expect(() => parseCpuQuotas([text])).toThrow(`--cpu-quota: expected whole percents of one core from 10 to 100 (e.g. 25 or 25,15), got`);
});

it('runs the desk with --only desk, or with quotas and no other section named', () => {
  expect(deskSelected('desk', [])).toBe(true);
  expect(deskSelected(undefined, [25])).toBe(true);
  expect(deskSelected(undefined, [])).toBe(false);
  expect(deskSelected('idle', [25])).toBe(false);
});

it('takes --press-trace with the desk only, and says so elsewhere', () => {
  expect(parsePressTrace(true, true)).toBe(true);
  expect(parsePressTrace(false, true)).toBe(false);
  expect(parsePressTrace(false, false)).toBe(false);
  expect(() => parsePressTrace(true, false)).toThrow('--press-trace: only bench (i) traces its presses; give it with --cpu-quota (e.g. --cpu-quota 25,15) or --only desk');
});
