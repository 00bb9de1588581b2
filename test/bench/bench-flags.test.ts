// The bench's own flags: the small-machine section's --cpu-quota (whole percents of a core, repeated or
// comma-separated), --press-trace, which only the desk section (i) understands, --only's section and the
// counts, each refused with its name and what it takes.
import { expect, it } from 'vitest';
import { BENCH_USAGE, ONLY_SECTIONS, deskSelected, parseCount, parseCpuQuotas, parseOnly, parsePressTrace } from '../../src/bench/bench-flags.js';

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

it('takes --only for a section it has, and refuses any other, naming them all (a typo once ran the whole bench)', () => {
  expect(parseOnly(undefined)).toBeUndefined();
  for (const section of ONLY_SECTIONS) expect(parseOnly(section)).toBe(section);
  expect(() => parseOnly('dsk')).toThrow('--only: expected one of desk, load-none, load-off, load-on, idle, bus, facility, press, hid, got "dsk"');
  expect(() => parseOnly('')).toThrow('got ""');
  expect(BENCH_USAGE).toContain(`--only SECTION       one section: ${ONLY_SECTIONS.join(', ')}`);
});

it.each(['0', '-1', '2.5', 'abc', '', '1e3'])('refuses a count of %j, naming the flag', (text) => {
  expect(() => parseCount('--panels', text)).toThrow(`--panels: expected a whole number from 1, got ${JSON.stringify(text)}`);
});

it('takes a whole count from 1, or none', () => {
  expect(parseCount('--panels', '100')).toBe(100);
  expect(parseCount('--curve', '1')).toBe(1);
  expect(parseCount('--curve', undefined)).toBeUndefined();
});
