// Finds the MIDI controllers the maps describe, opens them as surfaces, and keeps looking. RtMidi has no
// hot-plug events, so the port list is read on every USB attach/detach event (../usb-events.ts, a few
// times as ALSA lags behind USB) and every few seconds. A device that appears is opened (init messages
// sent) and announced as 'added'; one that went away is closed and announced as 'removed'; when it comes
// back it is a new surface, so the bridge binds it afresh and every LED is sent again.
//
// "Went away" cannot be read from the port names alone: a device replugged within one check comes back
// under the same ALSA client number and port name, while the handles opened before stay dead. So each
// open port keeps the USB device it was opened on (port-identity.ts): a USB detach of that device closes
// it at once, and a check that finds the name behind another device closes and reopens it. Where that
// identity cannot be read (not Linux, not USB), any USB detach closes the port at the next check, which
// opens it again if it is still there: one needless reopen rather than a dead controller.
//
// Without MIDI on the machine (no ALSA sequencer, no native backend) the manager says so once and the
// rest of the bridge carries on.
import { Observable, Subject, Subscription, interval } from 'rxjs';
import { messageOf } from '../../api/errors.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { SurfaceSource } from '../../engine/surface.js';
import { watchUsbEvents, type UsbEvent, type WatchUsbEvents } from '../usb-events.js';
import type { MidiMap } from './midi-map.js';
import type { MidiBackend, MidiBackendLoader, MidiOutputPort } from './midi-port.js';
import { MidiSurface } from './midi-surface.js';
import { alsaPortIdentity, sameUsbDevice, type PortIdentity, type UsbAddress } from './port-identity.js';
import { byExactnessFirst, findOutputPort, findPort, portMatches } from './ports.js';
import { loadRtMidi } from './rtmidi.js';
import { midiUnavailableReason } from './unavailable.js';

export type MidiSurfaceEvent = { type: 'added'; surface: MidiSurface } | { type: 'removed'; id: string };

export interface MidiManagerOptions {
  maps: readonly MidiMap[];
  log: Logger;
  /** Loads the MIDI backend (default: RtMidi); tests hand in the real library over a fake RtMidi. */
  loadMidi?: MidiBackendLoader;
  /** How often the port list is read again (ms). */
  checkEveryMs?: number;
  /** USB attach/detach events (default: libusb's); null: none, the periodic check alone. */
  watchUsb?: WatchUsbEvents | null;
  /** The USB device behind a port (default: from /proc/asound). */
  portIdentity?: PortIdentity;
  /** The clock and scheduler of its checks and of its surfaces (real time by default). */
  time: EngineTime;
  /** Soft takeover and motor timing of the surfaces (ms). */
  graceMs?: number;
  /** Whether the ALSA sequencer device exists (for the hint when MIDI is not available). */
  sequencerPresent?: () => boolean;
}

interface OpenDevice {
  surface: MidiSurface;
  inputName: string;
  /** The USB device the port was opened on; null when it cannot be told. */
  usb: UsbAddress | null;
  /** A USB device went away since it was opened and this one's identity is unknown: reopen it. */
  suspect: boolean;
}

const DEFAULT_CHECK_MS = 3000;
/**
 * Checks after a USB event (ms after it). ALSA registers a device's sequencer client a little after
 * USB enumerates it (and removes it a little after the detach): checking a few times catches it without
 * waiting for the periodic check.
 */
const AFTER_USB_EVENT_MS = [50, 250, 600, 1500];
/** ALSA's always-present loopback port: never a controller. */
const THROUGH_PORT = /^Midi Through\b/i;

export class MidiManager implements SurfaceSource {
  readonly name = 'MIDI';
  /** Every surface opened and closed; a new subscriber first hears of the surfaces open now. */
  readonly surfaces$: Observable<MidiSurfaceEvent>;
  private readonly events = new Subject<MidiSurfaceEvent>();
  private readonly maps: MidiMap[];
  private readonly open = new Map<string, OpenDevice>();
  private api: MidiBackend | null = null;
  private started = false;
  private stopped = false;
  private readonly time: EngineTime;
  /** The periodic check. */
  private checks: Subscription | null = null;
  /** The checks that follow a USB event. */
  private followUps = new Subscription();
  private stopWatchingUsb: (() => void) | null = null;
  private readonly identify: PortIdentity;
  private running: Promise<void> | null = null;
  /** Why MIDI is not available, once said; null while it is. */
  private unavailable: string | null = null;
  private readonly openFailures = new Map<string, string>();
  private lastUnmatched = '';

