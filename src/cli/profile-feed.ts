// The profile sets of `recdeck run`, as the watch gives them: their problems reported (each once, and a
// file that loads again said so), the newest kept, and each new set handed to the bridge once one is
// linked. Watched from the start: a profile bad at start and fixed later comes up like any edit.
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { formatProfileError } from '../profiles/load.js';
import { watchProfiles, type ProfileSet } from '../profiles/watch.js';

export interface ProfileFeed {
  /** The first set, read at start (the recorders that profiles declare come from it). */
  readonly first: Promise<ProfileSet>;
  /** The newest set: one that arrives while the bridge is being made is applied once it is. */
  latest(): ProfileSet;
  /** Hands every set from now on to `apply`, until the function returned is called. */
  link(apply: (set: ProfileSet) => void): () => void;
  /** Stops watching the files. */
  stop(): void;
}

export function watchProfileFeed(paths: readonly string[], log: Logger): ProfileFeed {
  let reported: ProfileSet = { profiles: [], problems: [] };
  let latest = reported;
  let apply: ((set: ProfileSet) => void) | null = null;
  let firstSet: (set: ProfileSet) => void = () => undefined;
  const first = new Promise<ProfileSet>((resolve) => (firstSet = resolve));
  const subscription = watchProfiles([...paths], { clock: realTime }).subscribe((set) => {
    const text = profileProblemsText(set);
    if (text !== profileProblemsText(reported) && text !== '') log.warn(text);
    for (const file of fixedFiles(reported, set)) log.info(`${file}: loads now; in use`);
    reported = set;
    latest = set;
    firstSet(set); // only the first call settles it
    apply?.(set);
  });
  return {
    first,
    latest: () => latest,
    link: (to) => {
      apply = to;
      return () => {
        if (apply === to) apply = null;
      };
    },
    stop: () => subscription.unsubscribe(),
  };
}

/**
 * The problems of a profile set, each file saying whether a last good version of it is in use or none
 * is (a file bad since the start is not in use until it loads); empty when there are none.
 */
function profileProblemsText(set: ProfileSet): string {
  if (set.problems.length === 0) return '';
  const inUse = new Set(set.profiles.map((p) => p.file));
  const files = [...new Set(set.problems.map((p) => p.file))];
  const fates = files.map((file) => (file === '' ? '' : inUse.has(file) ? `${file}: its last good version stays in use` : `${file}: not in use until it loads (recdeck watches it)`));
  return ['profile problems:', ...set.problems.map(formatProfileError), ...fates.filter((f) => f !== '')].join('\n');
}

/** Files that had problems in the last set and load without any now. */
function fixedFiles(before: ProfileSet, now: ProfileSet): string[] {
  const stillBad = new Set(now.problems.map((p) => p.file));
  const loaded = new Set(now.profiles.map((p) => p.file));
  return [...new Set(before.problems.map((p) => p.file))].filter((file) => !stillBad.has(file) && loaded.has(file));
}
