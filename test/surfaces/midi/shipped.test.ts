// The MIDI maps shipped in profiles/midi/ and the profiles for them in profiles/: each map loads, each
// has a profile, each profile loads (parseProfile), fits the controls its map declares, and uses the
// gain range soft takeover is computed in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../../src/profiles/load.js';
import { checkBindings } from '../../../src/engine/profile-match.js';
import { controlDefinitions } from '../../../src/surfaces/midi/controls.js';
import { formatMidiMapProblem, loadMidiMapFolder } from '../../../src/surfaces/midi/load-midi-map.js';
import { portMatches } from '../../../src/surfaces/midi/ports.js';

const PROFILES = join(import.meta.dirname, '../../../profiles');
const MAPS = join(PROFILES, 'midi');
const MODELS = ['apc-mini-mk2', 'launchpad-mini-mk3', 'nanokontrol2', 'x-touch-mini', 'midimix', 'generic-midi', 'mackie-control', 'daw-mmc'];

const profileFiles = readdirSync(PROFILES).filter((f) => f.startsWith('midi-') && f.endsWith('.yaml'));

/** The shipped maps, loaded once for the file (every test read all of them again); no test changes them. */
let shippedMaps: ReturnType<typeof loadMidiMapFolder> | undefined;
const loadShippedMaps = () => (shippedMaps ??= loadMidiMapFolder(MAPS));
/** Each shipped profile, parsed once for the file (two tests read each one). */
const parsedProfiles = new Map<string, ReturnType<typeof parseProfile>>();
const parsedProfile = (file: string) => {
  let result = parsedProfiles.get(file);
  if (result === undefined) {
    result = parseProfile(readFileSync(join(PROFILES, file), 'utf8'), file);
    parsedProfiles.set(file, result);
  }
  return result;
};

describe('shipped MIDI maps', () => {
  it('all load, one per controller, with distinct names and models', async () => {
    const { maps, problems } = await loadShippedMaps();
    expect(problems.map(formatMidiMapProblem)).toEqual([]);
    expect(maps.map((m) => m.map.model).sort()).toEqual([...MODELS].sort());
    expect(new Set(maps.map((m) => m.map.name)).size).toBe(maps.length);
  });

  it('each file begins with a comment saying where its mappings come from', () => {
    for (const file of readdirSync(MAPS).filter((f) => f.endsWith('.yaml'))) {
      const text = readFileSync(join(MAPS, file), 'utf8');
      expect(text.startsWith('#'), file).toBe(true);
      expect(text, file).toMatch(/Unconfirmed|unconfirmed/);
    }
  });

  it('the Launchpad is switched to Programmer mode on open and back to Live mode on exit', async () => {
    const { maps } = await loadShippedMaps();
    const launchpad = maps.find((m) => m.map.model === 'launchpad-mini-mk3');
    expect(launchpad?.map.init).toEqual([[0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x01, 0xf7]]);
    expect(launchpad?.map.exit).toEqual([[0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x00, 0xf7]]);
  });

  it('the Launchpad takes its MIDI port under both Linux namings, never its DAW port', async () => {
    const { maps } = await loadShippedMaps();
    const pattern = maps.find((m) => m.map.model === 'launchpad-mini-mk3')?.map.ports.input ?? '';
    const midi = ['Launchpad Mini MK3:Launchpad Mini MK3 LPMiniMK3 MI 20:1', 'Launchpad Mini MK3 LPMiniMK3 MIDI', 'Launchpad Mini MK3:Launchpad Mini MK3 MIDI 2 24:1'];
    const daw = ['Launchpad Mini MK3:Launchpad Mini MK3 LPMiniMK3 DA 20:0', 'Launchpad Mini MK3:Launchpad Mini MK3 MIDI 1 24:0', 'Launchpad Mini MK3:Launchpad Mini MK3 MIDI 1 28:0'];
    expect(midi.filter((name) => !portMatches(pattern, name))).toEqual([]);
    expect(daw.filter((name) => portMatches(pattern, name))).toEqual([]);
  });

  it('the Mackie Control map takes MC controllers\' ports, never the X-Touch Mini\'s (it has its own map), nor an Extender\'s', async () => {
    const { maps } = await loadShippedMaps();
    const pattern = maps.find((m) => m.map.model === 'mackie-control')?.map.ports.input ?? '';
    const mc = ['X-Touch:X-Touch MIDI 1 20:0', 'X-Touch One:X-Touch One MIDI 1 24:0', 'Platform M+ V2.15:Platform M+ V2.15 MIDI 1 28:0', 'MCU Pro USB v3.1:MCU Pro USB v3.1 MIDI 1 32:0'];
    const others = ['X-TOUCH MINI:X-TOUCH MINI MIDI 1 20:0', 'X-Touch-Ext:X-Touch-Ext MIDI 1 24:0', 'X-TOUCH COMPACT:X-TOUCH COMPACT MIDI 1 28:0', 'Midi Through:Midi Through Port-0 14:0'];
    expect(mc.filter((name) => !portMatches(pattern, name))).toEqual([]);
    expect(others.filter((name) => portMatches(pattern, name))).toEqual([]);
  });

  it('the DAW transport map reads MMC (the five transport commands a DAW sends) and has no channel controls', async () => {
    const { maps } = await loadShippedMaps();
    const mmc = maps.find((m) => m.map.model === 'daw-mmc')?.map;
    expect(mmc?.controls).toEqual([]);
    expect(mmc?.mmc?.controls.map((c) => c.command).sort()).toEqual(['pause', 'play', 'record-exit', 'record-strobe', 'stop']);
    expect(mmc?.mmc?.device).toBeUndefined();
  });

  it('the X-Touch Mini\'s encoders are set by the bridge (their rings show the gain), with no soft takeover', async () => {
    const { maps } = await loadShippedMaps();
    const knobs = maps.find((m) => m.map.model === 'x-touch-mini')?.map.controls.filter((c) => c.role === 'knob') ?? [];
    expect(knobs.map((k) => [k.id, k.motorised])).toEqual(Array.from({ length: 8 }, (_, i) => [`knob${i}`, true]));
  });
});

