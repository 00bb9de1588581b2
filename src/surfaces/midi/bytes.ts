// How the MIDI codec checks and names bytes, in one place for the decoder, the encoder and the raw
// screen, so that a value is judged and shown the same way in every message about it.

/** An integer within [min, max]. */
export function isInt(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** A value as it was given, for a message saying it is wrong ("missing" when absent). */
export function show(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value) ?? String(value);
}

/** One byte as two upper-case hex digits. */
export function hexByte(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}

/** A message's bytes as hex, a value that is no byte as given. */
export function hex(bytes: readonly number[]): string {
  return bytes.map((b) => (isInt(b, 0, 255) ? hexByte(b) : String(b))).join(' ');
}
