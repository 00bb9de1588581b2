// What a Satellite device is, in recdeck's words: its controls, how the client names each one, what
// each asks to be sent, and which profiles it takes.
//
// A device is described either the old way (KEYS_TOTAL keys in rows of KEYS_PER_ROW, one style for all)
// or by a layout manifest (each control with its row, column and style). The protocol says where a
// control is and what it shows, not whether it turns, so recdeck reads the manifest the way Companion
// Satellite writes it for the decks it drives (learnt from its Stream Deck plugin: keys with a bitmap of
// the key size, LCD cells with a bitmap of another size, buttons and encoders with colours or nothing):
// - keys: controls with a bitmap of the size most controls have;
// - a control with a bitmap of another size is a display: a strip cell when a control without a bitmap
//   is right below it (the + touch strip over its dials), else a display of its own (the Neo's info bar);
// - a control without a bitmap is a dial when a strip cell is right above it, or when it stands in a
//   column with no key beside keys (the Studio's rings at either end); else a button, lit when it asked
//   for colour or text, plain otherwise (a pedal: a device with no keys at all has only buttons).
// Buttons, keys and lit ones alike, are numbered left to right, top to bottom, as the Stream Deck
// library numbers them, so that a deck of a known shape gets the control ids of its shipped profile.
import type { ControlDefinition, SurfaceKind } from '../../engine/surface.js';
import type { AddDevice, ColourFormat, StylePreset } from './protocol.js';

/** What a control is on the device, and so what it is sent and what its presses mean. */
export type ControlRole = 'key' | 'lit' | 'plain' | 'dial' | 'strip' | 'display';

export interface SatelliteControl {
  /** recdeck's id: key0…, dial0…, strip0…. */
  id: string;
  /** How KEY-STATE names it: `KEY=<index>` (old way) or `CONTROLID=<id>` (manifest). */
  wire: { KEY: number } | { CONTROLID: string };
  row: number;
  column: number;
  role: ControlRole;
  /** The bitmap it asked for, if any. */
  bitmap: { width: number; height: number } | null;
  colours: ColourFormat | null;
  text: boolean;
  /** It asked for the text's style (TEXT_STYLE): it is sent FONT_SIZE with its text. */
  textStyle: boolean;
}

export interface SatelliteLayout {
  controls: readonly SatelliteControl[];
  definitions: readonly ControlDefinition[];
  /** recdeck control id by the client's name for it (the KEY index as text, `row/column`, or the CONTROLID). */
  byWireName: ReadonlyMap<string, SatelliteControl>;
  /** Its own model, by shape: `15-keys`, `8-keys-4-dials`; a profile of kind satellite matches it. */
  model: string;
  /** The Stream Deck it has the shape of, whose shipped profile it gets when no satellite profile fits. */
  standsInFor: { kind: SurfaceKind; model: string } | null;
}

/** A device asking for more controls than this (rows × columns of the old way included) is refused by the schema; this is the layout's own check. */
export function layoutOf(message: AddDevice): SatelliteLayout | { problem: string } {
  return message.LAYOUT_MANIFEST !== undefined ? manifestLayout(message.LAYOUT_MANIFEST) : gridLayout(message);
}

function gridLayout(message: AddDevice): SatelliteLayout | { problem: string } {
  const total = message.KEYS_TOTAL as number;
  const perRow = message.KEYS_PER_ROW ?? Math.min(total, 8);
  if (perRow > total) return { problem: `KEYS_PER_ROW ${perRow} is more than KEYS_TOTAL ${total}` };
  const side = message.BITMAPS ?? null;
  const colours = message.COLORS ?? null;
  const text = message.TEXT ?? false;
  const textStyle = message.TEXT_STYLE ?? false;
  const role: ControlRole = side !== null ? 'key' : colours !== null || text ? 'lit' : 'plain';
  const controls = Array.from({ length: total }, (_, index): SatelliteControl => ({
    id: `key${index}`,
    wire: { KEY: index },
    row: Math.floor(index / perRow),
    column: index % perRow,
    role,
    bitmap: side === null ? null : { width: side, height: side },
    colours,
    text,
    textStyle,
  }));
  const byWireName = new Map<string, SatelliteControl>();
  for (const control of controls) {
    byWireName.set(String((control.wire as { KEY: number }).KEY), control);
    byWireName.set(`${control.row}/${control.column}`, control);
  }
  return finish(controls, byWireName, perRow);
}

