// The MidiBackend over @julusian/midi's public API (RtMidi: ALSA on Linux, CoreMIDI, WinMM): raw
// messages from its Input's 'message' event, bytes out through Output.sendMessage. It is loaded only
// when MIDI is started (a require of the /lazy entry, the package being CommonJS): the native backend
// must never stop the bridge from starting, and a machine without it gets a clear reason instead.
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { messageOf } from '../../api/errors.js';
import type { MidiBackend, MidiBackendLoader, MidiInputPort, MidiOutputPort } from './midi-port.js';

/** The part of @julusian/midi's Input used here (its public class). */
export interface RtMidiInput {
  getPortCount(): number;
  getPortName(port: number): string;
  openPort(port: number): void;
  destroy(): void;
  ignoreTypes(sysex: boolean, timing: boolean, activeSensing: boolean): void;
  on(event: 'message', listener: (deltaTime: number, message: number[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** The part of @julusian/midi's Output used here. */
export interface RtMidiOutput {
  getPortCount(): number;
  getPortName(port: number): string;
  openPort(port: number): void;
  destroy(): void;
  sendMessage(message: number[]): void;
}

/** @julusian/midi's module: the Input and Output classes. */
export interface RtMidiModule {
  Input: new () => RtMidiInput;
  Output: new () => RtMidiOutput;
}

/** Imports @julusian/midi and checks it is usable; throws what loading threw. */
export const loadRtMidi: MidiBackendLoader = async () => rtMidiBackend(asRtMidiModule(createRequire(import.meta.url)('@julusian/midi/lazy')), alsaSequencerProblem);

/**
 * Why RtMidi cannot work on this Linux machine, or null. Without a usable /dev/snd/seq every port object
 * RtMidi makes fails inside native code, and ALSA and RtMidi each print their error on stderr (fd 2) as
 * they fail: at every check, every 3 s, past the bridge's log. Node cannot redirect fd 2 around a native
 * call, so the native code is not called at all while the sequencer cannot be opened; the error below
 * takes its place, and the manager logs it once.
 */
export function alsaSequencerProblem(device = '/dev/snd/seq'): string | null {
  if (process.platform !== 'linux') return null;
  try {
    accessSync(device, constants.R_OK | constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing device gets its hint (what to load or pass in) from midiUnavailableReason.
    return code === 'ENOENT' ? 'RtMidi not started' : `RtMidi not started: ${device} cannot be opened (${code ?? messageOf(error)})`;
  }
}

/** A loaded module as RtMidiModule, looking through the CommonJS default export. */
export function asRtMidiModule(loaded: unknown): RtMidiModule {
  for (const candidate of [loaded, (loaded as { default?: unknown } | null)?.default]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const midi = candidate as Partial<Record<keyof RtMidiModule, unknown>>;
    if (typeof midi.Input === 'function' && typeof midi.Output === 'function') return candidate as RtMidiModule;
  }
  throw new Error('the @julusian/midi module does not have Input and Output');
}

/** The backend over the module; `problem` is asked before every native port object is made (see alsaSequencerProblem). */
export function rtMidiBackend(midi: RtMidiModule, problem: () => string | null = () => null): MidiBackend {
  const usable = () => {
    const why = problem();
    if (why !== null) throw new Error(why);
  };
  const input = () => (usable(), new midi.Input());
  const output = () => (usable(), new midi.Output());
  return {
    inputNames: () => withPort(input(), portNames),
    outputNames: () => withPort(output(), portNames),
    openInput: (name) => openInput(input(), name),
    openOutput: (name) => openOutput(output(), name),
  };
}

type Listing = Pick<RtMidiInput, 'getPortCount' | 'getPortName' | 'destroy'>;

function portNames(port: Listing): string[] {
  return Array.from({ length: port.getPortCount() }, (_, i) => port.getPortName(i));
}

/** Uses a port object for a listing and frees it at once (each holds an ALSA client until freed). */
function withPort<P extends Listing, T>(port: P, use: (port: P) => T): T {
  try {
    return use(port);
  } finally {
    port.destroy();
  }
}

function indexOf(port: Listing, name: string, side: string): number {
  const index = portNames(port).indexOf(name);
  if (index < 0) throw new Error(`no MIDI ${side} port named "${name}"`);
  return index;
}

/** Opens the port by name; one that cannot be opened is destroyed, not left half made. */
function openNamed(port: Listing & { openPort(index: number): void }, name: string, side: string): void {
  try {
    port.openPort(indexOf(port, name, side));
  } catch (error) {
    port.destroy();
    throw error;
  }
}

function openInput(input: RtMidiInput, name: string): MidiInputPort {
  openNamed(input, name, 'input');
  // SysEx is wanted (device replies are checked); clock and active sensing arrive many times a second
  // and mean nothing here, so RtMidi drops them before they reach JavaScript.
  input.ignoreTypes(false, true, true);
  return {
    name,
    onMessage: (listener) => {
      input.removeAllListeners('message');
      input.on('message', (_deltaTime, message) => listener(message));
    },
    close: () => {
      input.removeAllListeners('message');
      input.destroy();
    },
  };
}

function openOutput(output: RtMidiOutput, name: string): MidiOutputPort {
  openNamed(output, name, 'output');
  return {
    name,
    send: (bytes) => output.sendMessage([...bytes]),
    close: () => output.destroy(),
  };
}
