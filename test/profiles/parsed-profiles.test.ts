// A profile file's text is parsed once per process (src/profiles/parsed-profiles.ts): two loads of the
// same folder, as two bridges in one process make, share each unchanged file's profile; the shared
// profile cannot be changed by one of them; a changed text is parsed again; the record is bounded (the
// bound is the record of checked texts', checked-texts.ts, which owns the parsed values).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckedTexts } from '../../src/profiles/checked-texts.js';
import { PROFILE_FILE } from '../../src/profiles/load.js';
import { ParsedProfiles } from '../../src/profiles/parsed-profiles.js';
import { ShippedParses } from '../../src/profiles/shipped-parses.js';
import { loadProfileSet } from '../../src/profiles/watch.js';

// No build cache (its folder and file do not exist): every answer is the record's or a parse.
const noShipped = new ShippedParses({ cacheFile: '/nonexistent/shipped-parses.json', shippedFolder: '/nonexistent', codeRoot: '/nonexistent' });
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

  it('a bad file is parsed and reported as before, naming its file; the record keeps at most its bound, the longest unused going first', () => {
    // The bound is the record of checked texts' (the one owner of parsed values): two texts here.
    const checked = new CheckedTexts({ maxTexts: 2, maxChars: 1 << 20 });
    const parsed = new ParsedProfiles(checked, noShipped);
    const bad = parsed.parse('/p/bad.yaml', 'name: [');
    expect(bad.ok).toBe(false);
    const a = parsed.parse('/p/a.yaml', text('A'));
    expect(parsed.parse('/p/a.yaml', text('A'))).toBe(a);
    // One record of the parsed profile: the one the record of checked texts holds, not a copy of it; a
    // caller that may change its answer gets a copy of its own from that record.
    expect(checked.shared(text('A'), PROFILE_FILE)).toBe(a.ok && a.loaded.profile);
    const own = checked.lookup(text('A'), PROFILE_FILE) as { name: string };
    expect(own).toEqual(a.ok && a.loaded.profile);
    own.name = 'changed';
    expect(a.ok && a.loaded.profile.name).toBe('A');
    const b = parsed.parse('/p/b.yaml', text('B'));
    // The same text in another file: the same profile, its own result naming that file.
    const copy = parsed.parse('/q/a.yaml', text('A'));
    expect(copy).not.toBe(a);
    expect(copy.ok && a.ok && copy.loaded.profile).toBe(a.ok && a.loaded.profile);
    expect(copy.ok && copy.loaded.file).toBe('/q/a.yaml');
    parsed.parse('/p/c.yaml', text('C'));
    // Three texts for two places: B, the longest unused, went (A's use by /q/a.yaml made it the newer):
    // A is still shared, b.yaml is parsed again.
    expect(parsed.parse('/p/a.yaml', text('A'))).toBe(a);
    const bAgain = parsed.parse('/p/b.yaml', text('B'));
    expect(bAgain).not.toBe(b);
    expect(bAgain).toEqual(b);
    // A bad text is parsed each time, its problems naming the file it was read from.
    const badAgain = parsed.parse('/p/bad.yaml', 'name: [');
    expect(badAgain).not.toBe(bad);
    expect(badAgain).toEqual(bad);
    const badElsewhere = parsed.parse('/q/bad.yaml', 'name: [');
    expect(badElsewhere.ok ? [] : badElsewhere.problems.map((problem) => problem.file)).toEqual(['/q/bad.yaml']);
  });
});
