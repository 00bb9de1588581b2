// A fake @julusian/midi: ports that can be plugged and unplugged, devices that send bytes, and a record
// of every byte sent to them. It has the native module's JS API (Input/Output with getPortCount,
// getPortName, openPort, closePort, ignoreTypes, sendMessage, the 'message' event), and is placed in
// Node's module cache under @julusian/midi's own path while the REAL easymidi is loaded, so easymidi's
// own port naming, parsing and message building run over it exactly as they would over RtMidi.
import { EventEmitter } from 'node:events';
import { createRequire, Module } from 'node:module';
import { asEasymidiApi, type EasymidiApi } from '../../src/surfaces/midi/easymidi.js';

interface FakePort {
  name: string;
  input: boolean;
  output: boolean;
}

/** RtMidi's message when there is no ALSA sequencer (/dev/snd/seq). */
export const RTMIDI_INIT_FAILURE = 'Failed to initialise RtMidi';

export class FakeMidiSystem {
  /** false: every Input/Output construction throws, as RtMidi does without an ALSA sequencer. */
  available = true;
  private ports: FakePort[] = [];
  private readonly openInputs = new Set<FakeInput>();
  private readonly sentTo = new Map<string, number[][]>();

  plug(name: string, sides: { input?: boolean; output?: boolean } = {}): void {
    this.ports.push({ name, input: sides.input ?? true, output: sides.output ?? true });
  }

  unplug(name: string): void {
    this.ports = this.ports.filter((port) => port.name !== name);
    for (const input of this.openInputs) if (input.portName === name) input.lose();
  }

  inputNames(): string[] {
    return this.ports.filter((p) => p.input).map((p) => p.name);
  }

  outputNames(): string[] {
    return this.ports.filter((p) => p.output).map((p) => p.name);
  }

  /** The device on a port sends one raw message (RtMidi delivers each message as one callback). */
  fromDevice(name: string, bytes: readonly number[]): void {
    for (const input of [...this.openInputs]) if (input.portName === name) input.deliver(bytes);
  }

  /** Every message sent to a port, in order. */
  sent(name: string): number[][] {
    return this.sentTo.get(name) ?? [];
  }

  clearSent(): void {
    this.sentTo.clear();
  }

  /** How many inputs are open on a port now. */
  openInputCount(name: string): number {
    return [...this.openInputs].filter((input) => input.portName === name).length;
  }

  /** The module object that stands in for @julusian/midi. */
  module(): Record<string, unknown> {
    const system = this;
    class Input extends FakeInput {
      constructor() {
        super(system);
      }
    }
    class Output extends FakeOutput {
      constructor() {
        super(system);
      }
    }
    return { Input, Output, input: Input, output: Output };
  }

  /** @internal */
  check(): void {
    if (!this.available) throw new Error(RTMIDI_INIT_FAILURE);
  }

  /** @internal */
  portAt(index: number, side: 'input' | 'output'): FakePort | undefined {
    return this.ports.filter((p) => p[side])[index];
  }

  /** @internal */
  track(input: FakeInput, open: boolean): void {
    if (open) this.openInputs.add(input);
    else this.openInputs.delete(input);
  }

  /** @internal */
  record(name: string, bytes: number[]): void {
    const list = this.sentTo.get(name) ?? [];
    list.push(bytes);
    this.sentTo.set(name, list);
  }

  /** @internal */
  hasOutput(name: string): boolean {
    return this.ports.some((p) => p.name === name && p.output);
  }
}

class FakeInput extends EventEmitter {
  portName: string | null = null;
  private ignore = { sysex: true, timing: true, activeSensing: true };

  constructor(private readonly system: FakeMidiSystem) {
    super();
    system.check();
  }

  getPortCount(): number {
    return this.system.inputNames().length;
  }

  getPortName(port: number): string {
    return this.system.portAt(port, 'input')?.name ?? '';
  }

  openPort(port: number): void {
    const found = this.system.portAt(port, 'input');
    if (!found) throw new RangeError('Invalid MIDI port number');
    this.portName = found.name;
    this.system.track(this, true);
  }

