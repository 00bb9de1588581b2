// The shipped profiles keep the keys an operator finds blind where they are: OK and Cancel sit at the
// same place on every page and on the dialog overlay of a surface that has them, and a page key never
// turns into a key that does something else on another page or on the overlay (a reflex press on the
// page key must not answer a dialog or send a command).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindingActions } from '../../src/engine/binding-actions.js';
import { loadProfileFile } from '../../src/profiles/load.js';
import type { Binding, Page } from '../../src/profiles/schema.js';

const FOLDER = join(import.meta.dirname, '../../profiles');
const files = readdirSync(FOLDER).filter((f) => f.endsWith('.yaml'));
const PAGE_ACTIONS = new Set(['page-next', 'page-previous', 'page']);

type Role = 'ok' | 'cancel' | 'page' | 'command' | 'display';

/** What pressing (or turning, touching) the control does, as an operator would name it. */
function roleOf(binding: Binding): Role {
  const actions = bindingActions(binding).map(({ action }) => action.action);
  if (actions.length === 0) return 'display';
  if (binding.press?.action === 'dialog-ok') return 'ok';
  if (binding.press?.action === 'dialog-cancel') return 'cancel';
  if (actions.every((action) => PAGE_ACTIONS.has(action))) return 'page';
  return 'command';
}

/** Problems with where OK, Cancel and page keys sit across the pages (overlay included). */
export function unstableKeys(pages: readonly Page[]): string[] {
  const problems: string[] = [];
  const where = (role: Role, page: Page) => Object.keys(page.controls).filter((id) => roleOf(page.controls[id] as Binding) === role).sort();
  for (const role of ['ok', 'cancel'] as const) {
    const placed = pages.map((page) => ({ page: page.name, at: where(role, page) })).filter((p) => p.at.length > 0);
    const first = placed[0];
    for (const other of placed.slice(1)) if (first && other.at.join() !== first.at.join()) problems.push(`${role.toUpperCase()} is at ${first.at.join(',')} on "${first.page}" but at ${other.at.join(',')} on "${other.page}"`);
  }
  // A page key never becomes anything but a page key, and OK and Cancel never trade places (each pair of
  // pages once). OK and Cancel may sit where another page has a channel key: a 6-key deck has no spare key.
  pages.forEach((page, i) => {
    for (const [id, binding] of Object.entries(page.controls)) {
      for (const other of pages.slice(i + 1)) {
        const there = other.controls[id];
        if (there === undefined) continue;
        const roles = [roleOf(binding), roleOf(there)];
        if (roles.includes('display') || roles[0] === roles[1]) continue;
        if (roles.includes('page') || (roles.includes('ok') && roles.includes('cancel'))) problems.push(`${id} is ${roles[0]} on "${page.name}" but ${roles[1]} on "${other.name}"`);
      }
    }
  });
  return problems;
}

const page = (name: string, controls: Record<string, Binding>): Page => ({ name, controls }) as Page;

describe('OK, Cancel and page keys stay put', () => {
  it('the check catches a swap, a page key turned into OK and a page key turned into a command', () => {
    const main = page('Main', { key27: { press: { action: 'dialog-ok' } }, key28: { press: { action: 'dialog-cancel' } }, key31: { press: { action: 'page-next' } } });
    expect(unstableKeys([main, page('Dialog', { key27: { press: { action: 'dialog-cancel' } }, key28: { press: { action: 'dialog-ok' } } })])).not.toEqual([]);
    expect(unstableKeys([main, page('Dialog', { key27: { press: { action: 'dialog-ok' } }, key28: { press: { action: 'dialog-cancel' } }, key31: { show: 'dialog' } })])).toEqual([]);
    expect(unstableKeys([main, page('Other', { key31: { press: { action: 'rec-start', channel: 1 } } })])).toEqual(['key31 is page on "Main" but command on "Other"']);
    expect(unstableKeys([main, page('Other', { key30: { press: { action: 'dialog-ok' } } })])).toEqual(['OK is at key27 on "Main" but at key30 on "Other"']);
    // A channel key where another page has OK is allowed (small decks need every key).
    expect(unstableKeys([main, page('Channels', { key27: { press: { action: 'rec-start', channel: 1 } } })])).toEqual([]);
  });

  for (const file of files) {
    it(`${file}: OK and Cancel keep their places on every page and the overlay; page keys stay page keys`, async () => {
      const result = await loadProfileFile(join(FOLDER, file));
      if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
      expect(unstableKeys(result.loaded.profile.pages)).toEqual([]);
    });
  }
});
