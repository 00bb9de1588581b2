// What each profile file's text parsed to, once per process. A change anywhere under the profile paths
// reloads every file (a change event names no file reliably), and every bridge, `profiles check` and
// the editor's checks read the shipped folder's twenty-odd profiles: parsing them is most of a load's
// time (840 ms of CPU cold, 170-300 ms warm on this 2-core machine; each save in the editor parsed them
// all again). Parsing is a function of the file's name and text alone, so a file whose text is what it
// was is not parsed again, whoever reads it: the file is still read each time, and a changed file, a bad
// one included, is parsed and reported as before, its problems naming it.
//
// The parsed values are not kept here: the process's one record of checked texts (checked-texts.ts) owns
// them, frozen whole, and hands the watcher the kept value itself (load.ts: sharedYamlFile). What is
// kept here is only what a file adds to its text's value: the result naming the file and its origin,
// made once per file and value, so that an unchanged file loads as the very same LoadedProfile (two
// bridges in one process share it, and a watcher reloading it sees the same object). It lives as long as
// the record keeps the value (a WeakMap keyed by it): a text the record lets go takes its results with it.
// A result is frozen whole too: a caller that tried to change a loaded profile would throw, not change
// it for the others.
import { CHECKED_TEXTS, deepFrozen, type CheckedTexts } from './checked-texts.js';
import { PROFILE_FILE, readYamlText, sharedYamlFile, type ProfileResult } from './load.js';
import { profileOrigin } from './origin.js';
import { SHIPPED_PARSES, type ShippedParses } from './shipped-parses.js';

/** Files one text's value keeps a result for; past it the longest unused goes (one text is in one or two files, a test process copies one to temporary folders by the hundred). */
const MAX_FILES_PER_TEXT = 8;

export class ParsedProfiles {
  /** By the record's value, then by file in order of last use (a Map keeps insertion order: a use moves a file to the end). */
  private readonly results = new WeakMap<object, Map<string, ProfileResult>>();

  constructor(
    private readonly checked: CheckedTexts,
    private readonly parses: ShippedParses,
  ) {}

  /** The file's profile from this text: parsed, or the result this same text gave the same file before. */
  parse(file: string, text: string): ProfileResult {
    const checked = sharedYamlFile(text, file, PROFILE_FILE, this.parses, this.checked);
    if (!checked.ok) return checked;
    const profile = checked.value;
    let byFile = this.results.get(profile);
    if (byFile === undefined) {
      byFile = new Map();
      this.results.set(profile, byFile);
    }
    const kept = byFile.get(file);
    byFile.delete(file);
    const result = kept ?? deepFrozen<ProfileResult>({ ok: true, loaded: { profile, file, origin: profileOrigin(file) } });
    byFile.set(file, result);
    if (byFile.size > MAX_FILES_PER_TEXT) byFile.delete(byFile.keys().next().value as string);
    return result;
  }
}

/** The process's one record (see the top of the file). */
export const PARSED_PROFILES = new ParsedProfiles(CHECKED_TEXTS, SHIPPED_PARSES);

/** A profile file read now: parsed, or what that same text parsed to before in this process. */
export async function loadParsedProfile(file: string): Promise<ProfileResult> {
  const read = await readYamlText(file);
  return read.ok ? PARSED_PROFILES.parse(file, read.text) : read;
}