  constructor(private readonly options: MidiManagerOptions) {
    this.maps = byExactnessFirst(options.maps);
    this.time = options.time;
    this.identify = options.portIdentity ?? alsaPortIdentity();
    this.surfaces$ = new Observable<MidiSurfaceEvent>((subscriber) => {
      for (const { surface } of this.open.values()) subscriber.next({ type: 'added', surface });
      return this.events.subscribe(subscriber);
    });
  }

  /** The surfaces open now. */
  get surfaces(): MidiSurface[] {
    return [...this.open.values()].map((device) => device.surface);
  }

  /** Loads MIDI, opens what is there, and starts looking for changes. Never throws. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    try {
      this.api = await (this.options.loadMidi ?? loadRtMidi)();
    } catch (error) {
      // The module itself did not load (no native backend for this machine): looking again will not help.
      this.reportUnavailable(error);
      return;
    }
    if (this.stopped) return;
    await this.check();
    if (this.stopped) return;
    this.checks = interval(this.options.checkEveryMs ?? DEFAULT_CHECK_MS, this.time.scheduler).subscribe(() => void this.check());
    await this.watchUsb();
  }

  /** Reads the port list once: opens what appeared, closes what went away. */
  check(): Promise<void> {
    this.running ??= this.scan().finally(() => (this.running = null));
    return this.running;
  }

  /** Closes every surface (announcing each as removed) and stops looking. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.checks?.unsubscribe();
    this.checks = null;
    this.followUps.unsubscribe();
    this.stopWatchingUsb?.();
    this.stopWatchingUsb = null;
    await this.running;
    for (const mapName of [...this.open.keys()]) this.close(mapName);
    this.events.complete();
  }

  private async scan(): Promise<void> {
    const api = this.api;
    if (api === null || this.stopped) return;
    let inputs: string[];
    let outputs: string[];
    try {
      inputs = api.inputNames();
      outputs = api.outputNames();
    } catch (error) {
      this.reportUnavailable(error);
      for (const mapName of [...this.open.keys()]) this.close(mapName);
      return;
    }
    if (this.unavailable !== null) {
      this.unavailable = null;
      this.options.log.info('MIDI is available now');
    }
    for (const [mapName, device] of [...this.open]) {
      const why = this.goneBecause(device, inputs);
      if (why === null) continue;
      this.options.log.info(`${device.surface.id}: MIDI port "${device.inputName}" ${why}`);
      this.close(mapName);
    }
    const taken = new Set([...this.open.values()].map((device) => device.inputName));
    for (const map of this.maps) {
      if (this.open.has(map.name)) continue;
      const inputName = findPort(map.ports.input, inputs, taken);
      if (inputName === undefined) continue;
      if (await this.openDevice(api, map, inputName, outputs)) taken.add(inputName);
    }
    this.reportUnmatched(inputs, taken);
  }

  /** Why an open device is to be closed now, or null while it is still the device it was opened on. */
  private goneBecause(device: OpenDevice, inputs: readonly string[]): string | null {
    if (!inputs.includes(device.inputName)) return 'is gone';
    if (device.suspect) return 'may have been replugged (a USB device went away; its USB identity is unknown): opening it again';
    if (!sameUsbDevice(device.usb, this.identify(device.inputName))) return 'is another USB device now (replugged): opening it again';
    return null;
  }

  private async openDevice(api: MidiBackend, map: MidiMap, inputName: string, outputs: readonly string[]): Promise<boolean> {
    const id = `midi:${map.name}`;
    const { log } = this.options;
    let surface: MidiSurface;
    // Read before opening: a device replugged while it opens shows up as a different identity next time.
    const usb = this.identify(inputName);
    try {
      const input = api.openInput(inputName);
      try {
        surface = new MidiSurface({
          map,
          portName: inputName,
          input,
          output: this.openOutput(api, id, map, inputName, outputs),
          log,
          time: this.time,
          ...(this.options.graceMs === undefined ? {} : { graceMs: this.options.graceMs }),
        });
      } catch (error) {
        input.close();
        throw error;
      }
    } catch (error) {
      // Said once per reason: the port is tried again on every check, and may open next time.
      const reason = messageOf(error);
      if (this.openFailures.get(map.name) !== reason) log.warn(`${id}: cannot open MIDI input "${inputName}": ${reason}`);
      this.openFailures.set(map.name, reason);
      return false;
    }
    this.openFailures.delete(map.name);
    try {
      await surface.open();
    } catch (error) {
      log.warn(`${id}: ${messageOf(error)}`);
    }
    this.open.set(map.name, { surface, inputName, usb, suspect: false });
    log.info(`${id}: MIDI controller on "${inputName}" (model ${map.model})`);
    this.events.next({ type: 'added', surface });
    return true;
  }

