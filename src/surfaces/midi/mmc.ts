// MIDI Machine Control in, without side effects: a whole SysEx message (reassembled by the raw screen,
// input-guard.ts) read as MMC commands (MMC out: mmc-follow.ts decides, encode.ts writes). A DAW's transport sends them (`F0 7F <device> 06 <commands> F7`),
// so a map can bind Record Strobe, Stop and the rest to recorder actions like any button.
//
// The message's command string may hold several commands (MMC allows it); commands 01–3F are one byte,
// 40–77 are followed by a count and that many data bytes (Locate carries a time code that way). A
// command recdeck knows but the map does not bind (Locate, Chase, …) means nothing here, like a note
// for no control; a command byte MMC does not define, or a count that runs past the end, is garbage.
import { hexByte } from './bytes.js';

/** The transport commands a map can bind: the one-byte MMC commands 01–0A. */
export const MMC_TRANSPORT = {
  stop: 0x01,
  play: 0x02,
  'deferred-play': 0x03,
  'fast-forward': 0x04,
  rewind: 0x05,
  'record-strobe': 0x06,
  'record-exit': 0x07,
  'record-pause': 0x08,
  pause: 0x09,
  eject: 0x0a,
} as const;
export type MmcCommand = keyof typeof MMC_TRANSPORT;
export const MMC_COMMANDS = Object.keys(MMC_TRANSPORT) as [MmcCommand, ...MmcCommand[]];

const TRANSPORT_BY_BYTE: ReadonlyMap<number, MmcCommand> = new Map(Object.entries(MMC_TRANSPORT).map(([name, byte]) => [byte, name as MmcCommand]));

/** The other commands the MMC specification defines: known, never bound (Locate comes with every DAW jump). */
const OTHER_COMMANDS: ReadonlyMap<number, string> = new Map([
  [0x0b, 'chase'],
  [0x0c, 'command error reset'],
  [0x0d, 'MMC reset'],
  [0x40, 'write'],
  [0x41, 'masked write'],
  [0x42, 'read'],
  [0x43, 'update'],
  [0x44, 'locate'],
  [0x45, 'variable play'],
  [0x46, 'search'],
  [0x47, 'shuttle'],
  [0x48, 'step'],
  [0x49, 'assign system master'],
  [0x4a, 'generator command'],
  [0x4b, 'MTC command'],
  [0x4c, 'move'],
]);

/** Universal real-time SysEx (7F), sub-id 06: an MMC command. 7F as the device means every device. */
export const UNIVERSAL_REAL_TIME = 0x7f;
export const MMC_COMMAND_SUB_ID = 0x06;
export const MMC_ALL_DEVICES = 0x7f;
/** Commands from here on carry a count byte and data. */
const FIRST_WITH_DATA = 0x40;
const LAST_WITH_DATA = 0x77;

export type MmcMessage = { ok: true; device: number; commands: MmcCommand[] } | { ok: false; reason: string };

/** A whole SysEx message (F0 … F7, data bytes checked by the screen) as MMC; null when it is not MMC. */
export function mmcFromSysex(bytes: readonly number[]): MmcMessage | null {
  if (bytes[1] !== UNIVERSAL_REAL_TIME || bytes[3] !== MMC_COMMAND_SUB_ID || bytes.length < 5) return null;
  const device = bytes[2] as number;
  const string = bytes.slice(4, -1);
  if (string.length === 0) return { ok: false, reason: `an MMC message to device ${hexByte(device)} with no command` };
  const commands: MmcCommand[] = [];
  for (let i = 0; i < string.length; ) {
    const byte = string[i] as number;
    const transport = TRANSPORT_BY_BYTE.get(byte);
    if (transport === undefined && !OTHER_COMMANDS.has(byte)) return { ok: false, reason: `the unknown MMC command ${hexByte(byte)}` };
    if (byte >= FIRST_WITH_DATA && byte <= LAST_WITH_DATA) {
      const count = string[i + 1];
      if (count === undefined || i + 2 + count > string.length) return { ok: false, reason: `an MMC ${describe(byte)} command whose data runs past the end of the message` };
      i += 2 + count;
      continue;
    }
    if (transport !== undefined) commands.push(transport);
    i += 1;
  }
  return { ok: true, device, commands };
}

/** Whether a message to `device` is for a receiver answering `own` (absent: all-call only). */
export function mmcIsFor(device: number, own: number | undefined): boolean {
  return device === MMC_ALL_DEVICES || device === own;
}

function describe(byte: number): string {
  return `${hexByte(byte)} (${OTHER_COMMANDS.get(byte) ?? 'unknown'})`;
}