  openPortByName(name: string): void {
    const index = this.system.inputNames().indexOf(name);
    if (index >= 0) this.openPort(index);
  }

  openVirtualPort(name: string): void {
    this.portName = name;
    this.system.track(this, true);
  }

  closePort(): void {
    this.system.track(this, false);
    this.portName = null;
  }

  destroy(): void {
    this.closePort();
  }

  isPortOpen(): boolean {
    return this.portName !== null;
  }

  ignoreTypes(sysex: boolean, timing: boolean, activeSensing: boolean): void {
    this.ignore = { sysex, timing, activeSensing };
  }

  setBufferSize(): void {}

  /** @internal The device unplugged: RtMidi's input simply hears nothing more. */
  lose(): void {
    this.system.track(this, false);
  }

  /** @internal RtMidi's filtering (ignoreTypes), then the callback with (deltaTime, bytes). */
  deliver(bytes: readonly number[]): void {
    const [first] = bytes;
    if (this.ignore.sysex && first === 0xf0) return;
    if (this.ignore.timing && (first === 0xf8 || first === 0xf1)) return;
    if (this.ignore.activeSensing && first === 0xfe) return;
    this.emit('messageBuffer', 0, Buffer.from(bytes));
    this.emit('message', 0, [...bytes]);
  }
}

class FakeOutput {
  private portName: string | null = null;

  constructor(private readonly system: FakeMidiSystem) {
    system.check();
  }

  getPortCount(): number {
    return this.system.outputNames().length;
  }

  getPortName(port: number): string {
    return this.system.portAt(port, 'output')?.name ?? '';
  }

  openPort(port: number): void {
    const found = this.system.portAt(port, 'output');
    if (!found) throw new RangeError('Invalid MIDI port number');
    this.portName = found.name;
  }

  openPortByName(name: string): void {
    const index = this.system.outputNames().indexOf(name);
    if (index >= 0) this.openPort(index);
  }

  openVirtualPort(name: string): void {
    this.portName = name;
  }

  closePort(): void {
    this.portName = null;
  }

  destroy(): void {
    this.closePort();
  }

  isPortOpen(): boolean {
    return this.portName !== null;
  }

  send(message: number[] | Buffer): void {
    this.sendMessage(message);
  }

  /**
   * As @julusian/midi does it: an array becomes a Buffer (which coerces easymidi's string status bytes
   * and silently wraps values above 255), anything else is refused. Bytes to a port that is gone are
   * lost, not an error, as with RtMidi over ALSA.
   */
  sendMessage(message: number[] | Buffer): void {
    const buffer = Array.isArray(message) ? Buffer.from(message) : message;
    if (!Buffer.isBuffer(buffer)) throw new Error('First argument must be an array or Buffer');
    if (this.portName !== null && this.system.hasOutput(this.portName)) this.system.record(this.portName, [...buffer]);
  }
}

const require = createRequire(import.meta.url);

/**
 * The real easymidi, loaded afresh with the fake in the module cache as its @julusian/midi. easymidi
 * keeps the module it required, so the cache is put back as it was at once.
 */
export function easymidiOver(system: FakeMidiSystem): EasymidiApi {
  const easymidiPath = require.resolve('easymidi');
  const midiPath = createRequire(easymidiPath).resolve('@julusian/midi');
  const cache = require.cache;
  const savedMidi = cache[midiPath];
  const savedEasymidi = cache[easymidiPath];
  const fake = new Module(midiPath);
  fake.filename = midiPath;
  fake.exports = system.module();
  fake.loaded = true;
  cache[midiPath] = fake;
  delete cache[easymidiPath];
  try {
    return asEasymidiApi(require(easymidiPath));
  } finally {
    restore(cache, midiPath, savedMidi);
    restore(cache, easymidiPath, savedEasymidi);
  }
}

function restore(cache: NodeJS.Dict<NodeJS.Module>, path: string, saved: NodeJS.Module | undefined): void {
  if (saved === undefined) delete cache[path];
  else cache[path] = saved;
}
