// Keeps the profiles in use in step with the files: loads every profile under the given paths, then
// reloads on any change. A bad edit never takes a working profile away: the file's last good version
// stays in use and the edit's problems are reported beside it until the file is fixed.
import { watch, type FSWatcher } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Observable, type Subscription } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import type { ProfileProblem } from './load.js';
import { loadParsedProfile } from './parsed-profiles.js';
import type { LoadedProfile } from './schema.js';


export interface ProfileSet {
  /** The usable profiles, ordered by file path. */
  profiles: LoadedProfile[];
  problems: ProfileProblem[];
}

export interface WatchProfilesOptions {
  /** Quiet time after the last change before reloading; editors write a file in several steps. */
  debounceMs?: number;
  /** The clock the quiet time runs on; default the real one. */
  clock: Clock;
  /** Opens a directory's change feed; default node:fs `watch` (tests count the feeds opened and closed). */
  watchDirectory?: typeof watch;
}

const PROFILE_FILE = /\.ya?ml$/i;

/**
 * Emits the profile set once loaded, then again whenever a change under the paths changes it. A path
 * is a profile file or a directory of them (the *.yaml and *.yml files directly inside). Never errors:
 * a missing path or a bad file is a problem in the set. Unsubscribing closes every watcher.
 */
export function watchProfiles(paths: readonly string[], options: WatchProfilesOptions): Observable<ProfileSet> {
  const debounceMs = options.debounceMs ?? 100;
  const clock = options.clock;
  const watchDirectory = options.watchDirectory ?? watch;
  return new Observable<ProfileSet>((subscriber) => {
    const lastGood = new Map<string, LoadedProfile>();
    const watchers = new Map<string, { watcher: FSWatcher; inode: number }>();
    let closed = false;
    let timer: Subscription | undefined;
    let reloading = false;
    let reloadAgain = false;
    let lastSent: string | null = null;

    const schedule = () => {
      if (closed) return;
      timer?.unsubscribe();
      timer = clock.scheduler.schedule(() => void reload(), debounceMs);
    };

    /** Watches each directory a change could come from; a directory replaced since is watched anew. */
    const watchDirectories = async () => {
      const wanted = new Map<string, number>();
      for (const directory of await directoriesToWatch(paths)) {
        const inode = await inodeOf(directory);
        if (inode !== null) wanted.set(directory, inode);
      }
      if (closed) return;
      for (const [directory, entry] of watchers) {
        if (wanted.get(directory) === entry.inode) continue;
        entry.watcher.close();
        watchers.delete(directory);
      }
      for (const [directory, inode] of wanted) {
        if (watchers.has(directory)) continue;
        try {
          const watcher = watchDirectory(directory, { persistent: false }, schedule);
          // A watched directory that goes away reports an error; the next reload watches what is there then.
          watcher.on('error', () => {
            watcher.close();
            if (watchers.get(directory)?.watcher === watcher) watchers.delete(directory);
            schedule();
          });
          watchers.set(directory, { watcher, inode });
        } catch {
          // Gone between the stat and the watch: the change that removed it has scheduled a reload.
        }
      }
    };

    const reload = async () => {
      if (reloading) {
        reloadAgain = true;
        return;
      }
      reloading = true;
      try {
        do {
          reloadAgain = false;
          // Watch before reading, so that a change made while reading is not missed.
          await watchDirectories();
          const set = await loadAll(paths, lastGood);
          if (closed) return;
          // Only a different set is news (saving a file unchanged, or a stray temp file, is not).
          const fingerprint = JSON.stringify(set);
          if (fingerprint !== lastSent) {
            lastSent = fingerprint;
            subscriber.next(set);
          }
        } while (reloadAgain && !closed);
      } catch (error) {
        // Not expected (every file error is a problem already); keep watching rather than go silent.
        if (!closed) subscriber.next({ profiles: sortedByFile([...lastGood.values()]), problems: [unexpected(error)] });
      } finally {
        reloading = false;
      }
    };

    void reload();
    return () => {
      closed = true;
      timer?.unsubscribe();
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
    };
  });
}

/** Every profile under the paths, read once (nothing watched): what `recdeck profiles check` checks. */
export function loadProfileSet(paths: readonly string[]): Promise<ProfileSet> {
  return loadAll(paths, new Map());
}

/** Reads every profile under the paths; `lastGood` is updated in place and fills in for bad files. */
async function loadAll(paths: readonly string[], lastGood: Map<string, LoadedProfile>): Promise<ProfileSet> {
  const { files, problems } = await listProfileFiles(paths);
  const listed = new Set(files);
  for (const file of lastGood.keys()) if (!listed.has(file)) lastGood.delete(file);

  for (const file of files) {
    const result = await loadParsedProfile(file);
    if (result.ok) {
      lastGood.set(file, result.loaded);
    } else if (!(await exists(file))) {
      // Deleted between the listing and the read: dropped, as if it had not been listed.
      lastGood.delete(file);
    } else {
      problems.push(...result.problems);
    }
  }
  return { profiles: sortedByFile([...lastGood.values()]), problems };
}

/** The profile files under the paths (a directory's *.yaml and *.yml), each once; a missing path is a problem. */
export async function listProfileFiles(paths: readonly string[]): Promise<{ files: string[]; problems: ProfileProblem[] }> {
  const files: string[] = [];
  const problems: ProfileProblem[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    // The same file reached through two paths is loaded once.
    if (seen.has(resolve(file))) return;
    seen.add(resolve(file));
    files.push(file);
  };
  for (const path of paths) {
    const kind = await kindOf(path);
    if (kind === 'missing') {
      problems.push({ file: path, line: null, column: null, path: '', message: 'no such file or directory' });
    } else if (kind === 'directory') {
      const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
      const names = entries.filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && PROFILE_FILE.test(entry.name)).map((entry) => entry.name);
      for (const name of names.sort()) add(join(path, name));
    } else {
      add(path);
    }
  }
  return { files, problems };
}

/** Each directory path itself, and the directory holding each file path (or where a missing one would go). */
async function directoriesToWatch(paths: readonly string[]): Promise<string[]> {
  const directories = new Set<string>();
  for (const path of paths) directories.add((await kindOf(path)) === 'directory' ? resolve(path) : resolve(dirname(path)));
  return [...directories];
}

async function kindOf(path: string): Promise<'directory' | 'file' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'file';
  } catch {
    return 'missing';
  }
}

async function inodeOf(directory: string): Promise<number | null> {
  try {
    const info = await stat(directory);
    return info.isDirectory() ? info.ino : null;
  } catch {
    return null;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

function sortedByFile(profiles: LoadedProfile[]): LoadedProfile[] {
  return profiles.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function unexpected(error: unknown): ProfileProblem {
  return { file: '', line: null, column: null, path: '', message: `reloading the profiles failed: ${messageOf(error)}` };
}
