// The MIDI manager over the real easymidi and a fake backend: ports found by name or pattern, init
// messages on open, a device lost and back (re-added, so every LED is sent again), and one clear
// message when MIDI is not available on the machine.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../../src/engine/log.js';
import type { SurfaceInput } from '../../../src/engine/surface.js';
import { loadMidiMapFolder } from '../../../src/surfaces/midi/load-midi-map.js';
import { MidiManager, type MidiSurfaceEvent } from '../../../src/surfaces/midi/midi-manager.js';
import type { MidiMap } from '../../../src/surfaces/midi/midi-map.js';
import type { MidiSurface } from '../../../src/surfaces/midi/midi-surface.js';
import { easymidiOver, FakeMidiSystem, RTMIDI_INIT_FAILURE } from '../../support/fake-midi.js';

const MAPS = join(import.meta.dirname, '../../../profiles/midi');
const PROGRAMMER_MODE = [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x01, 0xf7];
const NOT_AVAILABLE =
  'MIDI is not available: Failed to initialise RtMidi (no ALSA sequencer: /dev/snd/seq is missing; load the snd-seq kernel module, or give the container /dev/snd); MIDI controllers are ignored, everything else keeps running';

async function shippedMaps(): Promise<MidiMap[]> {
  const { maps, problems } = await loadMidiMapFolder(MAPS);
  expect(problems).toEqual([]);
  return maps.map((m) => m.map);
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

const managers: MidiManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.stop();
});

async function setup(system: FakeMidiSystem, options: { maps?: MidiMap[]; checkEveryMs?: number } = {}) {
  const log = recordingLog();
  const manager = new MidiManager({
    maps: options.maps ?? (await shippedMaps()),
    log,
    loadMidi: async () => easymidiOver(system),
    checkEveryMs: options.checkEveryMs ?? 60_000,
    sequencerPresent: () => false,
  });
  managers.push(manager);
  const events: MidiSurfaceEvent[] = [];
  manager.surfaces$.subscribe((event) => events.push(event));
  return { manager, log, events };
}

/** What the bridge's session does with a new surface: every LED is drawn. */
async function drawEveryLed(surface: MidiSurface): Promise<void> {
  for (const control of surface.controls) if (control.kind === 'button' && control.feedback === 'led') await surface.setLed(control.id, 'idle');
}

