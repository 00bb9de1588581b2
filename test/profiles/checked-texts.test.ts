// A text that checked before in this process is answered with what it checked to (src/profiles/checked-texts.ts,
// through the loader's parseYamlFile), wherever it was read: the answer equals a fresh parse and is a copy
// of its own; an edited text is parsed anew; a text with problems is parsed each time, so each file's
// problems name that file; a text asked as another kind is not answered; the record is bounded.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { CheckedTexts } from '../../src/profiles/checked-texts.js';
import { formatProfileError, parseYamlFile, parseYamlText, PROFILE_FILE, readYamlText } from '../../src/profiles/load.js';
import { ShippedParses } from '../../src/profiles/shipped-parses.js';
import { MIDI_MAP_FILE } from '../../src/surfaces/midi/load-midi-map.js';

const profile = (name: string) => `name: ${name}\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 }, press: { action: page-next } }\n`;
const SHIPPED = join(import.meta.dirname, '../../profiles');

describe('texts checked once per process', () => {
  let directory: string;
  let checked: CheckedTexts;
  // No build cache here (its folder and file do not exist): every answer is the record's or a parse.
  const noShipped = new ShippedParses({ cacheFile: '/nonexistent/shipped-parses.json', shippedFolder: '/nonexistent', codeRoot: '/nonexistent' });
  const parse = (text: string, file: string) => parseYamlFile(text, file, PROFILE_FILE, noShipped, checked);

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'recdeck-checked-texts-'));
    checked = new CheckedTexts({ maxTexts: 8, maxChars: 1 << 20 });
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('a shipped profile copied elsewhere is answered from the record, equal to a fresh parse, a copy each time', async () => {
    const text = await readFile(join(SHIPPED, 'streamdeck-plus.yaml'), 'utf8');
    const copy = join(directory, 'my-plus.yaml');
    await writeFile(copy, text);
    const first = parse(text, join(SHIPPED, 'streamdeck-plus.yaml'));
    expect(checked.hits).toBe(0);
    const read = await readYamlText(copy);
    if (!read.ok) throw new Error('expected the copy to be read');
    const answered = parse(read.text, copy);
    expect(checked.hits).toBe(1);
    expect(answered).toEqual(parseYamlText(text, copy, PROFILE_FILE));
    expect(answered).toEqual(first);
    // Each answer is a copy of its own: a caller that changes it changes nobody else's, nor the record.
    if (!answered.ok || !first.ok) throw new Error('expected the profile');
    expect(answered.value).not.toBe(first.value);
    answered.value.name = 'changed';
    (answered.value.pages[0] as { name: string }).name = 'changed';
    first.value.name = 'changed too';
    const again = parse(text, copy);
    expect(again).toEqual(parseYamlText(text, copy, PROFILE_FILE));
    expect(checked.hits).toBe(2);
  });

  it('an edited file is parsed anew, and its first text is still answered as before', () => {
    const file = join(directory, 'deck.yaml');
    expect(parse(profile('Deck'), file)).toMatchObject({ ok: true, value: { name: 'Deck' } });
    expect(parse(profile('Dock'), file)).toMatchObject({ ok: true, value: { name: 'Dock' } });
    expect(checked.hits).toBe(0);
    expect(parse(profile('Deck'), file)).toMatchObject({ ok: true, value: { name: 'Deck' } });
    expect(checked.hits).toBe(1);
  });

  it('a text with problems is parsed each time: each file’s problems name that file, at their line and column', () => {
    const bad = profile('Deck').replace('page-next', 'page-nexu');
    const a = join(directory, 'a.yaml');
    const b = join(directory, 'b.yaml');
    const first = parse(bad, a);
    const second = parse(bad, b);
    expect(checked.hits).toBe(0);
    expect(first).toEqual(parseYamlText(bad, a, PROFILE_FILE));
    expect(second).toEqual(parseYamlText(bad, b, PROFILE_FILE));
    expect(first.ok ? [] : first.problems.map(formatProfileError)).toEqual([expect.stringMatching(/\/a\.yaml:6:54: pages\[0\]\.controls\.key0\.press\.action: expected one of .*got "page-nexu"/)]);
    expect(second.ok ? [] : second.problems.map(formatProfileError)).toEqual([expect.stringMatching(/\/b\.yaml:6:54: pages\[0\]\.controls\.key0\.press\.action: /)]);
    // A good file's text broken in a copy: the copy's problems, with the copy's name.
    expect(parse(profile('Deck'), a).ok).toBe(true);
    const broken = parse(`${profile('Deck')}pages: []\n`, b);
    expect(broken.ok ? [] : broken.problems.map(formatProfileError)).toEqual([expect.stringMatching(/\/b\.yaml:7:1: duplicate key "pages"/)]);
  });

  it('a text checked as one kind is not answered as another', () => {
    const map = 'name: Tiny\nmodel: tiny\nports: { input: tiny }\nledSource: none\ncontrols:\n  - { id: pad0, type: note, channel: 1, number: 36, role: button }\n';
    const file = join(directory, 'tiny.yaml');
    expect(parseYamlFile(map, file, MIDI_MAP_FILE, noShipped, checked).ok).toBe(true);
    expect(parse(map, file).ok).toBe(false);
    // Two kinds of one name but different schemas are two kinds.
    const named = { name: MIDI_MAP_FILE.name, needs: MIDI_MAP_FILE.needs, schema: z.object({ name: z.literal('Other') }) };
    expect(parseYamlFile(map, file, named, noShipped, checked).ok).toBe(false);
    expect(parseYamlFile(map, file, MIDI_MAP_FILE, noShipped, checked).ok).toBe(true);
    expect(checked.hits).toBe(1);
  });

  it('keeps at most its bound of texts and characters, the longest unused going first; a value a copy would not reproduce is not kept', () => {
    const small = new CheckedTexts({ maxTexts: 2, maxChars: 400 });
    const kind = { name: 'a thing', schema: z.unknown() };
    small.keep('a', kind, { a: 1 });
    small.keep('b', kind, { b: 1 });
    expect(small.lookup('a', kind)).toEqual({ a: 1 });
    small.keep('c', kind, { c: 1 });
    // Three texts for two places: b, the longest unused, went.
    expect(small.lookup('b', kind)).toBeUndefined();
    expect(small.lookup('a', kind)).toEqual({ a: 1 });
    expect(small.lookup('c', kind)).toEqual({ c: 1 });
    // By characters: four texts of 90 fit in 400, a fifth pushes the longest unused out; one over a quarter is not kept.
    const chars = new CheckedTexts({ maxTexts: 10, maxChars: 400 });
    for (const letter of ['v', 'w', 'x', 'y']) chars.keep(letter.repeat(90), kind, { letter });
    expect(chars.lookup('v'.repeat(90), kind)).toEqual({ letter: 'v' });
    chars.keep('u'.repeat(90), kind, { letter: 'u' });
    expect(chars.lookup('w'.repeat(90), kind)).toBeUndefined();
    for (const letter of ['u', 'v', 'x', 'y']) expect(chars.lookup(letter.repeat(90), kind)).toEqual({ letter });
    chars.keep('z'.repeat(101), kind, { letter: 'z' });
    expect(chars.lookup('z'.repeat(101), kind)).toBeUndefined();
    // Not plain data: a Map, a Date, a class instance or a function would not come back as it was.
    for (const value of [{ m: new Map() }, { d: new Date(0) }, [new (class Thing {})()], { f: () => 1 }]) {
      small.keep('odd', kind, value);
      expect(small.lookup('odd', kind)).toBeUndefined();
    }
    small.keep('plain', kind, { list: [1, 'two', null, undefined, { three: true }], none: undefined });
    expect(small.lookup('plain', kind)).toEqual({ list: [1, 'two', null, undefined, { three: true }], none: undefined });
  });
});
