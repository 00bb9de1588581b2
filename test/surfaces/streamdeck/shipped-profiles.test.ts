// Each shipped Stream Deck profile fits the real control layout of every model it names: every bound
// control exists there and takes what it is bound to (no turn on a key, no touch on a pedal).
import { readdirSync } from 'node:fs';
import { DeviceModelId } from '@elgato-stream-deck/core';
import { describe, expect, it } from 'vitest';
import { chooseProfile, checkBindings } from '../../../src/engine/profile-match.js';
import { SHIPPED_PROFILES, shippedProfile } from '../../support/shipped-profiles.js';
import { fakeSurface } from './helpers.js';

const MODELS: DeviceModelId[] = [DeviceModelId.MINI, DeviceModelId.ORIGINALMK2, DeviceModelId.ORIGINAL, DeviceModelId.XL, DeviceModelId.PLUS, DeviceModelId.NEO, DeviceModelId.PEDAL, DeviceModelId.STUDIO];

describe('shipped Stream Deck profiles', () => {
  it.each(MODELS)('model %s gets one shipped profile (no tie) whose bindings all fit it', async (model) => {
    // Each file loaded by loadProfileFile once per worker (a file with problems fails here, naming
    // them), not once per model: every model's test gets copies of its own.
    const files = readdirSync(SHIPPED_PROFILES).filter((f) => f.startsWith('streamdeck-') && f.endsWith('.yaml'));
    const loaded = await Promise.all(files.map((file) => shippedProfile(file)));
    const { surface } = await fakeSurface(model);
    const choice = chooseProfile(surface, loaded);
    expect(choice, `a profile for ${surface.model}`).toBeDefined();
    expect(choice?.others.map((o) => o.file), 'shipped profiles that tie for it').toEqual([]);
    expect(checkBindings(choice?.winner.profile as NonNullable<typeof choice>['winner']['profile'], surface.controls)).toEqual([]);
  });
});
