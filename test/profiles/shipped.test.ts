// The profiles shipped in profiles/: each one loads, and each one keeps the operator's safety rule: a
// stop, a new session, a load or a grid change never fires from a plain press.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfileFile } from '../../src/profiles/load.js';
import type { Action, Binding } from '../../src/profiles/schema.js';

const FOLDER = join(import.meta.dirname, '../../profiles');
const files = readdirSync(FOLDER).filter((f) => f.endsWith('.yaml'));
const DESTRUCTIVE = new Set(['rec-stop', 'rec-toggle', 'sync-rec-stop', 'sync-rec-toggle', 'new-session', 'load-project', 'grid']);

/** The destructive actions an action carries out, macros included. */
function destructive(action: Action | undefined): string[] {
  if (!action) return [];
  if (action.action === 'macro') return action.steps.flatMap((step) => ('wait' in step ? [] : destructive(step)));
  return DESTRUCTIVE.has(action.action) ? [action.action] : [];
}

/** Actions that fire without a hold: a press without confirm.hold, release, turn, fader and touch. */
function unguarded(binding: Binding): string[] {
  const pressGuarded = binding.confirm !== undefined && 'hold' in binding.confirm;
  return [
    ...(pressGuarded ? [] : destructive(binding.press)),
    ...destructive(binding.release),
    ...destructive(binding.turn),
    ...destructive(binding.fader),
    ...Object.values(binding.touch ?? {}).flatMap((a) => destructive(a)),
  ];
}

describe('shipped profiles', () => {
  it('there are some, and the rule catches an unguarded stop', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(unguarded({ press: { action: 'rec-stop', channel: 1 } })).toEqual(['rec-stop']);
    expect(unguarded({ press: { action: 'macro', steps: [{ wait: 10 }, { action: 'grid', size: 4 }] } })).toEqual(['grid']);
    expect(unguarded({ press: { action: 'rec-stop', channel: 1 }, confirm: { hold: 1000 } })).toEqual([]);
  });

  for (const file of files) {
    it(`${file} loads and puts a hold on every stop, new session, load and grid change`, async () => {
      const result = await loadProfileFile(join(FOLDER, file));
      if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
      const offenders = result.loaded.profile.pages.flatMap((page) =>
        Object.entries(page.controls).flatMap(([id, binding]) => unguarded(binding).map((action) => `${page.name}/${id}: ${action}`)),
      );
      expect(offenders).toEqual([]);
    });
  }
});
