// Each shipped X-keys profile fits the real control layout of the models it names (every bound control
// exists there and takes what it is bound to), and each model family it is for gets exactly one.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseProfile, checkBindings } from '../../../src/engine/profile-match.js';
import { loadProfileFile } from '../../../src/profiles/load.js';
import type { ProductKey } from '../../support/fake-xkeys-hid.js';
import { fakePanel } from './helpers.js';

const FOLDER = join(import.meta.dirname, '../../../profiles');
const FAMILIES: Array<[ProductKey, string]> = [
  ['XK3FOOT', 'X-keys XK-3 Foot Pedal'],
  ['XK24', 'X-keys XK-24'],
  ['XK24RGB', 'X-keys XK-24'],
];

describe('shipped X-keys profiles', () => {
  it.each(FAMILIES)('%s gets one shipped profile (no tie), %s, whose bindings all fit it', async (productKey, name) => {
    const loaded = [];
    for (const file of readdirSync(FOLDER).filter((f) => f.startsWith('xkeys-') && f.endsWith('.yaml'))) {
      const result = await loadProfileFile(join(FOLDER, file));
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      loaded.push(result.loaded);
    }
    const { surface } = await fakePanel(productKey);
    const choice = chooseProfile(surface, loaded);
    expect(choice?.winner.profile.name).toBe(name);
    expect(choice?.others.map((o) => o.file), 'shipped profiles that tie for it').toEqual([]);
    expect(checkBindings(choice?.winner.profile as NonNullable<typeof choice>['winner']['profile'], surface.controls)).toEqual([]);
  });
});
