// The profile files as the editor sees them: each one named by an id (never by a path a client could
// bend), read with an ETag, and written back only when nobody changed it since, only inside the profile
// folders, only when the loader accepts the result, atomically (a temporary file renamed over it) and
// with the version before kept as FILE.bak, which undo puts back. Shipped profiles are never written:
// an operator makes their own copy, pinned to one device, in their own folder.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { EditError, editProfileText, type ProfileEdit } from './edit-text.js';
import { formatProfileError, parseProfile, type ProfileProblem } from './load.js';
import { SHIPPED_PROFILES, profileOrigin } from './origin.js';
import type { ProfileOrigin } from './schema.js';
import { listProfileFiles } from './watch.js';

/** A profile file is a page of YAML: anything past this is refused rather than written. */
export const MAX_PROFILE_BYTES = 1024 * 1024;
const SHIPPED_PREFIX = 'shipped:';

export interface ProfileFileEntry {
  /** How the API names it: the file name, `shipped:` before a shipped one's. */
  id: string;
  path: string;
  origin: ProfileOrigin;
}

export interface ProfileFileText {
  entry: ProfileFileEntry;
  text: string;
  etag: string;
}

/** A saved change: where, and the value before and after, for the audit log. */
export interface SavedEdit {
  entry: ProfileFileEntry;
  etag: string;
  before: unknown;
  after: unknown;
}

/** The loader's refusal of an edit: its problems, each at a path like `pages[0].controls.key0.press.action`. */
export class InvalidEdit extends Error {
  constructor(readonly problems: ProfileProblem[]) {
    super(problems.map(formatProfileError).join('\n'));
  }
}

/** The file changed since the client read it: its text now, so the client can show what changed. */
export class StaleEdit extends Error {
  constructor(readonly current: ProfileFileText) {
    super(`${current.entry.id} changed on disk since you read it: nothing was written; read it again (its ETag is now ${current.etag})`);
  }
}

export const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;

export class ProfileFiles {
  private writing: Promise<unknown> = Promise.resolve();

  /**
   * @param paths the profile files and folders the bridge watches (shipped and the operator's)
   * @param ownFolder the operator's folder (--profile DIR), where "make my own" writes; null: none given
   */
  constructor(
    private readonly paths: readonly string[],
    readonly ownFolder: string | null,
  ) {}

  async list(): Promise<ProfileFileEntry[]> {
    const { files } = await listProfileFiles(this.paths);
    const taken = new Set<string>();
    return files.map((path) => {
      const origin = profileOrigin(path);
      const name = `${origin === 'shipped' ? SHIPPED_PREFIX : ''}${basename(path)}`;
      // Two folders may hold the same file name: the later one is told apart by a number.
      let id = name;
      for (let n = 2; taken.has(id); n++) id = `${name}~${n}`;
      taken.add(id);
      return { id, path, origin };
    });
  }

  /** The entry of an id, only ever one listed: a client never names a path. */
  async entry(id: string): Promise<ProfileFileEntry> {
    const entries = await this.list();
    const found = entries.find((e) => e.id === id);
    if (!found) throw new EditError(404, `no profile file "${id}"; the files are ${entries.map((e) => e.id).join(', ') || 'none'}`);
    return found;
  }

  async read(id: string): Promise<ProfileFileText> {
    const entry = await this.entry(id);
    const path = await this.contained(entry);
    const size = (await stat(path)).size;
    if (size > MAX_PROFILE_BYTES) throw new EditError(413, `${id} is ${size} bytes, more than the ${MAX_PROFILE_BYTES} a profile may be`);
    const text = await readFile(path, 'utf8');
    return { entry, text, etag: etagOf(text) };
  }

  /** Applies one edit, if the file is still what the client read (its ETag) and the loader accepts the result. */
  edit(id: string, ifMatch: string | null, edit: ProfileEdit): Promise<SavedEdit> {
    return this.oneAtATime(() => this.editNow(id, ifMatch, edit));
  }

  /** Puts back the version before the last save (FILE.bak); the version undone becomes the .bak (so undo again redoes). */
  undo(id: string, ifMatch: string | null): Promise<SavedEdit> {
    return this.oneAtATime(() => this.undoNow(id, ifMatch));
  }

  /** Writes wait for each other: two saves read against one ETag cannot both pass its check. */
  private oneAtATime<T>(write: () => Promise<T>): Promise<T> {
    const result = this.writing.then(write);
    this.writing = result.catch(() => undefined);
    return result;
  }

