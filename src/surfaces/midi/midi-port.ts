// The MIDI transport the surface and the manager are written against: bytes in, bytes out, port names
// listed, in the spirit of @elgato-stream-deck/core's HIDDevice. It hides which library talks to the
// operating system (rtmidi.ts: @julusian/midi over RtMidi) and is the seam tests put their fake under.

/** A device's input port: every message as the OS delivered it (a long SysEx may come in chunks). */
export interface MidiInputPort {
  readonly name: string;
  /** The one listener for raw messages; the bytes are not checked (see input-guard.ts). */
  onMessage(listener: (bytes: readonly number[]) => void): void;
  close(): void;
}

/** A device's output port. send takes one whole, already checked message. */
export interface MidiOutputPort {
  readonly name: string;
  send(bytes: readonly number[]): void;
  close(): void;
}

/** The machine's MIDI ports. Every call may throw (no ALSA sequencer, a port gone while opening). */
export interface MidiBackend {
  inputNames(): string[];
  outputNames(): string[];
  openInput(name: string): MidiInputPort;
  openOutput(name: string): MidiOutputPort;
}

export type MidiBackendLoader = () => Promise<MidiBackend>;