describe('MIDI manager', () => {
  it('opens the port a map names, sends its init SysEx, and names the ports no map claims', async () => {
    const system = new FakeMidiSystem();
    system.plug('Midi Through Port-0');
    system.plug('Launchpad Mini MK3 LPMiniMK3 DAW');
    system.plug('Launchpad Mini MK3 LPMiniMK3 MIDI');
    const { manager, events, log } = await setup(system);
    await manager.start();
    expect(events).toHaveLength(1);
    const [added] = events;
    if (added?.type !== 'added') throw new Error('expected a surface to be added');
    expect([added.surface.id, added.surface.model, added.surface.name]).toEqual(['midi:Launchpad Mini MK3', 'launchpad-mini-mk3', 'Launchpad Mini MK3 LPMiniMK3 MIDI']);
    expect(system.sent('Launchpad Mini MK3 LPMiniMK3 MIDI')).toEqual([PROGRAMMER_MODE]);
    expect(system.sent('Launchpad Mini MK3 LPMiniMK3 DAW')).toEqual([]);
    expect(log.lines).toEqual([
      'info midi:Launchpad Mini MK3: MIDI controller on "Launchpad Mini MK3 LPMiniMK3 MIDI" (model launchpad-mini-mk3)',
      'info MIDI ports no map names: "Launchpad Mini MK3 LPMiniMK3 DAW" (a map\'s ports.input takes an exact name or a /pattern/)',
    ]);
  });

  it('says when a second identical controller is left unused, its map being taken by the first', async () => {
    const system = new FakeMidiSystem();
    system.plug('APC mini mk2 Control');
    system.plug('APC mini mk2 Control #2');
    const { manager, events, log } = await setup(system);
    await manager.start();
    expect(events.filter((e) => e.type === 'added')).toHaveLength(1);
    expect(log.lines).toContain(
      'info MIDI ports left unused, their map being in use on another port: "APC mini mk2 Control #2" (a second identical controller needs a copy of the map with a new name and its exact port name)',
    );
  });

  it('re-adds a device that was unplugged and came back, so its init and every LED are sent again', async () => {
    const system = new FakeMidiSystem();
    const port = 'APC mini mk2 Control';
    system.plug(port);
    const { manager, events, log } = await setup(system);
    const drawn: Promise<void>[] = [];
    manager.surfaces$.subscribe((event) => {
      if (event.type === 'added') drawn.push(drawEveryLed(event.surface));
    });
    await manager.start();
    await Promise.all(drawn);
    const first = manager.surfaces[0];
    expect(system.sent(port)).toHaveLength(80); // 64 pads, 8 track and 8 scene buttons
    let completed = false;
    first?.input.subscribe({ complete: () => (completed = true) });

    system.unplug(port);
    await manager.check();
    expect(events.map((e) => e.type)).toEqual(['added', 'removed']);
    expect(events[1]).toEqual({ type: 'removed', id: 'midi:APC mini mk2' });
    expect(completed).toBe(true);
    expect(log.lines).toContain('info midi:APC mini mk2: MIDI port "APC mini mk2 Control" is gone');

    system.clearSent();
    system.plug(port);
    await manager.check();
    await Promise.all(drawn);
    expect(events.map((e) => e.type)).toEqual(['added', 'removed', 'added']);
    const second = manager.surfaces[0];
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(system.sent(port)).toHaveLength(80);
    expect(system.sent(port)[0]).toEqual([0x91, 0, 3]); // pad0 idle: white at 25 %
    expect(system.openInputCount(port)).toBe(1);
  });

  it('finds a device plugged in later on its own, every few seconds', async () => {
    const system = new FakeMidiSystem();
    const { manager, events } = await setup(system, { checkEveryMs: 20 });
    await manager.start();
    expect(events).toEqual([]);
    system.plug('nanoKONTROL2 _ CTRL');
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(['added']), { timeout: 2000 });
  });

  it('prefers a map naming the port exactly, and works without an output port (LEDs dark, with a warning)', async () => {
    const system = new FakeMidiSystem();
    system.plug('Generic MIDI controller', { output: false });
    const maps = await shippedMaps();
    const catchAll: MidiMap = { ...(maps.find((m) => m.model === 'generic-midi') as MidiMap), name: 'Anything', model: 'anything', ports: { input: '/./' } };
    const { manager, events, log } = await setup(system, { maps: [catchAll, ...maps] });
    await manager.start();
    expect(events).toHaveLength(1);
    const surface = manager.surfaces[0] as MidiSurface;
    expect(surface.id).toBe('midi:Generic MIDI controller');
    expect(log.lines).toContain('warn midi:Generic MIDI controller: no MIDI output port matches Generic MIDI controller; its LEDs stay dark');
    const inputs: SurfaceInput[] = [];
    surface.input.subscribe((i) => inputs.push(i));
    await surface.setLed('pad0', 'active');
    system.fromDevice('Generic MIDI controller', [0x90, 36, 90]);
    expect(inputs).toEqual([{ type: 'down', control: 'pad0' }]);
  });

  it('tells a late subscriber of the surfaces open now, and closes them all on stop', async () => {
    const system = new FakeMidiSystem();
    system.plug('MIDI Mix');
    system.plug('X-TOUCH MINI');
    const { manager } = await setup(system);
    await manager.start();
    const late: MidiSurfaceEvent[] = [];
    let completed = false;
    manager.surfaces$.subscribe({ next: (e) => late.push(e), complete: () => (completed = true) });
    expect(late.map((e) => (e.type === 'added' ? e.surface.id : e.id)).sort()).toEqual(['midi:MIDImix', 'midi:X-Touch Mini']);
    expect(system.sent('X-TOUCH MINI')).toEqual([[0xb0, 127, 0], [0xc0, 0]]);
    await manager.stop();
    expect(late.map((e) => e.type)).toEqual(['added', 'added', 'removed', 'removed']);
    expect(completed).toBe(true);
    expect(system.openInputCount('MIDI Mix') + system.openInputCount('X-TOUCH MINI')).toBe(0);
  });
});

describe('MIDI not available', () => {
  it('says so once when loading MIDI fails, and keeps running', async () => {
    const log = recordingLog();
    const manager = new MidiManager({
      maps: await shippedMaps(),
      log,
      loadMidi: async () => {
        throw new Error(RTMIDI_INIT_FAILURE);
      },
      sequencerPresent: () => false,
    });
    managers.push(manager);
    await expect(manager.start()).resolves.toBeUndefined();
    await manager.check();
    expect(log.lines).toEqual([`warn ${NOT_AVAILABLE}`]);
    expect(manager.surfaces).toEqual([]);
  });

  it('says so once while RtMidi cannot start, and once when it can again', async () => {
    const system = new FakeMidiSystem();
    system.available = false;
    system.plug('MIDI Mix');
    const { manager, log, events } = await setup(system);
    await manager.start();
    await manager.check();
    await manager.check();
    expect(log.lines).toEqual([`warn ${NOT_AVAILABLE}`]);
    system.available = true;
    await manager.check();
    expect(log.lines.slice(1)).toEqual(['info MIDI is available now', 'info midi:MIDImix: MIDI controller on "MIDI Mix" (model midimix)']);
    expect(events.map((e) => e.type)).toEqual(['added']);
  });

  it.skipIf(existsSync('/dev/snd/seq'))('says so on this machine, with the real easymidi and RtMidi (no /dev/snd/seq here)', async () => {
    const log = recordingLog();
    const manager = new MidiManager({ maps: await shippedMaps(), log });
    managers.push(manager);
    await manager.start();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(/^warn MIDI is not available: .*RtMidi.*\(no ALSA sequencer: \/dev\/snd\/seq is missing/);
  });
});
