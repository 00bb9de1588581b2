// Reads one profile file (or another YAML file recdeck reads, such as the bus's facility file): YAML
// text in, a validated value or a list of problems out. Each problem points at the line and column of
// the offending node and says, in words, what was expected and what was given, because the person
// reading it is editing a YAML file, not the zod schema.
import { readFile } from 'node:fs/promises';
import type { YAMLError } from 'yaml';
import type * as z from 'zod';
import { messageOf } from '../api/errors.js';
import { CHECKED_TEXTS, deepFrozen, type CheckedTexts } from './checked-texts.js';
import { explainIssue } from './explain.js';
import { formatPath, offsetOf, position } from './locate.js';
import { profileOrigin } from './origin.js';
import { Profile, type LoadedProfile } from './schema.js';
import { SHIPPED_PARSES, type ShippedParses } from './shipped-parses.js';
import { yamlLibrary } from './yaml-library.js';

export interface ProfileProblem {
  file: string;
  /** 1-based; null when the problem is not about one place in the file (unreadable, empty). */
  line: number | null;
  column: number | null;
  /** Where in the profile, like `pages[0].controls.key3.press.action`; empty for the whole file. */
  path: string;
  message: string;
}

export type ProfileResult = { ok: true; loaded: LoadedProfile } | { ok: false; problems: ProfileProblem[] };

/** `file:line:column: path: message`, leaving out the parts that are not known. */
export function formatProfileError(problem: ProfileProblem): string {
  let where = problem.file;
  if (problem.line !== null) where += `:${problem.line}`;
  if (problem.line !== null && problem.column !== null) where += `:${problem.column}`;
  return [where, problem.path, problem.message].filter((part) => part !== '').join(': ');
}

export async function loadProfileFile(file: string): Promise<ProfileResult> {
  const result = await loadYamlFile(file, PROFILE_FILE);
  return result.ok ? { ok: true, loaded: { profile: result.value, file, origin: profileOrigin(file) } } : result;
}

export function parseProfile(text: string, file: string): ProfileResult {
  const result = parseYamlFile(text, file, PROFILE_FILE);
  return result.ok ? { ok: true, loaded: { profile: result.value, file, origin: profileOrigin(file) } } : result;
}

/** A kind of YAML file recdeck reads: its schema, and what it must hold, in words. */
export interface YamlFileKind<S extends z.ZodType> {
  schema: S;
  /** "a profile", "a facility file". */
  name: string;
  /** What the mapping holds at least: "name, match and pages". */
  needs: string;
}

export const PROFILE_FILE: YamlFileKind<typeof Profile> = { schema: Profile, name: 'a profile', needs: 'name, match and pages' };

export type YamlFileResult<T> = { ok: true; value: T } | { ok: false; problems: ProfileProblem[] };

/** Reads and checks a YAML file of some kind: its value, or every problem located at file:line:column. */
export async function loadYamlFile<S extends z.ZodType>(file: string, kind: YamlFileKind<S>): Promise<YamlFileResult<z.output<S>>> {
  const read = await readYamlText(file);
  return read.ok ? parseYamlFile(read.text, file, kind) : read;
}

/** A YAML file's text, or the problem that it cannot be read (what loadYamlFile reports for it). */
export async function readYamlText(file: string): Promise<{ ok: true; text: string } | { ok: false; problems: ProfileProblem[] }> {
  try {
    return { ok: true, text: await readFile(file, 'utf8') };
  } catch (error) {
    return { ok: false, problems: [{ file, line: null, column: null, path: '', message: `cannot read the file: ${readFailure(error)}` }] };
  }
}

/**
 * The file's value, or its problems. A shipped file whose text is byte for byte what the build parsed is
 * answered with what this same code made of it then (`parses`, shipped-parses.ts); a text that checked
 * before in this process, wherever it was read, with what it checked to then (`checked`,
 * checked-texts.ts); tests give their own of each. Any other text, a bad one included, is parsed and
 * checked now. Every answer is a copy of its own.
 */
export function parseYamlFile<S extends z.ZodType>(
  text: string,
  file: string,
  kind: YamlFileKind<S>,
  parses: ShippedParses = SHIPPED_PARSES,
  checked: CheckedTexts = CHECKED_TEXTS,
): YamlFileResult<z.output<S>> {
  const shipped = parses.lookup(file, text, kind.name);
  if (shipped !== undefined) return { ok: true, value: shipped as z.output<S> };
  const before = checked.lookup(text, kind);
  if (before !== undefined) return { ok: true, value: before as z.output<S> };
  const result = parseYamlText(text, file, kind);
  if (result.ok) checked.keep(text, kind, result.value);
  return result;
}