  private async editNow(id: string, ifMatch: string | null, edit: ProfileEdit): Promise<SavedEdit> {
    const current = await this.writable(id, ifMatch);
    const result = editProfileText(current.text, edit);
    const etag = await this.save(current, result.text);
    return { entry: current.entry, etag, before: result.before, after: result.after };
  }

  private async undoNow(id: string, ifMatch: string | null): Promise<SavedEdit> {
    const current = await this.writable(id, ifMatch);
    const path = await this.contained(current.entry);
    let previous: string;
    try {
      previous = await readFile(`${path}.bak`, 'utf8');
    } catch {
      throw new EditError(409, `${id} has no saved version before this one (no ${basename(path)}.bak)`);
    }
    const etag = await this.save(current, previous);
    return { entry: current.entry, etag, before: current.etag, after: etag };
  }

  /**
   * "Make my own": the file copied into the operator's folder (created if need be) with `match` pinned
   * to the one device and its name saying so; a copy of that name already there is never overwritten.
   */
  async copy(id: string, pin: { match: Record<string, unknown>; name: string; suffix: string }): Promise<SavedEdit> {
    if (this.ownFolder === null) throw new EditError(409, 'no folder of your own profiles: start recdeck with --profile DIR (a folder; it is created if need be)');
    const source = await this.read(id);
    const pinned = editProfileText(source.text, { kind: 'pin', match: pin.match, name: pin.name }).text;
    // The editor hint of a shipped file names the schema beside it; the copy lives elsewhere.
    const text = pinned.replace(/(\$schema=)\.\/recdeck-profile\.schema\.json/, `$1${join(SHIPPED_PROFILES, 'recdeck-profile.schema.json')}`);
    this.check(text, source.entry.path);
    await mkdir(this.ownFolder, { recursive: true });
    const fileName = `${basename(source.entry.path).replace(/\.ya?ml$/i, '')}-${pin.suffix.replace(/[^A-Za-z0-9._-]/g, '_')}.yaml`;
    const target = join(this.ownFolder, fileName);
    try {
      await writeFile(target, text, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new EditError(409, `${fileName} exists already in ${this.ownFolder}: edit that one`);
      throw error;
    }
    return { entry: { id: fileName, path: target, origin: profileOrigin(target) }, etag: etagOf(text), before: null, after: pin.match };
  }

  private async writable(id: string, ifMatch: string | null): Promise<ProfileFileText> {
    if (ifMatch === null) throw new EditError(428, 'send If-Match with the ETag of the version you read (GET /profiles/FILE), so a change made meanwhile is never overwritten');
    const current = await this.read(id);
    if (current.entry.origin === 'shipped') throw new EditError(403, `${id} is shipped with recdeck and is never edited: make your own copy (POST /profiles/${id}/copy)`);
    if (current.etag !== ifMatch) throw new StaleEdit(current);
    return current;
  }

  /** The loader's verdict on the new text, in its words; and the size limit. */
  private check(text: string, file: string): void {
    if (Buffer.byteLength(text) > MAX_PROFILE_BYTES) throw new EditError(413, `the profile would be more than ${MAX_PROFILE_BYTES} bytes`);
    const parsed = parseProfile(text, basename(file));
    if (!parsed.ok) throw new InvalidEdit(parsed.problems);
  }

  /** Keeps the version read as FILE.bak, then puts the new text in place by renaming a temporary file over it. */
  private async save(current: ProfileFileText, text: string): Promise<string> {
    this.check(text, current.entry.path);
    const path = await this.contained(current.entry);
    // Read once more just before writing: a change since the ETag was checked is not overwritten either.
    if (etagOf(await readFile(path, 'utf8')) !== current.etag) throw new StaleEdit(await this.read(current.entry.id));
    const folder = dirname(path);
    // Not *.yaml: the watcher never loads a half-written temporary file.
    const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFile(`${temporary}.bak`, current.text);
      await rename(`${temporary}.bak`, `${path}.bak`);
      await writeFile(temporary, text);
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      await unlink(`${temporary}.bak`).catch(() => undefined);
      throw error;
    }
    return etagOf(text);
  }

  /**
   * The file's real path, refused unless it lies inside one of the watched folders (or is a watched file
   * itself) once every symbolic link is followed: a link in the folder cannot lead a write elsewhere.
   */
  private async contained(entry: ProfileFileEntry): Promise<string> {
    const real = await realpath(entry.path);
    for (const path of this.paths) {
      const root = await realpath(path).catch(() => null);
      if (root === null) continue;
      const isFolder = (await lstat(root)).isDirectory();
      if (isFolder ? dirname(real) === root : real === root) return real;
    }
    throw new EditError(403, `${entry.id} leads outside the profile folders (${resolve(entry.path)} is ${real}): recdeck writes only inside them`);
  }
}