  /** The device's output port, or null (then its LEDs stay dark, which is worth a warning, not a failure). */
  private openOutput(api: MidiBackend, id: string, map: MidiMap, inputName: string, outputs: readonly string[]): MidiOutputPort | null {
    const pattern = map.ports.output ?? map.ports.input;
    const outputName = findOutputPort(pattern, inputName, outputs);
    if (outputName === undefined) {
      this.options.log.warn(`${id}: no MIDI output port matches ${pattern}; its LEDs stay dark`);
      return null;
    }
    try {
      return api.openOutput(outputName);
    } catch (error) {
      this.options.log.warn(`${id}: cannot open MIDI output "${outputName}": ${messageOf(error)}; its LEDs stay dark`);
      return null;
    }
  }

  /** Optional, like the Stream Decks' hot-plug: without it the periodic check finds every change. */
  private async watchUsb(): Promise<void> {
    const watch = this.options.watchUsb === undefined ? watchUsbEvents : this.options.watchUsb;
    if (watch === null) return;
    try {
      const stop = await watch((event) => this.onUsbEvent(event));
      if (this.stopped) stop();
      else this.stopWatchingUsb = stop;
    } catch (error) {
      this.options.log.info(`MIDI: no USB hot-plug events (${messageOf(error)}); MIDI ports are checked every ${(this.options.checkEveryMs ?? DEFAULT_CHECK_MS) / 1000} s`);
    }
  }

  private onUsbEvent(event: UsbEvent): void {
    if (this.stopped) return;
    if (event.type === 'detach') {
      for (const [mapName, device] of [...this.open]) {
        if (device.usb === null) device.suspect = true;
        else if (device.usb.bus === event.bus && device.usb.address === event.address) {
          this.options.log.info(`${device.surface.id}: its USB device was unplugged`);
          this.close(mapName);
        }
      }
    }
    this.followUps.unsubscribe();
    this.followUps = new Subscription();
    for (const ms of AFTER_USB_EVENT_MS) this.followUps.add(this.time.scheduler.schedule(() => void this.check(), ms));
  }

  private close(mapName: string): void {
    const device = this.open.get(mapName);
    if (!device) return;
    this.open.delete(mapName);
    device.surface.close();
    this.events.next({ type: 'removed', id: device.surface.id });
  }

  private reportUnavailable(error: unknown): void {
    if (this.unavailable !== null) return;
    this.unavailable = messageOf(error);
    this.options.log.warn(`MIDI is not available: ${midiUnavailableReason(error, this.options.sequencerPresent)}; MIDI controllers are ignored, everything else keeps running`);
  }

  /** Names the ports no map claims, when that list changes: the first step in writing a map for one. */
  private reportUnmatched(inputs: readonly string[], taken: ReadonlySet<string>): void {
    const free = inputs.filter((name) => !taken.has(name) && !THROUGH_PORT.test(name));
    const unmatched = free.filter((name) => !this.maps.some((map) => portMatches(map.ports.input, name)));
    // A second controller of a kind already in use: its map is taken by the first one.
    const spare = free.filter((name) => !unmatched.includes(name));
    const text = JSON.stringify([unmatched, spare]);
    if (text === this.lastUnmatched) return;
    this.lastUnmatched = text;
    if (unmatched.length > 0) this.options.log.info(`MIDI ports no map names: "${unmatched.join('", "')}" (a map's ports.input takes an exact name or a /pattern/)`);
    if (spare.length > 0) {
      this.options.log.info(`MIDI ports left unused, their map being in use on another port: "${spare.join('", "')}" (a second identical controller needs a copy of the map with a new name and its exact port name)`);
    }
  }
}
