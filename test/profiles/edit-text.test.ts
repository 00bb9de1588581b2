// Profile edits written into the YAML text: only the place changed differs, comments and layout stay,
// and what is written reads back as the change.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { EditError, editProfileText } from '../../src/profiles/edit-text.js';
import { parseProfile } from '../../src/profiles/load.js';

const WEB_15 = readFileSync(new URL('../../profiles/web-15-keys.yaml', import.meta.url), 'utf8');
const XL = readFileSync(new URL('../../profiles/streamdeck-xl.yaml', import.meta.url), 'utf8');
const TOGGLE = { show: { channel: 1 }, press: { action: 'rec-toggle', channel: 1 }, hold: { ms: 1000, do: { action: 'rec-stop', channel: 1 } } };

/** The lines of `after` that differ from `before` (same line count assumed). */
function changedLines(before: string, after: string): string[] {
  const a = before.split('\n');
  return after.split('\n').filter((line, i) => line !== a[i]);
}

describe('profile edits in the text', () => {
  it('a control replaced changes its own line only; comments and every other line stay', () => {
    const { text, before, after } = editProfileText(WEB_15, { kind: 'set-control', page: 'Channels 1-8', control: 'key0', binding: TOGGLE });
    expect(changedLines(WEB_15, text)).toEqual(['      key0: { show: { channel: 1 }, press: { action: rec-toggle, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }']);
    expect(before).toMatchObject({ press: { action: 'rec-start', channel: 1 } });
    expect(after).toEqual(TOGGLE);
    expect(text).toContain('# so a reflex press on it never answers the dialog.');
    expect(parseProfile(text, 'web-15-keys.yaml').ok).toBe(true);
  });

  it('controls are added, removed; pages added, moved, renamed; each reads back as the change', () => {
    let text = editProfileText(WEB_15, { kind: 'set-control', page: 'Setup', control: 'key4', binding: { press: { action: 'page-next' } } }).text;
    expect(text).toContain('      key4: { press: { action: page-next } }\n');
    text = editProfileText(text, { kind: 'delete-control', page: 'Dialog', control: 'key2' }).text;
    text = editProfileText(text, { kind: 'add-page', name: 'Extra' }).text;
    text = editProfileText(text, { kind: 'move-page', page: 'Extra', index: 0 }).text;
    text = editProfileText(text, { kind: 'rename-page', page: 'Setup', name: 'Set up' }).text;
    text = editProfileText(text, { kind: 'set-control', page: 'Extra', control: 'key1', binding: { press: { action: 'page-next' } } }).text;
    const value = parseDocument(text).toJS() as { pages: Array<{ name: string; controls: Record<string, unknown> }> };
    expect(value.pages.map((p) => p.name)).toEqual(['Extra', 'Channels 1-8', 'Channels 9-16', 'Set up', 'Dialog']);
    expect(value.pages[0]?.controls).toEqual({ key1: { press: { action: 'page-next' } } });
    expect(Object.keys(value.pages[4]?.controls ?? {})).toEqual(['key10', 'key11', 'key12']);
    expect(text.startsWith(WEB_15.split('pages:')[0] as string)).toBe(true);
    expect(parseProfile(text, 'web-15-keys.yaml').ok).toBe(true);
  });

  it('pinning a copy rewrites match and name only, flow lists as they were written', () => {
    const { text } = editProfileText(XL, { kind: 'pin', match: { kind: 'streamdeck', model: ['xl', 'module-32'], serial: 'A1' }, name: 'Mine' });
    expect(changedLines(XL, text).sort()).toEqual(['match: { kind: streamdeck, model: [ xl, module-32 ], serial: A1 }', 'name: Mine'].sort());
  });

  it('a control written in block style is replaced in block style, at its indentation; the comment after it stays', () => {
    const block = ['name: Block', 'match: { kind: web, model: web-15 }', 'pages:', '  - name: One', '    controls:', '      key0:', '        press:', '          action: rec-start', '          channel: 1', '      # key1 is the pause', '      key1:', '        press: { action: rec-pause, channel: 1 }', ''].join('\n');
    const { text } = editProfileText(block, { kind: 'set-control', page: 'One', control: 'key0', binding: { press: { action: 'rec-toggle', channel: 2 }, confirm: { double: 400 } } });
    expect(text).toBe(block.replace('        press:\n          action: rec-start\n          channel: 1\n', '        press:\n          action: rec-toggle\n          channel: 2\n        confirm:\n          double: 400\n'));
    const removed = editProfileText(text, { kind: 'delete-control', page: 'One', control: 'key1' }).text;
    expect(removed).not.toContain('key1:');
    expect(parseProfile(removed, 'block.yaml').ok).toBe(true);
  });

  it('no such page or control is a 404 naming what there is', () => {
    expect(() => editProfileText(WEB_15, { kind: 'delete-control', page: 'Nope', control: 'key0' })).toThrow(/no page "Nope"; the pages are "Channels 1-8"/);
    expect(() => editProfileText(WEB_15, { kind: 'delete-control', page: 'Setup', control: 'key4' })).toThrow(EditError);
  });
});