/**
 * The file's value as `checked` keeps it, shared and frozen whole, for a reader that never changes it
 * (the profile watcher, parsed-profiles.ts); or its problems, parsed now and naming this file. The
 * record is asked first, so a text it holds is answered with the very value it holds; a text it does
 * not hold is answered from the build's parses or parsed, then kept. A value the record would not keep
 * (a text over its bound) is frozen all the same, and not shared.
 */
export function sharedYamlFile<S extends z.ZodType>(
  text: string,
  file: string,
  kind: YamlFileKind<S>,
  parses: ShippedParses = SHIPPED_PARSES,
  checked: CheckedTexts = CHECKED_TEXTS,
): YamlFileResult<z.output<S>> {
  const held = checked.shared(text, kind);
  if (held !== undefined) return { ok: true, value: held as z.output<S> };
  const shipped = parses.lookup(file, text, kind.name);
  const result: YamlFileResult<z.output<S>> = shipped !== undefined ? { ok: true, value: shipped as z.output<S> } : parseYamlText(text, file, kind);
  if (!result.ok) return result;
  const kept = checked.keep(text, kind, result.value);
  return { ok: true, value: kept !== undefined ? (kept as z.output<S>) : deepFrozen(result.value) };
}

/** The file's text parsed and checked now, never answered from the shipped parses (their builder uses it). */
export function parseYamlText<S extends z.ZodType>(text: string, file: string, kind: YamlFileKind<S>): YamlFileResult<z.output<S>> {
  const { LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  // prettyErrors off: its messages quote the surrounding source, which may hold things not meant for logs.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined) => position(lineCounter, offset);
  if (doc.errors.length > 0) {
    return { ok: false, problems: doc.errors.map((error) => ({ file, ...at(error.pos[0]), path: '', message: syntaxMessage(error, text) })) };
  }
  if (doc.contents === null) {
    return { ok: false, problems: [{ file, line: null, column: null, path: '', message: `the file is empty; ${kind.name} needs at least ${kind.needs}` }] };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ file, ...at(doc.contents.range?.[0]), path: '', message: messageOf(error) }] };
  }
  if (data !== null && typeof data !== 'object') {
    // Some other file (a key, a script, notes) reads as one scalar: its first bytes are not repeated, they may be a secret.
    const held = typeof data === 'string' ? 'text' : `a ${typeof data}`;
    return { ok: false, problems: [{ file, ...at(doc.contents.range?.[0]), path: '', message: `not ${kind.name}: ${kind.name} is a YAML mapping with ${kind.needs}, and this file holds ${held} (not repeated here)` }] };
  }
  const parsed = kind.schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  const findings = parsed.error.issues.flatMap((issue) => explainIssue(issue, [], data));
  const problems = findings.map((finding) => ({ file, ...at(offsetOf(doc, finding)), path: formatPath(finding.path), message: withoutSecrets(finding.message) }));
  return { ok: false, problems: sortedUnique(problems) };
}

/**
 * Problems quote what was written ("got …"); a value shaped like a secret (a recorder token, a bearer
 * header, a long key) is shown as *** instead, since whatever is pasted in a profile ends up in logs.
 */
const SECRET_SHAPED = /bearer\s+\S+|perm:[^\s"']+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9+/_=-]{32,}/gi;

function withoutSecrets(message: string): string {
  return message.replace(SECRET_SHAPED, '***');
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return messageOf(error);
}

function syntaxMessage(error: YAMLError, text: string): string {
  // yaml says only "Map keys must be unique"; naming the key saves a search through the file.
  if (error.code === 'DUPLICATE_KEY') {
    // The error marks the start of the repeated key; its text runs to the colon.
    const key = /^(?:"[^"\n]*"|'[^'\n]*'|[^:#\n]+?)(?=\s*:)/.exec(text.slice(error.pos[0]))?.[0].replace(/^["']|["']$/g, '');
    if (key !== undefined && key.length <= 60) return `duplicate key "${key}": each key may appear only once in a mapping`;
    return 'duplicate key: each key may appear only once in a mapping';
  }
  // Some messages end with a colon that introduced the (omitted) source excerpt.
  return error.message.replace(/:\s*$/, '');
}

function sortedUnique(problems: ProfileProblem[]): ProfileProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((problem) => {
    const key = formatProfileError(problem);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // In file order, so the list reads top to bottom like the file does.
  return unique.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
