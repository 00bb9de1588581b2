// Makes the cache of the shipped files' parses (shipped-parses.ts) at build: each file parsed and checked
// by the loader now (never answered from an old cache), kept under the sha256 of its text, with the built
// code that did it named and hashed. Run by `npm run build` through src/cli/write-shipped-parses.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type * as z from 'zod';
import { parseYamlText, type YamlFileKind } from './load.js';
import { codeSha256, SHIPPED_PARSES_FORMAT, textSha256, type ShippedParsesFile } from './shipped-parses.js';

export interface ShippedFolder {
  /** Inside the shipped folder, '' for the folder itself; the *.yaml and *.yml files directly inside. */
  folder: string;
  kind: YamlFileKind<z.ZodType>;
}

export interface MadeShippedParses {
  cache: ShippedParsesFile;
  /** Files left out, each with why (a file that does not load is reported at start as before). */
  left: string[];
}

/**
 * The cache for the files of `folders` inside `shippedFolder`, parsed now, and made by the code of the
 * built files `codeEntries` (inside `codeRoot`) and every file they import, named in it.
 */
export function makeShippedParses(options: { shippedFolder: string; folders: readonly ShippedFolder[]; codeRoot: string; codeEntries: readonly string[] }): MadeShippedParses {
  const entries: ShippedParsesFile['entries'] = {};
  const left: string[] = [];
  for (const { folder, kind } of options.folders) {
    const names = readdirSync(join(options.shippedFolder, folder), { withFileTypes: true })
      .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
      .map((e) => e.name)
      .sort();
    for (const name of names) {
      const key = folder === '' ? name : `${folder}/${name}`;
      const file = join(options.shippedFolder, folder, name);
      const text = readFileSync(file, 'utf8');
      const result = parseYamlText(text, file, kind);
      if (!result.ok) left.push(`${key}: it does not load (${result.problems.length} problem(s))`);
      // The value must come back from JSON as it is (no undefined, Map, Date, NaN…): else it is parsed at start.
      else if (!isDeepStrictEqual(JSON.parse(JSON.stringify(result.value)) as unknown, result.value)) left.push(`${key}: its checked value does not survive JSON`);
      else entries[key] = { kind: kind.name, sha256: textSha256(text), value: result.value };
    }
  }
  const files = codeGraph(options.codeRoot, options.codeEntries);
  const sha256 = codeSha256(options.codeRoot, files);
  if (sha256 === null) throw new Error(`cannot read the code files under ${options.codeRoot}`);
  return { cache: { format: SHIPPED_PARSES_FORMAT, code: { files, sha256 }, entries }, left };
}

/** The entries and every file they import by a relative path (tsc's output keeps each import's specifier), sorted. */
function codeGraph(root: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      visit(relative(root, resolve(root, dirname(file), match[1] ?? '')).split(sep).join('/'));
    }
  };
  for (const entry of entries) visit(entry);
  return [...seen].sort();
}
