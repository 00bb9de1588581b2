// Each shipped Stream Deck profile fits the real control layout of every model it names: every bound
// control exists there and takes what it is bound to (no turn on a key, no touch on a pedal).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { loadProfileFile } from '../../../src/profiles/load.js';
import { chooseProfile, checkBindings } from '../../../src/engine/profile-match.js';
import { fakeSurface } from './helpers.js';

const FOLDER = join(import.meta.dirname, '../../../profiles');
const MODELS: DeviceModelId[] = [DeviceModelId.MINI, DeviceModelId.ORIGINALMK2, DeviceModelId.ORIGINAL, DeviceModelId.XL, DeviceModelId.PLUS, DeviceModelId.NEO, DeviceModelId.PEDAL, DeviceModelId.STUDIO];

describe('shipped Stream Deck profiles', () => {
  it.each(MODELS)('model %s gets one shipped profile (no tie) whose bindings all fit it', async (model) => {
    const files = readdirSync(FOLDER).filter((f) => f.startsWith('streamdeck-') && f.endsWith('.yaml'));
    const loaded = [];
    for (const file of files) {
      const result = await loadProfileFile(join(FOLDER, file));
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      loaded.push(result.loaded);
    }
    const { surface } = await fakeSurface(model);
    const choice = chooseProfile(surface, loaded);
    expect(choice, `a profile for ${surface.model}`).toBeDefined();
    expect(choice?.others.map((o) => o.file), 'shipped profiles that tie for it').toEqual([]);
    expect(checkBindings(choice?.winner.profile as NonNullable<typeof choice>['winner']['profile'], surface.controls)).toEqual([]);
  });
});
