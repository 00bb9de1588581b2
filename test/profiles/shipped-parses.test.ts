// The shipped files' parses made at build (src/profiles/shipped-parses.ts, make-shipped-parses.ts): a
// start uses one only for a shipped file whose text hashes to what it was made from, by the code that
// made it. Shown here with a shipped folder and built code of the test's own, through the loader's
// parseYamlFile: a hit equals a fresh parse; one byte changed, an operator's file of the same text, a
// cache made by other code, a damaged or foreign cache file: parsed afresh, problems as without a cache.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { formatProfileError, parseYamlFile, parseYamlText, PROFILE_FILE, type YamlFileKind } from '../../src/profiles/load.js';
import { makeShippedParses } from '../../src/profiles/make-shipped-parses.js';
import { SHIPPED_PROFILES } from '../../src/profiles/origin.js';
import { ShippedParses } from '../../src/profiles/shipped-parses.js';
import { MIDI_MAP_FILE } from '../../src/surfaces/midi/load-midi-map.js';

const profile = (name: string) => `name: ${name}\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 }, press: { action: page-next } }\n`;
const MAP = 'name: Tiny\nmodel: tiny\nports: { input: tiny }\nledSource: none\ncontrols:\n  - { id: pad0, type: note, channel: 1, number: 36, role: button }\n';

