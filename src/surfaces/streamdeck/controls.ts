// A Stream Deck's controls, as the library describes them (CONTROLS), turned into ours, together with
// the way back: which library index or LCD region each of our control ids stands for.
import type { StreamDeckControlDefinition, StreamDeckEncoderControlDefinition, StreamDeckLcdSegmentControlDefinition } from '@elgato-stream-deck/core';
import type { ControlDefinition, LcdControl } from '../../engine/surface.js';

/** What a control id leads to on the device. */
export type DeckTarget =
  /** A key with its own display. */
  | { kind: 'lcd-button'; keyIndex: number }
  /** A button lit by one RGB LED (the Neo's two touch keys). */
  | { kind: 'rgb-button'; keyIndex: number }
  /** A button with no feedback (pedal). */
  | { kind: 'plain-button'; keyIndex: number }
  | { kind: 'encoder'; encoderIndex: number; ringSteps: number }
  /** One cell of a touch strip that the library draws region by region (Plus). */
  | { kind: 'lcd-region'; lcdIndex: number; x: number; y: number; width: number; height: number }
  /** A whole LCD segment drawn at once (the Neo's info bar). */
  | { kind: 'lcd-whole'; lcdIndex: number };

export interface StripCells {
  cellWidth: number;
  /** Control ids, left to right. */
  cells: readonly string[];
}

export interface DeckLayout {
  controls: readonly ControlDefinition[];
  targets: ReadonlyMap<string, DeckTarget>;
  /** Control id by the library's button index. */
  buttons: ReadonlyMap<number, string>;
  /** Control id by the library's encoder index. */
  encoders: ReadonlyMap<number, string>;
  /** Touch strips split into cells, by LCD segment id. */
  strips: ReadonlyMap<number, StripCells>;
}

type Cell = { control: LcdControl; target: Extract<DeckTarget, { kind: 'lcd-region' }> };

/**
 * Our controls for a deck. Keys are `key<index>` (the Neo's LED touch keys too, keeping the library's
 * numbering), pedals `pedal<index>`, dials `dial<index>`. A touch strip shared by dials is split into one
 * cell per dial, `strip<i>` above dial i; an LCD with no dials under it (Neo) is one control, `info`.
 */
export function deckLayout(modelId: string, definitions: readonly StreamDeckControlDefinition[]): DeckLayout {
  const buttonPrefix = modelId === 'pedal' ? 'pedal' : 'key';
  const encoders = definitions.filter((d): d is StreamDeckEncoderControlDefinition => d.type === 'encoder').sort((a, b) => a.index - b.index);
  const controls: ControlDefinition[] = [];
  const targets = new Map<string, DeckTarget>();
  const buttons = new Map<number, string>();
  const encoderIds = new Map<number, string>();
  const strips = new Map<number, StripCells>();
  const add = (control: ControlDefinition, target: DeckTarget) => {
    controls.push(control);
    targets.set(control.id, target);
  };

  // Cells first: a dial names the cell above it.
  const cellsBySegment = new Map<number, Cell[]>();
  const cellOfEncoder = new Map<number, string>();
  for (const segment of definitions) {
    if (segment.type !== 'lcd-segment' || encoders.length === 0 || !segment.drawRegions) continue;
    const cells = stripCells(segment, encoders.length);
    cellsBySegment.set(segment.id, cells);
    strips.set(segment.id, { cellWidth: cells[0]?.target.width ?? segment.pixelSize.width, cells: cells.map((c) => c.control.id) });
    encoders.forEach((encoder, i) => cellOfEncoder.set(encoder.index, `strip${i}`));
  }

  for (const definition of definitions) {
    switch (definition.type) {
      case 'button': {
        const id = `${buttonPrefix}${definition.index}`;
        buttons.set(definition.index, id);
        if (definition.feedbackType === 'lcd') {
          const { width, height } = definition.pixelSize;
          add({ kind: 'key', id, row: definition.row, column: definition.column, pixelSize: { width, height } }, { kind: 'lcd-button', keyIndex: definition.index });
        } else if (definition.feedbackType === 'rgb') {
          add({ kind: 'button', id, feedback: 'led' }, { kind: 'rgb-button', keyIndex: definition.index });
        } else {
          add({ kind: 'button', id, feedback: 'none' }, { kind: 'plain-button', keyIndex: definition.index });
        }
        break;
      }
      case 'encoder': {
        const id = `dial${definition.index}`;
        encoderIds.set(definition.index, id);
        const lcd = cellOfEncoder.get(definition.index);
        add({ kind: 'encoder', id, pressable: true, ring: definition.ledRingSteps > 0, ...(lcd === undefined ? {} : { lcd }) }, { kind: 'encoder', encoderIndex: definition.index, ringSteps: definition.ledRingSteps });
        break;
      }
      case 'lcd-segment': {
        const cells = cellsBySegment.get(definition.id);
        if (cells) {
          for (const cell of cells) add(cell.control, cell.target);
        } else {
          const { width, height } = definition.pixelSize;
          // The Neo's info bar shows but does not take touches.
          add({ kind: 'lcd', id: definition.id === 0 ? 'info' : `info${definition.id}`, pixelSize: { width, height }, touch: false }, { kind: 'lcd-whole', lcdIndex: definition.id });
        }
        break;
      }
    }
  }
  return { controls, targets, buttons, encoders: encoderIds, strips };
}

/** Equal cells, one per dial: the strip's segments line up with the dials (Plus 4 x 200 px, Plus XL 6 x 200 px). */
function stripCells(segment: StreamDeckLcdSegmentControlDefinition, count: number): Cell[] {
  const width = Math.floor(segment.pixelSize.width / count);
  const height = segment.pixelSize.height;
  return Array.from({ length: count }, (_, i) => ({
    control: { kind: 'lcd' as const, id: `strip${i}`, pixelSize: { width, height }, touch: true },
    target: { kind: 'lcd-region' as const, lcdIndex: segment.id, x: i * width, y: 0, width, height },
  }));
}

/** The strip cell under a touch at x, or undefined when that segment is not split into cells. */
export function cellAt(layout: DeckLayout, lcdIndex: number, x: number): string | undefined {
  const strip = layout.strips.get(lcdIndex);
  if (!strip || strip.cells.length === 0) return undefined;
  return strip.cells[Math.min(strip.cells.length - 1, Math.max(0, Math.floor(x / strip.cellWidth)))];
}
