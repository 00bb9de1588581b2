// What a Satellite device is, in recdeck's words: its controls, how the client names each one, what
// each asks to be sent, and which profiles it takes.
//
// A device is described either the old way (KEYS_TOTAL keys in rows of KEYS_PER_ROW, one style for all)
// or by a layout manifest (each control with its row, column and style). The protocol says where a
// control is and what it shows, not whether it turns: recdeck takes a manifest control that shows
// nothing (no bitmap, colour or text) as a dial, as Companion's own layouts of the Stream Deck + and
// Studio give their encoders no display, and a control with a bitmap right above a dial as that dial's
// strip cell (the + touch strip). Everything else is a key: with a bitmap, a key with its own display;
// with colour or text only, a lit button; with nothing (old way), a plain button.
import type { ControlDefinition, SurfaceKind } from '../../engine/surface.js';
import type { AddDevice, ColourFormat, StylePreset } from './protocol.js';

/** What a control is on the device, and so what it is sent and what its presses mean. */
export type ControlRole = 'key' | 'lit' | 'plain' | 'dial' | 'strip';

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
  const showsNothing = (style: StylePreset) => style.bitmap === undefined && style.colors === undefined && style.text !== true;
  const dials = entries.filter((entry) => showsNothing(entry.style));
  const dialPlaces = new Set(dials.map((dial) => `${dial.row - 1}/${dial.column}`));
  const isStrip = (entry: (typeof entries)[number]) => entry.style.bitmap !== undefined && dialPlaces.has(`${entry.row}/${entry.column}`);
  let keys = 0;
  let dialCount = 0;
  let strips = 0;
  const controls = entries.map((entry): SatelliteControl => {
    const base = { wire: { CONTROLID: entry.wireId }, row: entry.row, column: entry.column, colours: entry.style.colors ?? null, text: entry.style.text === true };
    const bitmap = entry.style.bitmap === undefined ? null : { width: entry.style.bitmap.w, height: entry.style.bitmap.h };
    if (showsNothing(entry.style)) return { ...base, id: `dial${dialCount++}`, role: 'dial', bitmap: null };
    if (isStrip(entry)) return { ...base, id: `strip${strips++}`, role: 'strip', bitmap };
    return { ...base, id: `key${keys++}`, role: bitmap === null ? 'lit' : 'key', bitmap };
  });
  const byWireName = new Map(controls.map((control) => [(control.wire as { CONTROLID: string }).CONTROLID, control]));
  const keyColumns = new Set(controls.filter((c) => c.role === 'key' || c.role === 'lit').map((c) => c.column)).size;
  return finish(controls, byWireName, keyColumns);
}

function finish(controls: SatelliteControl[], byWireName: Map<string, SatelliteControl>, keysPerRow: number): SatelliteLayout {
  // A dial's strip cell is the one right above it.
  const stripAt = new Map(controls.filter((c) => c.role === 'strip').map((c) => [`${c.row}/${c.column}`, c.id]));
  const definitions = controls.map((control): ControlDefinition => {
    switch (control.role) {
      case 'key':
        return { kind: 'key', id: control.id, row: control.row, column: control.column, pixelSize: control.bitmap as { width: number; height: number } };
      case 'lit':
        return { kind: 'button', id: control.id, feedback: 'led' };
      case 'plain':
        return { kind: 'button', id: control.id, feedback: 'none' };
      case 'strip':
        return { kind: 'lcd', id: control.id, pixelSize: control.bitmap as { width: number; height: number }, touch: true };
      case 'dial': {
        const lcd = stripAt.get(`${control.row - 1}/${control.column}`);
        return { kind: 'encoder', id: control.id, pressable: true, ring: false, ...(lcd === undefined ? {} : { lcd }) };
      }
    }
  });
  const keys = controls.filter((c) => c.role === 'key' || c.role === 'lit' || c.role === 'plain');
  const dials = controls.filter((c) => c.role === 'dial').length;
  const allDrawn = keys.every((c) => c.role === 'key');
  const model = dials === 0 ? `${keys.length}-keys` : `${keys.length}-keys-${dials}-dials`;
  const deck = allDrawn ? STREAM_DECK_SHAPES.find((shape) => shape.keys === keys.length && shape.perRow === keysPerRow && shape.dials === dials) : undefined;
  return { controls, definitions, byWireName, model, standsInFor: deck === undefined ? null : { kind: 'streamdeck', model: deck.model } };
}

/**
 * Stream Deck shapes by their keys, keys a row and dials, with the model id the shipped profiles match
 * (src/surfaces/streamdeck/models.ts names them; adapters do not import each other, so they are
 * written here again, and test/surfaces/satellite/ checks each gets a shipped profile).
 */
const STREAM_DECK_SHAPES = [
  { keys: 6, perRow: 3, dials: 0, model: 'mini' },
  { keys: 15, perRow: 5, dials: 0, model: 'mk2' },
  { keys: 32, perRow: 8, dials: 0, model: 'xl' },
  { keys: 8, perRow: 4, dials: 4, model: 'plus' },
  { keys: 32, perRow: 16, dials: 2, model: 'studio' },
] as const;