describe('the shipped files’ parses made at build', () => {
  let root: string;
  let shipped: string;
  let code: string;
  let cacheFile: string;
  const shippedFile = () => join(shipped, 'deck.yaml');
  const cache = () => new ShippedParses({ cacheFile, shippedFolder: shipped, codeRoot: code });
  /** Makes the cache of the test's shipped folder as the build does, and writes it. */
  const build = async () => {
    const made = makeShippedParses({ shippedFolder: shipped, folders: [{ folder: '', kind: PROFILE_FILE }, { folder: 'midi', kind: MIDI_MAP_FILE }], codeRoot: code, codeEntries: ['profiles/load.js'] });
    await writeFile(cacheFile, JSON.stringify(made.cache));
    return made;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'recdeck-shipped-parses-'));
    shipped = join(root, 'profiles');
    code = join(root, 'dist');
    cacheFile = join(code, 'profiles', 'shipped-parses.json');
    await mkdir(join(shipped, 'midi'), { recursive: true });
    await mkdir(join(code, 'profiles'), { recursive: true });
    await writeFile(shippedFile(), profile('Deck'));
    await writeFile(join(shipped, 'midi', 'tiny.yaml'), MAP);
    // Built code as tsc writes it: the loader and what it imports by a relative path.
    await writeFile(join(code, 'profiles', 'load.js'), "import { Profile } from './schema.js';\nexport const load = () => Profile;\n");
    await writeFile(join(code, 'profiles', 'schema.js'), "export const Profile = 'v1';\n");
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('a shipped file whose text is what the build parsed is answered from the cache, equal to a fresh parse, a copy each time', async () => {
    const made = await build();
    expect(made.left).toEqual([]);
    expect(Object.keys(made.cache.entries)).toEqual(['deck.yaml', 'midi/tiny.yaml']);
    expect(made.cache.code.files).toEqual(['profiles/load.js', 'profiles/schema.js']);
    const parses = cache();
    const text = await readFile(shippedFile(), 'utf8');
    const answered = parseYamlFile(text, shippedFile(), PROFILE_FILE, parses);
    expect(parses.hits).toBe(1);
    expect(answered).toEqual(parseYamlText(text, shippedFile(), PROFILE_FILE));
    const mapFile = join(shipped, 'midi', 'tiny.yaml');
    expect(parseYamlFile(MAP, mapFile, MIDI_MAP_FILE, parses)).toEqual(parseYamlText(MAP, mapFile, MIDI_MAP_FILE));
    expect(parses.hits).toBe(2);
    // A caller that changes its answer changes nobody else's.
    if (!answered.ok) throw new Error('expected the profile');
    (answered.value as { name: string }).name = 'changed';
    const again = parseYamlFile(text, shippedFile(), PROFILE_FILE, parses);
    expect(again.ok && again.value.name).toBe('Deck');
    // Asked as another kind, the same file is not answered (a profile is not a MIDI map).
    expect(parseYamlFile(MAP, mapFile, PROFILE_FILE, parses).ok).toBe(false);
    expect(parses.hits).toBe(3);
  });

  it('one byte changed: parsed afresh, and a bad edit reported exactly as without a cache', async () => {
    await build();
    const parses = cache();
    const renamed = profile('Deck').replace('Deck', 'Dock');
    const result = parseYamlFile(renamed, shippedFile(), PROFILE_FILE, parses);
    expect(result.ok && result.value.name).toBe('Dock');
    // `page-next` → `page-nexu`: an action that does not exist, at its line and column.
    const bad = profile('Deck').replace('page-next', 'page-nexu');
    const problems = parseYamlFile(bad, shippedFile(), PROFILE_FILE, parses);
    expect(problems).toEqual(parseYamlText(bad, shippedFile(), PROFILE_FILE));
    expect(problems.ok ? [] : problems.problems.map(formatProfileError)).toEqual([expect.stringMatching(/^\/.*\/deck\.yaml:6:54: pages\[0\]\.controls\.key0\.press\.action: expected one of .*got "page-nexu" \(did you mean "page-next"\?\)$/)]);
    expect(parses.hits).toBe(0);
  });

  it('an operator’s file of the very same text elsewhere is parsed, not answered', async () => {
    await build();
    const parses = cache();
    const own = join(root, 'own', 'deck.yaml');
    expect(parseYamlFile(profile('Deck'), own, PROFILE_FILE, parses).ok).toBe(true);
    expect(parses.hits).toBe(0);
  });

  it('a cache made by other code (a schema rebuilt without the build’s writing step) is not used', async () => {
    await build();
    await writeFile(join(code, 'profiles', 'schema.js'), "export const Profile = 'v2';\n");
    const parses = cache();
    expect(parseYamlFile(profile('Deck'), shippedFile(), PROFILE_FILE, parses).ok).toBe(true);
    expect(parses.hits).toBe(0);
  });

  it('a missing, damaged or foreign cache file is ignored: every file parsed, nothing thrown', async () => {
    const parses = () => {
      const p = cache();
      const result = parseYamlFile(profile('Deck'), shippedFile(), PROFILE_FILE, p);
      expect(result.ok && result.value.name).toBe('Deck');
      return p.hits;
    };
    expect(parses()).toBe(0);
    await build();
    const good = await readFile(cacheFile, 'utf8');
    expect(parses()).toBe(1);
    for (const damaged of [
      good.slice(0, good.length / 2),
      '',
      '[1,2,3]',
      JSON.stringify({ ...JSON.parse(good), format: 'something-else/1' }),
      // A cache naming code outside the code root: refused before anything is read.
      JSON.stringify({ ...JSON.parse(good), code: { files: ['../../../etc/passwd.js'], sha256: 'x' } }),
      JSON.stringify({ ...JSON.parse(good), entries: { 'deck.yaml': { kind: 'a profile', value: {} } } }),
    ]) {
      await writeFile(cacheFile, damaged);
      expect(parses()).toBe(0);
    }
  });

  it('a shipped file that does not load is left out, said, and reported at start as before', async () => {
    await writeFile(join(shipped, 'broken.yaml'), 'name: [');
    const made = await build();
    expect(made.left).toEqual(['broken.yaml: it does not load (1 problem(s))']);
    expect(Object.keys(made.cache.entries)).not.toContain('broken.yaml');
    const parses = cache();
    expect(parseYamlFile('name: [', join(shipped, 'broken.yaml'), PROFILE_FILE, parses)).toEqual(parseYamlText('name: [', join(shipped, 'broken.yaml'), PROFILE_FILE));
  });

  // Parses the 28 shipped files once (about 1 s of CPU here, 15 s at load 22 on 2 cores): the bound is the load's.
  it('every file recdeck ships goes into the cache, and comes back from it as the loader made it', async () => {
    const made = makeShippedParses({ shippedFolder: SHIPPED_PROFILES, folders: [{ folder: '', kind: PROFILE_FILE }, { folder: 'midi', kind: MIDI_MAP_FILE }], codeRoot: code, codeEntries: ['profiles/load.js'] });
    expect(made.left).toEqual([]);
    const keys = Object.keys(made.cache.entries);
    expect(keys.filter((k) => k.startsWith('midi/')).length).toBeGreaterThanOrEqual(8);
    expect(keys.filter((k) => !k.includes('/')).length).toBeGreaterThanOrEqual(20);
    await writeFile(cacheFile, JSON.stringify(made.cache));
    const parses = new ShippedParses({ cacheFile, shippedFolder: SHIPPED_PROFILES, codeRoot: code });
    for (const key of keys) {
      const file = join(SHIPPED_PROFILES, key);
      const kind: YamlFileKind<z.ZodType> = key.startsWith('midi/') ? MIDI_MAP_FILE : PROFILE_FILE;
      // The value the loader made in this process (parseYamlText, above), against the one read back from the file.
      expect(parseYamlFile(await readFile(file, 'utf8'), file, kind, parses)).toEqual({ ok: true, value: made.cache.entries[key]?.value });
    }
    expect(parses.hits).toBe(keys.length);
  }, 60_000);
});