function manifestLayout(manifest: NonNullable<AddDevice['LAYOUT_MANIFEST']>): SatelliteLayout {
  const styleOf = (preset: string | undefined): StylePreset => manifest.stylePresets[preset ?? 'default'] ?? manifest.stylePresets.default;
  const entries = Object.entries(manifest.controls)
    .map(([wireId, control]) => ({ wireId, row: control.row, column: control.column, style: styleOf(control.stylePreset) }))
    .sort((a, b) => a.row - b.row || a.column - b.column);
  type Entry = (typeof entries)[number];
  const sizeOf = (entry: Entry) => (entry.style.bitmap === undefined ? null : `${entry.style.bitmap.w}x${entry.style.bitmap.h}`);
  // The key size: the bitmap size most controls have (the first such, row by row, on a tie).
  const counts = new Map<string, number>();
  for (const entry of entries) {
    const size = sizeOf(entry);
    if (size !== null) counts.set(size, (counts.get(size) ?? 0) + 1);
  }
  const keySize = [...counts].reduce<[string, number] | null>((best, next) => (best === null || next[1] > best[1] ? next : best), null)?.[0] ?? null;
  const at = new Map(entries.map((entry) => [`${entry.row}/${entry.column}`, entry]));
  const isKey = (entry: Entry | undefined) => entry !== undefined && sizeOf(entry) !== null && sizeOf(entry) === keySize;
  const isDisplay = (entry: Entry | undefined) => entry !== undefined && sizeOf(entry) !== null && sizeOf(entry) !== keySize;
  const keyColumns = new Set(entries.filter(isKey).map((entry) => entry.column));
  const roleOf = (entry: Entry): ControlRole => {
    if (isKey(entry)) return 'key';
    if (isDisplay(entry)) {
      const below = at.get(`${entry.row + 1}/${entry.column}`);
      return below !== undefined && sizeOf(below) === null ? 'strip' : 'display';
    }
    if (isDisplay(at.get(`${entry.row - 1}/${entry.column}`))) return 'dial';
    if (keyColumns.size > 0 && !keyColumns.has(entry.column)) return 'dial';
    return entry.style.colors !== undefined || entry.style.text === true ? 'lit' : 'plain';
  };
  const roles = entries.map((entry) => ({ entry, role: roleOf(entry) }));
  const dialIds = new Map<string, string>();
  roles.filter((r) => r.role === 'dial').forEach((r, i) => dialIds.set(`${r.entry.row}/${r.entry.column}`, `dial${i}`));
  let buttons = 0;
  let displays = 0;
  const controls = roles.map(({ entry, role }): SatelliteControl => {
    const place = `${entry.row}/${entry.column}`;
    const base = { wire: { CONTROLID: entry.wireId }, row: entry.row, column: entry.column, colours: entry.style.colors ?? null, text: entry.style.text === true, textStyle: entry.style.textStyle === true };
    const bitmap = entry.style.bitmap === undefined ? null : { width: entry.style.bitmap.w, height: entry.style.bitmap.h };
    switch (role) {
      case 'dial':
        return { ...base, id: dialIds.get(place) as string, role, bitmap: null };
      case 'strip':
        // Named after the dial below it, as the Stream Deck adapter names the + strip's cells.
        return { ...base, id: `strip${(dialIds.get(`${entry.row + 1}/${entry.column}`) as string).slice('dial'.length)}`, role, bitmap };
      case 'display':
        return { ...base, id: displays++ === 0 ? 'info' : `info${displays - 1}`, role, bitmap };
      default:
        return { ...base, id: `key${buttons++}`, role, bitmap };
    }
  });
  const byWireName = new Map(controls.map((control) => [(control.wire as { CONTROLID: string }).CONTROLID, control]));
  return finish(controls, byWireName, keyColumns.size);
}

