// Text that must be read whole (a dialog's question, a failure's reason) poured into one or more equal
// boxes in reading order: as large as fits, never below a legible size; what does not fit at that size
// goes on in pages. Words are kept whole unless one alone is longer than a line.
import { measureText, type FaceName } from '../font.js';
import { Lru } from '../raster/lru.js';

/** Line height as a share of the font size. */
export const LINE_HEIGHT = 1.15;

/**
 * The smallest text a key shows for reading: 11 px on a 72 px key (capitals 8 px tall), growing with the
 * key. Smaller text is not read at arm's length, nor on a phone's deck; at this size a line of a small
 * key still holds a long word ("Synchronous") whole.
 */
export function legibleTextSize(size: { width: number; height: number }): number {
  return Math.max(11, Math.floor(Math.min(size.width, size.height) * 0.155));
}

/** Where a word longer than a line is best split: after one of these, when one falls in its second half. */
const BREAK_AFTER = /[/\\\-_.:,;]/;

/** Greedy word wrap at one size; explicit newlines are kept, and a word longer than a line is split (split says so). */
export function wrapWords(text: string, face: FaceName, size: number, maxWidth: number): { lines: string[]; split: boolean } {
  const fits = (candidate: string) => measureText(candidate, face, size) <= maxWidth;
  const lines: string[] = [];
  let split = false;
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter((w) => w !== '')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = word;
      while (!fits(line)) {
        split = true;
        const [head, rest] = splitWord(line, fits);
        lines.push(head);
        line = rest;
      }
    }
    if (line !== '') lines.push(line);
  }
  return { lines, split };
}

/** The longest head of a word that fits (at least one character), preferring a split after a separator. */
function splitWord(word: string, fits: (text: string) => boolean): [string, string] {
  const characters = Array.from(word);
  let length = 1;
  while (length < characters.length && fits(characters.slice(0, length + 1).join(''))) length++;
  for (let at = length; at > length / 2; at--) {
    if (BREAK_AFTER.test(characters[at - 1] as string) && at < characters.length) {
      length = at;
      break;
    }
  }
  return [characters.slice(0, length).join(''), characters.slice(length).join('')];
}

export interface FlowedText {
  /** px, one size for all of it. */
  size: number;
  /** Lines each box holds. */
  linesPerBox: number;
  /** pages[p][b]: the lines of box b on page p (empty boxes when the text ends early). */
  pages: string[][][];
}

export interface FlowOptions {
  face: FaceName;
  /** The room for text in one box. */
  box: { width: number; height: number };
  boxes: number;
  maxSize: number;
  minSize: number;
  /** When it pages, the last line of each page's last box is left free for a counter ("1/3"). */
  counterRow: boolean;
}

/** Layouts are asked for at every redraw of a key showing them; wrapping at each size costs measuring. */
const flowed = new Lru<FlowedText>(128, Number.POSITIVE_INFINITY, () => 0);

/**
 * The text poured into the boxes in order, each box a run of whole lines: the largest size from maxSize
 * down to minSize at which all of it fits; when even minSize does not, at minSize in pages of all the
 * boxes. An empty text gives one page of empty boxes.
 */
export function flowText(text: string, options: FlowOptions): FlowedText {
  const key = JSON.stringify([text, options]);
  const cached = flowed.get(key);
  if (cached !== undefined) return cached;
  const made = pour(text.replace(/[ \t]+/g, ' ').trim(), options);
  flowed.set(key, made);
  return made;
}

function pour(text: string, { face, box, boxes, maxSize, minSize, counterRow }: FlowOptions): FlowedText {
  const count = Math.max(1, boxes);
  const linesPerBoxAt = (size: number) => Math.max(1, Math.floor(box.height / (size * LINE_HEIGHT)));
  // The largest size at which it all fits with every word whole.
  for (let size = Math.max(minSize, Math.floor(maxSize)); size > minSize; size--) {
    const { lines, split } = wrapWords(text, face, size, box.width);
    if (!split && lines.length <= count * linesPerBoxAt(size)) return paged(lines, size, linesPerBoxAt(size), count, false);
  }
  // Else the legible size, in pages when it is more than the boxes hold.
  return paged(wrapWords(text, face, minSize, box.width).lines, minSize, linesPerBoxAt(minSize), count, counterRow);
}

function paged(lines: readonly string[], size: number, perBox: number, count: number, counterRow: boolean): FlowedText {
  const whole = count * perBox;
  const perPage = lines.length <= whole ? whole : Math.max(1, whole - (counterRow ? 1 : 0));
  const pages: string[][][] = [];
  for (let start = 0; start < Math.max(1, lines.length); start += perPage) {
    const onPage = lines.slice(start, start + perPage);
    pages.push(Array.from({ length: count }, (_, b) => onPage.slice(b * perBox, (b + 1) * perBox)));
  }
  return { size, linesPerBox: perBox, pages };
}
