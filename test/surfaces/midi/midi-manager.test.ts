// The MIDI manager over the real @julusian/midi and a fake RtMidi: ports found by name or pattern, init
// messages on open, a device lost and back (re-added, so every LED is sent again), and one clear
// message when MIDI is not available on the machine. Time is virtual: the periodic checks and the
// checks after a USB event run when the test moves the clock.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/engine/log.js';
import type { SurfaceInput } from '../../../src/engine/surface.js';
import { alsaPortIdentity, type UsbAddress } from '../../../src/surfaces/midi/port-identity.js';
import type { UsbEvent, WatchUsbEvents } from '../../../src/surfaces/usb-events.js';
import { MidiManager, type MidiSurfaceEvent } from '../../../src/surfaces/midi/midi-manager.js';
import type { MidiMap } from '../../../src/surfaces/midi/midi-map.js';
import type { MidiSurface } from '../../../src/surfaces/midi/midi-surface.js';
import type { OutputItem } from '../../../src/engine/device-output.js';
import { FakeMidiSystem, RTMIDI_INIT_FAILURE, rtMidiOver } from '../../support/fake-midi.js';
import { shippedMidiMaps } from '../../support/shipped-profiles.js';
import { VirtualTime, advanceWithIo } from '../../support/virtual-time.js';
import { realTime } from '../../../src/engine/engine-time.js';

const PROGRAMMER_MODE = [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x01, 0xf7];
const NOT_AVAILABLE =
  'MIDI is not available: Failed to initialise RtMidi (no ALSA sequencer: /dev/snd/seq is missing; load the snd-seq kernel module, or give the container /dev/snd); MIDI controllers are ignored, everything else keeps running';

/** The shipped maps, read once per worker (a folder with a problem fails here, naming it); a copy each. */
function shippedMaps(): Promise<MidiMap[]> {
  return shippedMidiMaps();
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
}

const managers: MidiManager[] = [];
const systems: FakeMidiSystem[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.stop();
  for (const system of systems.splice(0)) system.dispose();
});

/** USB attach/detach events the test sends, where libusb would. */
function fakeUsb() {
  const listeners = new Set<(event: UsbEvent) => void>();
  const watch: WatchUsbEvents = async (onEvent) => {
    listeners.add(onEvent);
    return () => listeners.delete(onEvent);
  };
  const emit = (type: UsbEvent['type'], usb: UsbAddress | null) => {
    if (usb === null) throw new Error('no USB device behind that port');
    for (const listener of listeners) listener({ type, vendorId: 0x09e8, productId: 0x004f, ...usb });
  };
  return { watch, emit };
}

async function setup(system: FakeMidiSystem, options: { maps?: MidiMap[]; checkEveryMs?: number; watchUsb?: WatchUsbEvents } = {}) {
  const log = recordingLog();
  const time = new VirtualTime();
  const manager = new MidiManager({
    maps: options.maps ?? (await shippedMaps()),
    log,
    loadMidi: async () => rtMidiOver(system),
    watchUsb: options.watchUsb ?? null,
    portIdentity: alsaPortIdentity(system.asoundRoot),
    checkEveryMs: options.checkEveryMs ?? 60_000,
    sequencerPresent: () => false,
    time,
  });
  managers.push(manager);
  systems.push(system);
  const events: MidiSurfaceEvent[] = [];
  manager.surfaces$.subscribe((event) => events.push(event));
  /** Moves the clock on, running the checks that fall due and letting what they start finish. */
  const advance = (ms: number) => advanceWithIo(time, ms, () => true);
  return { manager, log, events, advance };
}

/** Hands items to a surface's output, as the engine does, and waits until they are written. */
async function show(surface: MidiSurface, ...items: OutputItem[]): Promise<void> {
  for (const item of items) surface.output.show(item);
  await surface.output.flushed();
}