function finish(controls: SatelliteControl[], byWireName: Map<string, SatelliteControl>, keysPerRow: number): SatelliteLayout {
  const count = (role: ControlRole) => controls.filter((c) => c.role === role).length;
  const shape: Shape = { keys: count('key'), perRow: count('key') === 0 ? 0 : keysPerRow, lit: count('lit'), plain: count('plain'), dials: count('dial'), strips: count('strip'), displays: count('display') };
  const deck = STREAM_DECK_SHAPES.find((known) => (Object.keys(shape) as Array<keyof Shape>).every((field) => (known[field] ?? 0) === shape[field]));
  // The pedal's buttons are pedal0… in its shipped profile, as the Stream Deck adapter names them.
  const named = deck?.model === 'pedal' ? renamed(controls, byWireName, 'key', 'pedal') : { controls, byWireName };
  const stripOf = new Map(named.controls.filter((c) => c.role === 'strip').map((c) => [`${c.row}/${c.column}`, c.id]));
  const definitions = named.controls.map((control): ControlDefinition => {
    switch (control.role) {
      case 'key':
        return { kind: 'key', id: control.id, row: control.row, column: control.column, pixelSize: control.bitmap as { width: number; height: number } };
      case 'lit':
        return { kind: 'button', id: control.id, feedback: 'led' };
      case 'plain':
        return { kind: 'button', id: control.id, feedback: 'none' };
      case 'strip':
        return { kind: 'lcd', id: control.id, pixelSize: control.bitmap as { width: number; height: number }, touch: true };
      case 'display':
        return { kind: 'lcd', id: control.id, pixelSize: control.bitmap as { width: number; height: number }, touch: false };
      case 'dial': {
        const lcd = stripOf.get(`${control.row - 1}/${control.column}`);
        return { kind: 'encoder', id: control.id, pressable: true, ring: false, ...(lcd === undefined ? {} : { lcd }) };
      }
    }
  });
  const buttons = shape.keys + shape.lit + shape.plain;
  const model = shape.dials === 0 ? `${buttons}-keys` : `${buttons}-keys-${shape.dials}-dials`;
  return { controls: named.controls, definitions, byWireName: named.byWireName, model, standsInFor: deck === undefined ? null : { kind: 'streamdeck', model: deck.model } };
}

function renamed(controls: SatelliteControl[], byWireName: Map<string, SatelliteControl>, from: string, to: string) {
  const map = new Map(controls.map((c) => [c, c.id.startsWith(from) ? { ...c, id: `${to}${c.id.slice(from.length)}` } : c]));
  return { controls: controls.map((c) => map.get(c) as SatelliteControl), byWireName: new Map([...byWireName].map(([name, c]) => [name, map.get(c) as SatelliteControl])) };
}

/** How many controls of each kind a device has, and its keys a row: what a Stream Deck shape is known by. */
interface Shape {
  keys: number;
  perRow: number;
  lit: number;
  plain: number;
  dials: number;
  strips: number;
  displays: number;
}

/**
 * Stream Deck shapes by their keys, keys a row, lit and plain buttons, dials, strip cells and displays
 * (a count not given is 0), with the model id the shipped profiles match
 * (src/surfaces/streamdeck/models.ts names them; adapters do not import each other, so they are
 * written here again, and test/surfaces/satellite/ checks each gets a shipped profile).
 */
const STREAM_DECK_SHAPES: ReadonlyArray<Partial<Shape> & { model: string }> = [
  { keys: 6, perRow: 3, model: 'mini' },
  { keys: 15, perRow: 5, model: 'mk2' },
  { keys: 32, perRow: 8, model: 'xl' },
  { keys: 8, perRow: 4, dials: 4, strips: 4, model: 'plus' },
  // 36 keys in rows of 9 over a strip nine keys wide, six dials under it (columns 0, 2, 3, 5, 6, 8): its
  // Satellite plugin cuts the strip into six cells, one above each dial, as the USB adapter does.
  { keys: 36, perRow: 9, dials: 6, strips: 6, model: 'plus-xl' },
  { keys: 32, perRow: 16, dials: 2, model: 'studio' },
  { keys: 8, perRow: 4, lit: 2, displays: 1, model: 'neo' },
  { plain: 3, model: 'pedal' },
];
