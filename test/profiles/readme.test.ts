// The README's example profile is a real one: it loads as written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profiles/load.js';

describe('README', () => {
  it('its example profile loads', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const result = parseProfile(example as string, 'README.md');
    expect(result.ok ? [] : result.problems).toEqual([]);
  });
});
