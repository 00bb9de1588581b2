// What a YAML file's text checked to, kept per process, so that the same text is not parsed and checked
// again (yaml's parseDocument and the zod schema: 30-120 ms a profile on this 2-core machine, warm).
// The same text is read again and again in one process: the profiles API lists and copies files, the
// editor checks a text at save and the watcher reloads it just after, and a test process reads the
// shipped profiles from many test files, and copies of them from temporary folders. A shipped file is
// answered from the build's parses first (shipped-parses.ts); this is for every other text.
//
// Only what a text checked to is kept, never where it was read: a value is a function of the text and
// the kind's schema alone (load.ts: parseYamlText uses the file's name only to name it in problems). A
// text with problems is not kept at all: it is parsed each time, so its problems name the file they
// came from, at their line and column, as without this. An edited file is another text: parsed anew.
//
// This is the process's one record of checked values (issue 31: each piece of state has one owner).
// What is kept is a copy made at keep and frozen whole. A caller that may change its answer (the
// profiles API, the editor, the MIDI maps' loader) gets a copy of its own, as a fresh parse is; a
// reader that only reads (the profile watcher, parsed-profiles.ts) is handed the kept value itself, so
// a bridge holds its profiles once, not once here and again in a record of its own.
import type * as z from 'zod';
import { isPlainData } from '../api/plain-data.js';

export interface CheckedTextsLimits {
  /** Texts kept; past it the longest unused goes. */
  maxTexts: number;
  /** Characters of the kept texts together (a text longer than a quarter of it is not kept). */
  maxChars: number;
}

interface Kept {
  /** The schema it was checked by (two kinds with one name are still two). */
  schema: z.ZodType;
  /** Frozen whole: it is shared (see `shared`). */
  value: unknown;
  chars: number;
}

export class CheckedTexts {
  /** By kind name and text, in order of last use (a Map keeps insertion order: a use moves it to the end). */
  private readonly kept = new Map<string, Kept>();
  private chars = 0;
  /** Lookups answered, for tests. */
  hits = 0;

  constructor(private readonly limits: CheckedTextsLimits) {}

  /** A copy of what this text checked to as this kind before, to change at will; undefined: parse it. */
  lookup(text: string, kind: { name: string; schema: z.ZodType }): unknown {
    const kept = this.used(text, kind);
    return kept === undefined ? undefined : structuredClone(kept);
  }

  /** What this text checked to as this kind before, the kept value itself, frozen whole (never copied); undefined: parse it. */
  shared(text: string, kind: { name: string; schema: z.ZodType }): unknown {
    return this.used(text, kind);
  }

  /**
   * Keeps a copy of what this text checked to, frozen whole, and returns it (what `shared` will answer);
   * a value that a copy would not reproduce (not plain data), or a text over a quarter of the bound, is
   * not kept: undefined.
   */
  keep(text: string, kind: { name: string; schema: z.ZodType }, value: unknown): unknown {
    if (text.length > this.limits.maxChars / 4 || !isPlainData(value)) return undefined;
    const key = keyOf(text, kind.name);
    this.forget(key);
    const kept = deepFrozen(structuredClone(value));
    this.kept.set(key, { schema: kind.schema, value: kept, chars: text.length });
    this.chars += text.length;
    while (this.kept.size > this.limits.maxTexts || this.chars > this.limits.maxChars) {
      this.forget(this.kept.keys().next().value as string);
    }
    return kept;
  }

  /** The kept value for this text and kind, now the most recently used; undefined when none. */
  private used(text: string, kind: { name: string; schema: z.ZodType }): unknown {
    const key = keyOf(text, kind.name);
    const kept = this.kept.get(key);
    if (kept === undefined || kept.schema !== kind.schema) return undefined;
    this.kept.delete(key);
    this.kept.set(key, kept);
    this.hits++;
    return kept.value;
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.chars -= kept.chars;
  }
}

const keyOf = (text: string, kind: string) => `${kind}\0${text}`;

/** The value, every object in it frozen: a holder that tried to change a shared value would throw, not change it for the others. */
export function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFrozen(inner);
  }
  return value;
}

/** The process's one record: a process reads tens of files (a profile is 1-10 kB), a test process hundreds; a few MB at most held. */
export const CHECKED_TEXTS = new CheckedTexts({ maxTexts: 256, maxChars: 1024 * 1024 });
