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
// Each answer is a copy of its own, as a fresh parse is, and what is kept is a copy nobody else holds.
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

  /** A copy of what this text checked to as this kind before; undefined: parse it. */
  lookup(text: string, kind: { name: string; schema: z.ZodType }): unknown {
    const key = keyOf(text, kind.name);
    const kept = this.kept.get(key);
    if (kept === undefined || kept.schema !== kind.schema) return undefined;
    this.kept.delete(key);
    this.kept.set(key, kept);
    this.hits++;
    return structuredClone(kept.value);
  }

  /** Keeps a copy of what this text checked to; a value that a copy would not reproduce (not plain data) is not kept. */
  keep(text: string, kind: { name: string; schema: z.ZodType }, value: unknown): void {
    if (text.length > this.limits.maxChars / 4 || !isPlainData(value)) return;
    const key = keyOf(text, kind.name);
    this.forget(key);
    this.kept.set(key, { schema: kind.schema, value: structuredClone(value), chars: text.length });
    this.chars += text.length;
    while (this.kept.size > this.limits.maxTexts || this.chars > this.limits.maxChars) {
      this.forget(this.kept.keys().next().value as string);
    }
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.chars -= kept.chars;
  }
}

const keyOf = (text: string, kind: string) => `${kind}\0${text}`;

/** The process's one record: a process reads tens of files (a profile is 1-10 kB), a test process hundreds; a few MB at most held. */
export const CHECKED_TEXTS = new CheckedTexts({ maxTexts: 256, maxChars: 1024 * 1024 });