/** What the bridge's session does with a new surface: every LED is drawn. */
async function drawEveryLed(surface: MidiSurface): Promise<void> {
  for (const control of surface.controls) if (control.kind === 'button' && control.feedback === 'led') surface.output.show({ type: 'led', control: control.id, state: 'idle' });
  await surface.output.flushed();
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
    const { manager, events, advance } = await setup(system, { checkEveryMs: 3000 });
    await manager.start();
    expect(events).toEqual([]);
    system.plug('nanoKONTROL2 _ CTRL');
    await advance(2999);
    expect(events).toEqual([]);
    await advance(1);
    expect(events.map((e) => e.type)).toEqual(['added']);
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
    await show(surface, { type: 'led', control: 'pad0', state: 'active' });
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

describe('shipped maps on their ports', () => {
  const LIVE_MODE = [0xf0, 0x00, 0x20, 0x29, 0x02, 0x0d, 0x0e, 0x00, 0xf7];

  it('the Launchpad under the older kernels\' port names: Programmer mode on open, Live mode again on stop', async () => {
    const system = new FakeMidiSystem();
    const daw = 'Launchpad Mini MK3:Launchpad Mini MK3 MIDI 1 24:0';
    const midi = 'Launchpad Mini MK3:Launchpad Mini MK3 MIDI 2 24:1';
    system.plug(daw);
    system.plug(midi);
    const { manager } = await setup(system);
    await manager.start();
    expect(manager.surfaces.map((s) => s.name)).toEqual([midi]);
    await show(manager.surfaces[0] as MidiSurface, { type: 'led', control: 'pad0', state: 'recording' });
    await manager.stop();
    expect(system.sent(midi)).toEqual([PROGRAMMER_MODE, [0x90, 11, 5], LIVE_MODE]);
    expect(system.sent(daw)).toEqual([]);
  });

  it('the X-Touch Mini: a knob\'s ring is set to the gain, and a turn is passed on at once (no soft takeover)', async () => {
    const system = new FakeMidiSystem();
    system.plug('X-TOUCH MINI');
    const { manager } = await setup(system);
    await manager.start();
    const surface = manager.surfaces[0] as MidiSurface;
    const inputs: SurfaceInput[] = [];
    surface.input.subscribe((i) => inputs.push(i));
    system.clearSent();
    await show(surface, { type: 'level', control: 'knob0', level: 0.5 });
    expect(system.sent('X-TOUCH MINI')).toEqual([[0xba, 1, 64]]); // encoder 1, layer A, channel 11
    system.fromDevice('X-TOUCH MINI', [0xba, 1, 100]);
    expect(inputs).toEqual([{ type: 'fader', control: 'knob0', position: 100 / 127 }]);
  });
});

describe('MIDI replug under the same name and ALSA client number', () => {
  const PORT = 'APC mini mk2:APC mini mk2 APC mini mk2 _ 20:0';
  const LEDS = 80; // 64 pads, 8 track and 8 scene buttons

  /** A manager whose surfaces get every LED drawn when added, as the bridge's session does. */
  async function replugSetup(options: { watchUsb?: WatchUsbEvents; checkEveryMs?: number; port?: string } = {}) {
    const system = new FakeMidiSystem();
    const port = options.port ?? PORT;
    system.plug(port);
    const ctx = await setup(system, options);
    ctx.manager.surfaces$.subscribe((event) => {
      if (event.type === 'added') void drawEveryLed(event.surface);
    });
    await ctx.manager.start();
    await ctx.advance(0);
    expect(system.sent(port)).toHaveLength(LEDS);
    return { system, port, ...ctx };
  }

  it('on USB detach/attach 300 ms apart: the dead port is closed, reopened, and every LED sent within 1 s of the attach', async () => {
    const usb = fakeUsb();
    const { system, port, manager, events, advance } = await replugSetup({ watchUsb: usb.watch, checkEveryMs: 60_000 });
    const first = manager.surfaces[0];

    const before = system.usbAddressOf(PORT);
    system.unplug(port);
    usb.emit('detach', before);
    await advance(300);
    system.clearSent();
    system.plug(port); // the same name: the same ALSA client number 20
    const after = system.usbAddressOf(port);
    expect(after).not.toEqual(before);
    usb.emit('attach', after);
    await advance(1000);

    expect(events.map((e) => e.type)).toEqual(['added', 'removed', 'added']);
    expect(manager.surfaces[0]).not.toBe(first);
    expect(system.sent(port)).toHaveLength(LEDS);
    expect(system.openInputCount(port)).toBe(1);
    expect(system.unclosedInputs()).toBe(1); // the dead handle was closed, not left behind
    const inputs: SurfaceInput[] = [];
    manager.surfaces[0]?.input.subscribe((i) => inputs.push(i));
    system.fromDevice(port, [0x90, 0, 127]);
    expect(inputs).toEqual([{ type: 'down', control: 'pad0' }]);
  });

  it('when ALSA shows the port only after the USB attach event, the checks that follow it still find it within 1 s', async () => {
    const usb = fakeUsb();
    const { system, port, events, advance } = await replugSetup({ watchUsb: usb.watch, checkEveryMs: 60_000 });
    const before = system.usbAddressOf(port);
    system.unplug(port);
    usb.emit('detach', before);
    await advance(300);
    system.clearSent();
    usb.emit('attach', { bus: 1, address: 99 });
    await advance(400);
    system.plug(port);
    await advance(600);
    expect(events.map((e) => e.type)).toEqual(['added', 'removed', 'added']);
    expect(system.sent(port)).toHaveLength(LEDS);
  });

  it('without USB events, the periodic check tells the replugged device by its USB identity, not its name', async () => {
    const { system, port, events, log, advance } = await replugSetup({ checkEveryMs: 3000 });
    await advance(1000);
    system.unplug(port);
    await advance(300);
    system.clearSent();
    system.plug(port);
    await advance(1700); // the next periodic check
    expect(events.map((e) => e.type)).toEqual(['added', 'removed', 'added']);
    expect(log.lines).toContain(`info midi:APC mini mk2: MIDI port "${port}" is another USB device now (replugged): opening it again`);
    expect(system.sent(port)).toHaveLength(LEDS);
    expect(system.unclosedInputs()).toBe(1);
  });

  it('a port whose USB identity cannot be read is reopened after any USB detach, if it is still there', async () => {
    const usb = fakeUsb();
    const { system, port, events, advance } = await replugSetup({ watchUsb: usb.watch, checkEveryMs: 60_000, port: 'APC mini mk2 Control' });
    system.unplug(port);
    system.plug(port);
    usb.emit('detach', { bus: 1, address: 7 });
    system.clearSent();
    await advance(1000);
    expect(events.map((e) => e.type)).toEqual(['added', 'removed', 'added']);
    expect(system.sent(port)).toHaveLength(LEDS);
    // An unrelated attach changes nothing.
    usb.emit('attach', { bus: 1, address: 8 });
    await advance(3000);
    expect(events).toHaveLength(3);
  });
});

describe('MIDI not available', () => {
  it('says so once when loading MIDI fails, and keeps running', async () => {
    const log = recordingLog();
    const manager = new MidiManager({ time: realTime,
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

  it.skipIf(existsSync('/dev/snd/seq'))('says so on this machine, with the real @julusian/midi and RtMidi (no /dev/snd/seq here)', async () => {
    const log = recordingLog();
    const manager = new MidiManager({ time: realTime, maps: await shippedMaps(), log });
    managers.push(manager);
    await manager.start();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(/^warn MIDI is not available: .*RtMidi.*\(no ALSA sequencer: \/dev\/snd\/seq is missing/);
  });
});
