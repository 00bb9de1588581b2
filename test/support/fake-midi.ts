// A fake RtMidi: the native binding of @julusian/midi (its Input(callback) and Output classes with
// getPortCount, getPortName, openPort, closePort, ignoreTypes, sendMessage, and the port listings),
// with ports that can be plugged and unplugged, devices that send bytes, and a record of every byte
// sent to them. It is put in Node's module cache as the binding's loader while the REAL @julusian/midi
// is loaded, so the library's own Input/Output classes, Buffer handling and event emitting run over
// it exactly as they would over RtMidi.
//
// Ports behave as ALSA's do: a port name carries its sequencer client ("…  20:0"); a handle is bound
// to the port as it was when opened, so after an unplug it stays dead even when a port of the same name
// comes back; and each plug-in of a card client's device gets a new USB device address, written where
// the kernel writes it (an asound tree with cardN/usbbus, N = (client − 16) / 4).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MidiBackend } from '../../src/surfaces/midi/midi-port.js';
import { alsaClientOf, type UsbAddress } from '../../src/surfaces/midi/port-identity.js';
import { asRtMidiModule, rtMidiBackend } from '../../src/surfaces/midi/rtmidi.js';

interface FakePort {
  name: string;
  input: boolean;
  output: boolean;
  /** Which plug-in of the port this is: handles opened on an earlier one are dead. */
  instance: number;
}

/** RtMidi's message when there is no ALSA sequencer (/dev/snd/seq). */
export const RTMIDI_INIT_FAILURE = 'Failed to initialise RtMidi';

type Callback = (deltaTime: number, message: Buffer) => void;

export class FakeMidiSystem {
  /** false: every Input/Output construction throws, as RtMidi does without an ALSA sequencer. */
  available = true;
  private ports: FakePort[] = [];
  private instances = 0;
  private nextUsbAddress = 1;
  private readonly usbOfClient = new Map<number, UsbAddress>();
  private readonly openInputs = new Set<FakeInput>();
  private readonly sentTo = new Map<string, number[][]>();
  private root: string | null = null;

  /** The /proc/asound stand-in (created on first use). */
  get asoundRoot(): string {
    this.root ??= mkdtempSync(join(tmpdir(), 'recdeck-asound-'));
    return this.root;
  }

  /** Removes the asound stand-in. */
  dispose(): void {
    if (this.root !== null) rmSync(this.root, { recursive: true, force: true });
    this.root = null;
  }

  plug(name: string, sides: { input?: boolean; output?: boolean } = {}): void {
    const card = cardOf(name);
    if (card !== null && !this.usbOfClient.has(card.client)) {
      const usb = { bus: 1, address: this.nextUsbAddress++ };
      this.usbOfClient.set(card.client, usb);
      mkdirSync(join(this.asoundRoot, `card${card.card}`), { recursive: true });
      writeFileSync(join(this.asoundRoot, `card${card.card}`, 'usbbus'), `${pad(usb.bus)}/${pad(usb.address)}\n`);
    }
    this.ports.push({ name, input: sides.input ?? true, output: sides.output ?? true, instance: ++this.instances });
  }

  unplug(name: string): void {
    this.ports = this.ports.filter((port) => port.name !== name);
    const card = cardOf(name);
    if (card !== null && !this.ports.some((port) => cardOf(port.name)?.client === card.client)) {
      this.usbOfClient.delete(card.client);
      rmSync(join(this.asoundRoot, `card${card.card}`), { recursive: true, force: true });
    }
  }

  /** The USB device behind a port now (null when it is not a card client's port, or not plugged). */
  usbAddressOf(name: string): UsbAddress | null {
    const card = cardOf(name);
    return card === null ? null : (this.usbOfClient.get(card.client) ?? null);
  }

  inputNames(): string[] {
    return this.ports.filter((p) => p.input).map((p) => p.name);
  }

  outputNames(): string[] {
    return this.ports.filter((p) => p.output).map((p) => p.name);
  }

  /** The device on a port sends one raw message (RtMidi delivers each message as one callback). */
  fromDevice(name: string, bytes: readonly number[]): void {
    for (const input of [...this.openInputs]) if (this.isLive(input.port, name)) input.deliver(bytes);
  }

  /** Every message sent to a port, in order. */
  sent(name: string): number[][] {
    return this.sentTo.get(name) ?? [];
  }

  clearSent(): void {
    this.sentTo.clear();
  }

  /** How many live inputs are open on a port now (handles on an unplugged port do not count). */
  openInputCount(name: string): number {
    return [...this.openInputs].filter((input) => this.isLive(input.port, name)).length;
  }