describe('shipped MIDI profiles', () => {
  it('there is one for every map', () => {
    expect(profileFiles.length).toBe(MODELS.length);
  });

  for (const file of profileFiles) {
    it(`${file} parses, matches a map and binds only controls that map has`, async () => {
      const result = parsedProfile(file);
      if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
      const { profile } = result.loaded;
      expect(profile.match.kind).toBe('midi');
      const { maps } = await loadShippedMaps();
      const loaded = maps.find((m) => m.map.model === profile.match.model);
      expect(loaded, `no map has model ${String(profile.match.model)}`).toBeDefined();
      expect(checkBindings(profile, controlDefinitions(loaded?.map ?? { controls: [] }))).toEqual([]);
      const faders = profile.pages.flatMap((page) => Object.values(page.controls).flatMap((b) => (b.fader ? [b.fader] : [])));
      for (const action of faders) expect(action).toMatchObject({ action: 'gain-fader', min: -60, max: 20 });
    });

    it(`${file} shows things (dialog OK/Cancel, the page, …) only on buttons that can light`, async () => {
      const result = parsedProfile(file);
      if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
      const { profile } = result.loaded;
      const { maps } = await loadShippedMaps();
      const controls = controlDefinitions(maps.find((m) => m.map.model === profile.match.model)?.map ?? { controls: [] });
      const dark = new Set(controls.filter((c) => c.kind === 'button' && c.feedback === 'none').map((c) => c.id));
      const wrong = profile.pages.flatMap((page) =>
        Object.entries(page.controls)
          .filter(([id, binding]) => dark.has(id) && ((binding.show !== undefined && binding.show !== 'blank') || ['dialog-ok', 'dialog-cancel'].includes(binding.press?.action ?? '')))
          .map(([id]) => `${page.name}: ${id}`),
      );
      expect(wrong).toEqual([]);
    });
  }
});
