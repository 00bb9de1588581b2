// Finds the MIDI controllers the maps describe, opens them as surfaces, and keeps looking: RtMidi has no
// hot-plug events, so the port list is read again every few seconds. A device that appears is opened
// (init messages sent) and announced as 'added'; one whose port disappears is closed and announced as
// 'removed'; when it comes back it is a new surface, so the bridge binds it afresh and every LED is sent
// again. Without MIDI on the machine (no ALSA sequencer, no native backend) the manager says so once and
// the rest of the bridge carries on.
import { Observable, Subject } from 'rxjs';
import type { Logger } from '../../engine/log.js';
import type { SurfaceSource } from '../../engine/surface.js';
import { loadEasymidi, type EasymidiApi, type EasymidiLoader, type EasymidiOutput } from './easymidi.js';
import type { MidiMap } from './midi-map.js';
import { MidiSurface } from './midi-surface.js';
import { byExactnessFirst, findOutputPort, findPort, portMatches } from './ports.js';
import { midiUnavailableReason } from './unavailable.js';

export type MidiSurfaceEvent = { type: 'added'; surface: MidiSurface } | { type: 'removed'; id: string };

export interface MidiManagerOptions {
  maps: readonly MidiMap[];
  log: Logger;
  /** Loads easymidi; tests hand in easymidi running over a fake backend. */
  loadMidi?: EasymidiLoader;
  /** How often the port list is read again (ms). */
  checkEveryMs?: number;
  now?: () => number;
  /** Soft takeover and motor timing of the surfaces (ms). */
  graceMs?: number;
  /** Whether the ALSA sequencer device exists (for the hint when MIDI is not available). */
  sequencerPresent?: () => boolean;
}

interface OpenDevice {
  surface: MidiSurface;
  inputName: string;
}

const DEFAULT_CHECK_MS = 3000;
/** ALSA's always-present loopback port: never a controller. */
const THROUGH_PORT = /^Midi Through\b/i;

export class MidiManager implements SurfaceSource {
  readonly name = 'MIDI';
  /** Every surface opened and closed; a new subscriber first hears of the surfaces open now. */
  readonly surfaces$: Observable<MidiSurfaceEvent>;
  private readonly events = new Subject<MidiSurfaceEvent>();
  private readonly maps: MidiMap[];
  private readonly open = new Map<string, OpenDevice>();
  private api: EasymidiApi | null = null;
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Why MIDI is not available, once said; null while it is. */
  private unavailable: string | null = null;
  private readonly openFailures = new Map<string, string>();
  private lastUnmatched = '';

  constructor(private readonly options: MidiManagerOptions) {
    this.maps = byExactnessFirst(options.maps);
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
      this.api = await (this.options.loadMidi ?? loadEasymidi)();
    } catch (error) {
      // The module itself did not load (no native backend for this machine): looking again will not help.
      this.reportUnavailable(error);
      return;
    }
    if (this.stopped) return;
    await this.check();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.check(), this.options.checkEveryMs ?? DEFAULT_CHECK_MS);
    this.timer.unref();
  }

  /** Reads the port list once: opens what appeared, closes what went away. */
  check(): Promise<void> {
    this.running ??= this.scan().finally(() => (this.running = null));
    return this.running;
  }

  /** Closes every surface (announcing each as removed) and stops looking. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
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
      inputs = api.getInputs();
      outputs = api.getOutputs();
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
      if (inputs.includes(device.inputName)) continue;
      this.options.log.info(`${device.surface.id}: MIDI port "${device.inputName}" is gone`);
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

  private async openDevice(api: EasymidiApi, map: MidiMap, inputName: string, outputs: readonly string[]): Promise<boolean> {
    const id = `midi:${map.name}`;
    const { log } = this.options;
    let surface: MidiSurface;
    try {
      const input = new api.Input(inputName);
      try {
        surface = new MidiSurface({
          map,
          portName: inputName,
          input,
          output: this.openOutput(api, id, map, inputName, outputs),
          log,
          ...(this.options.now === undefined ? {} : { now: this.options.now }),
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
    if (!surface.rawInputGuarded) log.warn(`${id}: easymidi is not the version expected; raw MIDI input is not screened before it parses it`);
    try {
      await surface.open();
    } catch (error) {
      log.warn(`${id}: ${messageOf(error)}`);
    }
    this.open.set(map.name, { surface, inputName });
    log.info(`${id}: MIDI controller on "${inputName}" (model ${map.model})`);
    this.events.next({ type: 'added', surface });
    return true;
  }

  /** The device's output port, or null (then its LEDs stay dark, which is worth a warning, not a failure). */
  private openOutput(api: EasymidiApi, id: string, map: MidiMap, inputName: string, outputs: readonly string[]): EasymidiOutput | null {
    const pattern = map.ports.output ?? map.ports.input;
    const outputName = findOutputPort(pattern, inputName, outputs);
    if (outputName === undefined) {
      this.options.log.warn(`${id}: no MIDI output port matches ${pattern}; its LEDs stay dark`);
      return null;
    }
    try {
      return new api.Output(outputName);
    } catch (error) {
      this.options.log.warn(`${id}: cannot open MIDI output "${outputName}": ${messageOf(error)}; its LEDs stay dark`);
      return null;
    }
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