  /** How many input handles were opened and not closed, dead or alive. */
  unclosedInputs(): number {
    return this.openInputs.size;
  }

  /** The object that stands in for @julusian/midi's native binding. */
  binding(): Record<string, unknown> {
    const system = this;
    class Input extends FakeInput {
      constructor(callback: Callback) {
        super(system, callback);
      }
    }
    class Output extends FakeOutput {
      constructor() {
        super(system);
      }
    }
    return { Input, Output, getInputPortNames: () => system.inputNames(), getOutputPortNames: () => system.outputNames() };
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

  /** @internal Bytes reach a device only through a handle opened on its current plug-in. */
  record(port: FakePort, bytes: number[]): void {
    if (!this.isLive(port, port.name) || !port.output) return;
    const list = this.sentTo.get(port.name) ?? [];
    list.push(bytes);
    this.sentTo.set(port.name, list);
  }

  private isLive(port: FakePort | null, name: string): boolean {
    return port !== null && port.name === name && this.ports.includes(port);
  }
}

function cardOf(name: string): { client: number; card: number } | null {
  const client = alsaClientOf(name);
  return client === null || client < 16 || client >= 128 ? null : { client, card: Math.floor((client - 16) / 4) };
}

function pad(n: number): string {
  return String(n).padStart(3, '0');
}

class FakeInput {
  port: FakePort | null = null;
  // RtMidi's defaults: SysEx, timing and active sensing are ignored until told otherwise.
  private ignore = { sysex: true, timing: true, activeSensing: true };

  constructor(
    private readonly system: FakeMidiSystem,
    private readonly callback: Callback,
  ) {
    if (typeof callback !== 'function') throw new Error('Expected a callback');
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
    this.port = found;
    this.system.track(this, true);
  }

  openVirtualPort(): void {
    throw new Error('the fake has no virtual ports');
  }

  closePort(): void {
    this.system.track(this, false);
    this.port = null;
  }

  destroy(): void {
    this.closePort();
  }

  isPortOpen(): boolean {
    return this.port !== null;
  }

  ignoreTypes(sysex: boolean, timing: boolean, activeSensing: boolean): void {
    this.ignore = { sysex, timing, activeSensing };
  }

  setBufferSize(): void {}

  /** @internal RtMidi's filtering (ignoreTypes), then the callback with (deltaTime, Buffer). */
  deliver(bytes: readonly number[]): void {
    const [first] = bytes;
    if (this.ignore.sysex && first === 0xf0) return;
    if (this.ignore.timing && (first === 0xf8 || first === 0xf1)) return;
    if (this.ignore.activeSensing && first === 0xfe) return;
    this.callback(0, Buffer.from(bytes));
  }
}

class FakeOutput {
  private port: FakePort | null = null;

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
    this.port = found;
  }

  openVirtualPort(): void {
    throw new Error('the fake has no virtual ports');
  }

  closePort(): void {
    this.port = null;
  }

  destroy(): void {
    this.closePort();
  }

  isPortOpen(): boolean {
    return this.port !== null;
  }

  /** The binding takes a Buffer (the library converts arrays); bytes to a port that is gone are lost, as with ALSA. */
  sendMessage(message: Buffer): void {
    if (!Buffer.isBuffer(message)) throw new TypeError('Expected a Buffer');
    if (this.port !== null) this.system.record(this.port, [...message]);
  }

  send(message: Buffer): void {
    this.sendMessage(message);
  }
}

const require = createRequire(import.meta.url);

/**
 * The real @julusian/midi, loaded afresh with the fake as its native binding, as a MidiBackend. The
 * library keeps the binding it loaded, so the module cache is put back as it was at once.
 */
export function rtMidiOver(system: FakeMidiSystem): MidiBackend {
  const root = dirname(require.resolve('@julusian/midi/package.json'));
  const loaderPath = join(root, 'load-native.js');
  const cache = require.cache;
  const saved = new Map(Object.entries(cache).filter(([path]) => path.startsWith(root)));
  for (const path of saved.keys()) delete cache[path];
  const fake = new Module(loaderPath);
  fake.filename = loaderPath;
  fake.exports = () => system.binding();
  fake.loaded = true;
  cache[loaderPath] = fake;
  try {
    return rtMidiBackend(asRtMidiModule(require('@julusian/midi/lazy')));
  } finally {
    for (const path of Object.keys(cache)) if (path.startsWith(root)) delete cache[path];
    for (const [path, module] of saved) cache[path] = module;
  }
}
