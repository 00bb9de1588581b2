// A profile file's text is parsed once per process (src/profiles/parsed-profiles.ts): two loads of the
// same folder, as two bridges in one process make, share each unchanged file's profile; the shared
// profile cannot be changed by one of them; a changed text is parsed again; the record is bounded.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParsedProfiles } from '../../src/profiles/parsed-profiles.js';
import { loadProfileSet } from '../../src/profiles/watch.js';

const text = (name: string) => `name: ${name}\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: page-next } }\n`;

describe('profiles parsed once per process', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'recdeck-parsed-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('two loads share an unchanged file’s profile, frozen whole; a changed file is parsed again', async () => {
    await writeFile(join(directory, 'a.yaml'), text('A'));
    await writeFile(join(directory, 'b.yaml'), text('B'));
    const first = await loadProfileSet([directory]);
    await writeFile(join(directory, 'b.yaml'), text('B2'));
    const second = await loadProfileSet([directory]);
    expect(second.profiles[0]).toBe(first.profiles[0]);
    expect(second.profiles[1]?.profile.name).toBe('B2');
    expect(second.profiles[1]).not.toBe(first.profiles[1]);
    // One holder cannot change what the other holds (ES modules run strict: a write to a frozen object throws).
    const shared = first.profiles[0]?.profile as { name: string; pages: Array<{ name: string }> };
    expect(() => (shared.name = 'changed')).toThrow(TypeError);
    expect(() => ((shared.pages[0] as { name: string }).name = 'changed')).toThrow(TypeError);
    expect(second.profiles[0]?.profile.name).toBe('A');
  });

  it('a bad file is parsed and reported as before; the record keeps at most its bound, the longest unused going first', () => {
    const parsed = new ParsedProfiles(2);
    const bad = parsed.parse('/p/bad.yaml', 'name: [');
    expect(bad.ok).toBe(false);
    const a = parsed.parse('/p/a.yaml', text('A'));
    expect(parsed.parse('/p/a.yaml', text('A'))).toBe(a);
    parsed.parse('/p/b.yaml', text('B'));
    // Three files for two places: bad.yaml, the longest unused, went; a.yaml was kept, and its use now
    // makes b.yaml the longest unused.
    expect(parsed.parse('/p/a.yaml', text('A'))).toBe(a);
    const badAgain = parsed.parse('/p/bad.yaml', 'name: [');
    expect(badAgain).not.toBe(bad);
    expect(badAgain).toEqual(bad);
    expect(parsed.parse('/p/a.yaml', text('A'))).toBe(a);
  });
});
