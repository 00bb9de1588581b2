// The shipped profiles and MIDI maps as this build's loader parsed and checked them, so that a start
// does not parse them again. Every `recdeck run` (and `profiles check`) read the same twenty-odd shipped
// YAML files and paid 0.65-0.75 s of CPU for it on this 2-core machine (yaml's parseDocument about 0.5 s
// of it cold, zod 0.1-0.25 s), several times that on a Raspberry Pi (docs/performance.md, "Start-up CPU").
//
// The build writes the results beside the built loader (src/cli/write-shipped-parses.ts, run by `npm run
// build`), each under the sha256 of the text it came from. A result is used only when
// - the file read now lies in the shipped folder and its text hashes to what the result was made from
//   (an edited shipped file, an operator's own file or any other is parsed as before, so a problem is
//   reported exactly as before, at its line and column), and
// - the code that checks it is the code that made the results: the cache names the built files the
//   loader and the schemas are made of and their sha256 together, and is not used at all when they
//   differ (a schema changed and rebuilt by `tsc` alone, without the build's writing step).
// A cache that is missing, unreadable, of another format or damaged is not used either: the files are
// parsed, as before there was one. Nothing here is ever written at run time.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { SHIPPED_PROFILES } from './origin.js';

export const SHIPPED_PARSES_FORMAT = 'recdeck-shipped-parses/1';

/** The cache file: where the built loader is, dist/profiles/ (run from the sources there is none). */
export const SHIPPED_PARSES_FILE = fileURLToPath(new URL('./shipped-parses.json', import.meta.url));

/** The built code's root (dist/), against which the cache names the code it was made by. */
const CODE_ROOT = fileURLToPath(new URL('..', import.meta.url));

const ShippedParsesFile = z.object({
  format: z.literal(SHIPPED_PARSES_FORMAT),
  // Built files only, named inside the code root: a foreign cache makes nothing else be read.
  code: z.object({ files: z.array(z.string().regex(/^(?!.*\.\.)[\w./-]+\.js$/)).min(1), sha256: z.string() }),
  /** By path inside the shipped folder, with / between folders. */
  entries: z.record(z.string(), z.object({ kind: z.string(), sha256: z.string(), value: z.unknown() })),
});
export type ShippedParsesFile = z.output<typeof ShippedParsesFile>;

/** sha256 of a text as UTF-8 (a file read as UTF-8 whose bytes were not valid UTF-8 hashes otherwise, and is parsed). */
export const textSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** sha256 of these code files' bytes together, each preceded by its name; null when one cannot be read. */
export function codeSha256(root: string, files: readonly string[]): string | null {
  const hash = createHash('sha256');
  try {
    for (const file of files) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  } catch {
    return null;
  }
  return hash.digest('hex');
}

export interface ShippedParsesOptions {
  cacheFile: string;
  /** The folder whose files the cache may answer for. */
  shippedFolder: string;
  /** The folder the cache's code files are named in. */
  codeRoot: string;
}

export class ShippedParses {
  /** Read at the first lookup; null: no usable cache (then nothing is looked up in it again). */
  private entries: ShippedParsesFile['entries'] | null | undefined;
  /** Lookups answered from the cache, for tests and the bench. */
  hits = 0;

  constructor(private readonly options: ShippedParsesOptions) {}

  /**
   * The checked value of `file` of this kind ("a profile", "a MIDI map"), when the cache holds it for
   * exactly this text; undefined: parse it. Each answer is a copy of its own, as a fresh parse is.
   */
  lookup(file: string, text: string, kind: string): unknown {
    const key = relative(this.options.shippedFolder, resolve(file));
    if (key === '' || key.startsWith('..') || isAbsolute(key)) return undefined;
    this.entries ??= this.read();
    const entry = this.entries?.[key.split(sep).join('/')];
    if (entry === undefined || entry.kind !== kind || entry.sha256 !== textSha256(text)) return undefined;
    this.hits++;
    return structuredClone(entry.value);
  }

  private read(): ShippedParsesFile['entries'] | null {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.options.cacheFile, 'utf8'));
    } catch {
      return null;
    }
    const parsed = ShippedParsesFile.safeParse(data);
    if (!parsed.success) return null;
    if (codeSha256(this.options.codeRoot, parsed.data.code.files) !== parsed.data.code.sha256) return null;
    return parsed.data.entries;
  }
}

/** The process's one cache, for the shipped folder (see the top of the file). */
export const SHIPPED_PARSES = new ShippedParses({ cacheFile: SHIPPED_PARSES_FILE, shippedFolder: SHIPPED_PROFILES, codeRoot: CODE_ROOT });
