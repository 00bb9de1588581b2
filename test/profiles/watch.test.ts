import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { watch } from 'node:fs';
import { join } from 'node:path';
import type { Observable, Subscription } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchProfiles, type ProfileSet } from '../../src/profiles/watch.js';
import { until } from '../support/until.js';
import { settle, VirtualTime } from '../support/virtual-time.js';

// The quiet time after a change runs on virtual time; the files and their change events are real, so
// they are waited for with a bounded poll that moves virtual time past the quiet time each round.
const DEBOUNCE_MS = 20;

// Counts the fs watchers the module opens and closes, to check that unsubscribing leaves none open.
const watchers = { open: 0 };
const countedWatch = ((...args: Parameters<typeof watch>) => {
  const watcher = watch(...args);
  watchers.open++;
  const close = watcher.close.bind(watcher);
  let closed = false;
  watcher.close = () => {
    if (!closed) watchers.open--;
    closed = true;
    close();
  };
  return watcher;
}) as typeof watch;

function profileText(name: string, kind = 'memory'): string {
  return `name: ${name}\nmatch: { kind: ${kind} }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: page-next } }\n`;
}

/** Everything the watcher emits, so each step can wait for the set it expects. */
function record(sets: (time: VirtualTime) => Observable<ProfileSet>): { next: (check: (set: ProfileSet) => boolean, what: string) => Promise<ProfileSet>; subscription: Subscription } {
  const time = new VirtualTime();
  const emitted: ProfileSet[] = [];
  const subscription = sets(time).subscribe((set) => emitted.push(set));
  let seen = 0;
  return {
    subscription,
    // Waits for the first set after the ones already looked at that passes the check.
    next: async (check, what) => {
      let found = -1;
      await until(() => {
        found = emitted.findIndex((set, index) => index >= seen && check(set));
        if (found < 0) time.advance(DEBOUNCE_MS); // a change seen since ends its quiet time
        return found >= 0;
      }, what);
      seen = found + 1;
      return emitted[found] as ProfileSet;
    },
  };
}

const names = (set: ProfileSet) => set.profiles.map((p) => p.profile.name);

describe('watchProfiles', () => {
  let directory: string;
  let subscription: Subscription | undefined;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'recdeck-watch-'));
  });

  afterEach(async () => {
    subscription?.unsubscribe();
    subscription = undefined;
    await rm(directory, { recursive: true, force: true });
  });

  it('follows a directory of profiles through edits, a bad edit, its fix, a deletion and a new file', async () => {
    await writeFile(join(directory, 'b.yaml'), profileText('B'));
    await writeFile(join(directory, 'a.yml'), profileText('A'));
    await writeFile(join(directory, 'notes.txt'), 'not a profile');
    const watched = record((clock) => watchProfiles([directory], { debounceMs: DEBOUNCE_MS, clock }));
    subscription = watched.subscription;

    const initial = await watched.next(() => true, 'the initial set');
    expect(names(initial)).toEqual(['A', 'B']);
    expect(initial.profiles.map((p) => p.file)).toEqual([join(directory, 'a.yml'), join(directory, 'b.yaml')]);
    expect(initial.problems).toEqual([]);

    await writeFile(join(directory, 'b.yaml'), profileText('B2'));
    const edited = await watched.next((set) => names(set).includes('B2'), 'the edit');
    expect(names(edited)).toEqual(['A', 'B2']);
    // Every file is read again, but only the one whose text changed is parsed again: A is the very profile
    // loaded before (a parse makes a new one), so a save of one file does not parse the whole folder.
    expect(edited.profiles[0]).toBe(initial.profiles[0]);
    expect(edited.profiles[1]).not.toBe(initial.profiles[1]);

    await writeFile(join(directory, 'b.yaml'), `${profileText('B3')}      key1: { press: { action: rec-strat, channel: 1 } }\n`);
    // A write may be seen half done (an empty file, say), so wait for the problem the edit makes.
    const broken = await watched.next((set) => set.problems.some((p) => p.path.endsWith('key1.press.action')), 'the bad edit');
    expect(names(broken)).toEqual(['A', 'B2']);
    expect(broken.problems).toEqual([
      expect.objectContaining({ file: join(directory, 'b.yaml'), line: 7, column: 32, path: 'pages[0].controls.key1.press.action' }),
    ]);

    await writeFile(join(directory, 'b.yaml'), profileText('B4'));
    const fixed = await watched.next((set) => set.problems.length === 0 && names(set).includes('B4'), 'the fix');
    expect(names(fixed)).toEqual(['A', 'B4']);

    await unlink(join(directory, 'a.yml'));
    const deleted = await watched.next((set) => !names(set).includes('A'), 'the deletion');
    expect(names(deleted)).toEqual(['B4']);

    await writeFile(join(directory, 'c.yaml'), profileText('C'));
    const added = await watched.next((set) => names(set).includes('C') && set.problems.length === 0, 'the new file');
    expect(names(added)).toEqual(['B4', 'C']);
    expect(added.problems).toEqual([]);
  });

  it('reports a missing path and a bad file from the start without failing', async () => {
    const file = join(directory, 'studio.yaml');
    await writeFile(file, 'name: [\n');
    const missing = join(directory, 'absent');
    const watched = record((clock) => watchProfiles([file, missing], { debounceMs: DEBOUNCE_MS, clock }));
    subscription = watched.subscription;

    const initial = await watched.next(() => true, 'the initial set');
    expect(initial.profiles).toEqual([]);
    expect(initial.problems).toEqual([
      { file: missing, line: null, column: null, path: '', message: 'no such file or directory' },
      expect.objectContaining({ file, line: expect.any(Number) }),
    ]);

    // A path that appears later is picked up: its parent directory is watched.
    await mkdir(missing);
    await writeFile(join(missing, 'late.yaml'), profileText('Late'));
    await writeFile(file, profileText('Studio'));
    const later = await watched.next((set) => set.problems.length === 0 && set.profiles.length === 2, 'both paths to load');
    expect(names(later)).toEqual(['Late', 'Studio']);
  });

  it('stops watching when unsubscribed', async () => {
    await writeFile(join(directory, 'a.yaml'), profileText('A'));
    const emitted: ProfileSet[] = [];
    let firstSet: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => (firstSet = resolve));
    const time = new VirtualTime();
    const own = watchProfiles([directory], { debounceMs: DEBOUNCE_MS, clock: time, watchDirectory: countedWatch }).subscribe((set) => {
      emitted.push(set);
      firstSet();
    });
    await loaded;
    expect(watchers.open).toBeGreaterThan(0);
    own.unsubscribe();
    expect(watchers.open).toBe(0);
    // A watcher of the test's own sees the edit; once it has, the unsubscribed one has nothing scheduled.
    let seenByTest = false;
    const witness = watch(directory, () => (seenByTest = true));
    try {
      await writeFile(join(directory, 'a.yaml'), profileText('A2'));
      await until(() => seenByTest, 'the edit to be seen');
      await settle(() => true, 'the change events');
    } finally {
      witness.close();
    }
    expect(time.nextDue()).toBeNull();
    time.advance(DEBOUNCE_MS);
    await settle(() => true, 'a reload');
    expect(emitted.map(names)).toEqual([['A']]);
  });
});
