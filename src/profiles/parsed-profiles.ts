// What each profile file's text parsed to, once per process. A change anywhere under the profile paths
// reloads every file (a change event names no file reliably), and every bridge, `profiles check` and
// the editor's checks read the shipped folder's twenty-odd profiles: parsing them is most of a load's
// time (840 ms of CPU cold, 170-300 ms warm on this 2-core machine; each save in the editor parsed them
// all again). Parsing is a function of the file's name and text alone, so a file whose text is what it
// was is not parsed again, whoever reads it: the file is still read each time, and a changed file, a bad
// one included, is parsed and reported as before.
//
// The results are shared by everything in the process that loads the same file, so each is frozen
// whole: a caller that tried to change a loaded profile would throw, not change it for the others.
import { parseProfile, readYamlText, type ProfileResult } from './load.js';

/** Files kept; past it the longest unused goes (a process reads tens; a test process reads temporary folders by the hundred). */
const MAX_FILES = 256;

export class ParsedProfiles {
  /** By file, in order of last use (a Map keeps insertion order: a use moves a file to the end). */
  private readonly files = new Map<string, { text: string; result: ProfileResult }>();

  constructor(private readonly maxFiles: number) {}

  /** The file's profile from this text: parsed, or the result this same text gave before. */
  parse(file: string, text: string): ProfileResult {
    const kept = this.files.get(file);
    this.files.delete(file);
    if (kept !== undefined && kept.text === text) {
      this.files.set(file, kept);
      return kept.result;
    }
    const result = deepFrozen(parseProfile(text, file));
    this.files.set(file, { text, result });
    if (this.files.size > this.maxFiles) this.files.delete(this.files.keys().next().value as string);
    return result;
  }

  /** A file that cannot be read any more. */
  forget(file: string): void {
    this.files.delete(file);
  }
}

/** The process's one record (see the top of the file). */
export const PARSED_PROFILES = new ParsedProfiles(MAX_FILES);

function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFrozen(inner);
  }
  return value;
}

/** A profile file read now: parsed, or what that same text parsed to before in this process. */
export async function loadParsedProfile(file: string): Promise<ProfileResult> {
  const read = await readYamlText(file);
  if (!read.ok) {
    PARSED_PROFILES.forget(file);
    return read;
  }
  return PARSED_PROFILES.parse(file, read.text);
}
