// A wide deck folded on a narrow page (8 keys across become 2 rows of 4) keeps
// OK and Cancel side by side in one row on every page of every shipped profile, the dialog overlay
// included: an operator answers a dialog with two keys next to each other, never one at the end of a row
// and the other at the start of the next. The page's own fold (deck-layout.js) decides where keys go.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { chooseProfile } from '../../src/engine/profile-match.js';
import type { ControlDefinition, KeyControl } from '../../src/engine/surface.js';
import { loadProfileFile } from '../../src/profiles/load.js';
import type { LoadedProfile } from '../../src/profiles/schema.js';
import { WEB_LAYOUTS, webControls } from '../../src/surfaces/web/layouts.js';
import { fakeSurface } from '../surfaces/streamdeck/helpers.js';

interface PageLayout {
  fitKeys(columns: number, keySize: number, width: number, gap: number, fill: boolean): { columns: number; keyPx: number };
  foldedCell(row: number, column: number, columns: number, shown: number): { row: number; column: number };
}
// The page's module, as the browser loads it (a computed name: it is plain JS beside the page).
const layoutModule = new URL('../../src/remote/page/deck-layout.js', import.meta.url).href;
const { fitKeys, foldedCell } = (await import(layoutModule)) as PageLayout;
/** A narrow page's room for a deck's keys: the page less main's and the deck's padding (deck.css), and the gap between keys. */
const NARROW_PAGES = { from: 320, to: 899, padding: 32, gap: 6 };

const FOLDER = join(import.meta.dirname, '../../profiles');

async function shippedProfiles(): Promise<LoadedProfile[]> {
  const loaded: LoadedProfile[] = [];
  for (const file of readdirSync(FOLDER).filter((f) => f.endsWith('.yaml'))) {
    const result = await loadProfileFile(join(FOLDER, file));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    loaded.push(result.loaded);
  }
  return loaded;
}

/** Where OK and Cancel sit on each page, folded `shown` across; problems as sentences. */
function splitAnswers(profile: LoadedProfile['profile'], controls: readonly ControlDefinition[], shown: number): string[] {
  const keys = new Map(controls.filter((c): c is KeyControl => c.kind === 'key').map((c) => [c.id, c]));
  const columns = Math.max(...[...keys.values()].map((k) => k.column)) + 1;
  const problems: string[] = [];
  for (const page of profile.pages) {
    const at = (action: string) => Object.entries(page.controls).find(([, b]) => b.press?.action === action)?.[0];
    const [ok, cancel] = [at('dialog-ok'), at('dialog-cancel')].map((id) => (id === undefined ? undefined : keys.get(id)));
    if (ok === undefined || cancel === undefined) continue;
    const [a, b] = [ok, cancel].map((k) => foldedCell(k.row, k.column, columns, shown));
    if (a?.row !== b?.row || Math.abs((a?.column ?? 0) - (b?.column ?? 0)) !== 1) problems.push(`${profile.name} "${page.name}" ${shown} across: OK ${ok.id} at ${JSON.stringify(a)}, Cancel ${cancel.id} at ${JSON.stringify(b)}`);
  }
  return problems;
}

/**
 * Every fold the page chooses for a deck this wide on a phone or a tablet (320 to 899 px wide) that still
 * puts two keys in a row (a deck whose width has no divisor that fits goes one key a row).
 */
function folds(columns: number, keySize: number): number[] {
  const shown = new Set<number>();
  for (let width = NARROW_PAGES.from; width <= NARROW_PAGES.to; width++) shown.add(fitKeys(columns, keySize, width - NARROW_PAGES.padding, NARROW_PAGES.gap, true).columns);
  return [...shown].filter((across) => across < columns && across >= 2);
}

describe('a folded deck keeps OK and Cancel side by side', () => {
  it('the check sees a pair cut by the fold', () => {
    const controls: ControlDefinition[] = Array.from({ length: 8 }, (_, i): KeyControl => ({ kind: 'key', id: `key${i}`, row: 0, column: i, pixelSize: { width: 72, height: 72 } }));
    const pages = (ok: string, cancel: string) => ({ name: 'p', pages: [{ name: 'main', controls: { [ok]: { press: { action: 'dialog-ok' } }, [cancel]: { press: { action: 'dialog-cancel' } } } }] }) as unknown as LoadedProfile['profile'];
    expect(splitAnswers(pages('key3', 'key4'), controls, 4)).toHaveLength(1);
    expect(splitAnswers(pages('key2', 'key3'), controls, 4)).toEqual([]);
  });

  it('on every web deck and every wide Stream Deck, for every fold a phone or a tablet shows', async () => {
    expect(folds(8, 96)).toEqual([4]);
    const profiles = await shippedProfiles();
    const problems: string[] = [];
    for (const layout of Object.values(WEB_LAYOUTS)) {
      const profile = profiles.find((p) => p.profile.match.kind === 'web' && [p.profile.match.model].flat().includes(layout.model));
      if (!profile) throw new Error(`no shipped profile for ${layout.model}`);
      for (const shown of folds(layout.columns, layout.keySize)) problems.push(...splitAnswers(profile.profile, webControls(layout), shown));
    }
    for (const model of [DeviceModelId.XL, DeviceModelId.STUDIO]) {
      const { surface } = await fakeSurface(model);
      const profile = chooseProfile(surface, profiles)?.winner;
      if (!profile) throw new Error(`no shipped profile for ${model}`);
      const keys = surface.controls.filter((c): c is KeyControl => c.kind === 'key');
      const columns = Math.max(...keys.map((k) => k.column)) + 1;
      for (const shown of folds(columns, keys[0]?.pixelSize.width ?? 96)) problems.push(...splitAnswers(profile.profile, surface.controls, shown));
    }
    expect(problems).toEqual([]);
  });
});
