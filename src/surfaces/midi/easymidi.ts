// The part of easymidi the MIDI surface uses, as types, and the lazy loader. easymidi is loaded only when
// MIDI is started (a dynamic import): its native backend (@julusian/midi over RtMidi/ALSA) must never
// stop the bridge from starting, and tests hand in easymidi running over a fake backend instead.

/** easymidi's Input: an EventEmitter of parsed messages ('noteon', 'cc', 'pitch', 'sysex', 'message', …). */
export interface EasymidiInput {
  on(event: string, listener: (message: unknown) => void): unknown;
  removeAllListeners(event?: string): unknown;
  close(): void;
}

/** easymidi's Output. send builds the bytes from the arguments without checking them (see encode.ts). */
export interface EasymidiOutput {
  send(type: string, args: unknown): void;
  close(): void;
}

export interface EasymidiApi {
  Input: new (name: string) => EasymidiInput;
  Output: new (name: string) => EasymidiOutput;
  getInputs(): string[];
  getOutputs(): string[];
}

export type EasymidiLoader = () => Promise<EasymidiApi>;

/** Imports easymidi (and with it the native MIDI backend); throws what loading threw. */
export const loadEasymidi: EasymidiLoader = async () => asEasymidiApi(await import('easymidi'));

/** A loaded module as EasymidiApi, looking through the CommonJS default export. */
export function asEasymidiApi(loaded: unknown): EasymidiApi {
  const candidates = [loaded, (loaded as { default?: unknown } | null)?.default];
  for (const candidate of candidates) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const api = candidate as Partial<Record<keyof EasymidiApi, unknown>>;
    if (typeof api.Input === 'function' && typeof api.Output === 'function' && typeof api.getInputs === 'function' && typeof api.getOutputs === 'function') {
      return candidate as EasymidiApi;
    }
  }
  throw new Error('the easymidi module does not have Input, Output, getInputs and getOutputs');
}

/** easymidi's send(type, args) for a checked whole message (bytes from encode.ts). */
export function easymidiCall(bytes: readonly number[]): [string, unknown] {
  const [status = 0, first = 0, second = 0] = bytes;
  if (status === 0xf0) return ['sysex', [...bytes]];
  const channel = status & 0x0f;
  switch (status & 0xf0) {
    case 0x80:
      return ['noteoff', { note: first, velocity: second, channel }];
    case 0x90:
      return ['noteon', { note: first, velocity: second, channel }];
    case 0xa0:
      return ['poly aftertouch', { note: first, pressure: second, channel }];
    case 0xb0:
      return ['cc', { controller: first, value: second, channel }];
    case 0xc0:
      return ['program', { number: first, channel }];
    case 0xd0:
      return ['channel aftertouch', { pressure: first, channel }];
    case 0xe0:
      return ['pitch', { value: first + second * 128, channel }];
    default:
      throw new Error(`no easymidi message for status byte ${status}`);
  }
}
