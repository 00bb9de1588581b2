// Raw MIDI is screened before anything reads it. RtMidi hands over what the device sent, and devices
// and cables do send garbage: a SysEx split over several chunks (glued together here, with a size
// limit), a clock byte in the middle of a SysEx, a status byte with no data, a truncated message, a
// data byte above 127. Real-time bytes are dropped (never used here), SysEx is reassembled and only
// checked (the bridge reads none), and malformed messages are reported and dropped. Nothing here throws
// on any input; the surface calls it inside a try/catch all the same.
import { hexByte, isInt } from './bytes.js';

/** What to do with one raw message as RtMidi delivered it. */
export interface RawVerdict {
  /** Pass it on to be decoded: one whole, valid channel message. */
  forward: boolean;
  /** Why (parts of) it were not valid MIDI, for the log. */
  garbage: string[];
  /** A complete, valid SysEx message that arrived with it. */
  sysex: number[] | null;
}

const DEFAULT_MAX_SYSEX = 4096;

/** Lengths of the system common messages, which are valid but never used here. */
const SYSTEM_COMMON_LENGTH: Readonly<Record<number, number>> = { 0xf1: 2, 0xf2: 3, 0xf3: 2, 0xf6: 1 };

export class RawScreen {
  private pending: number[] | null = null;

  constructor(private readonly maxSysexBytes = DEFAULT_MAX_SYSEX) {}

  screen(raw: unknown): RawVerdict {
    if (!Array.isArray(raw) || raw.some((b) => !isInt(b, 0, 255))) return drop('not a list of bytes');
    const bytes = raw as number[];
    const first = bytes[0];
    if (first === undefined) return drop('an empty message');
    // Real-time bytes (clock, active sensing, start/stop) may arrive inside a SysEx and mean nothing here.
    if (first >= 0xf8) return drop();
    if (this.pending !== null) {
      if (first < 0x80) return this.continueSysex(bytes);
      const truncated = `a SysEx message cut off after ${this.pending.length} bytes (no F7)`;
      this.pending = null;
      const verdict = this.fresh(bytes);
      return { ...verdict, garbage: [truncated, ...verdict.garbage] };
    }
    return this.fresh(bytes);
  }

  private fresh(bytes: number[]): RawVerdict {
    const first = bytes[0] as number;
    if (first === 0xf0) {
      if (bytes.length > this.maxSysexBytes) return drop(`a SysEx message longer than ${this.maxSysexBytes} bytes`);
      if (bytes.at(-1) === 0xf7 && bytes.length > 1) return completeSysex(bytes);
      this.pending = [...bytes];
      return drop();
    }
    if (first === 0xf7) return drop('an end of SysEx (F7) without its start');
    if (first < 0x80) return drop('data bytes without a status byte');
    if (first >= 0xf0) {
      const length = SYSTEM_COMMON_LENGTH[first];
      if (length === undefined) return drop(`the undefined status byte ${hexByte(first)}`);
      return length === bytes.length && dataBytes(bytes) ? drop() : drop(`a malformed system message ${hexByte(first)}`);
    }
    const expected = first >= 0xc0 && first <= 0xdf ? 2 : 3;
    if (bytes.length < expected) return drop(`a truncated message (${bytes.length} of ${expected} bytes)`);
    if (bytes.length > expected) return drop(`a message with ${bytes.length - expected} extra bytes`);
    if (!dataBytes(bytes)) return drop('a data byte above 127');
    return { forward: true, garbage: [], sysex: null };
  }

  private continueSysex(bytes: number[]): RawVerdict {
    const pending = this.pending as number[];
    if (pending.length + bytes.length > this.maxSysexBytes) {
      this.pending = null;
      return drop(`a SysEx message longer than ${this.maxSysexBytes} bytes`);
    }
    pending.push(...bytes);
    if (bytes.at(-1) !== 0xf7) return drop();
    this.pending = null;
    return completeSysex(pending);
  }
}

function completeSysex(bytes: number[]): RawVerdict {
  const inner = bytes.slice(1, -1);
  if (inner.some((b) => b > 0x7f)) return drop('a SysEx message with a byte above 127 inside');
  return { forward: false, garbage: [], sysex: bytes };
}

function drop(garbage?: string): RawVerdict {
  return { forward: false, garbage: garbage === undefined ? [] : [garbage], sysex: null };
}

function dataBytes(bytes: readonly number[]): boolean {
  return bytes.slice(1).every((b) => b <= 0x7f);
}
