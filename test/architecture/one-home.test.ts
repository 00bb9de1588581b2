// Knowledge that lives in one place only, checked from the sources: time is read and timers are set
// through the one clock (api/clock.ts, which EngineTime extends), and a caught error is turned into
// words by one function (messageOf). A second home for either is how the two drift apart.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source's text without its comments, so that a comment naming Date.now is not a use of it. */
const sources = sourceFiles('src').map((file) => ({ file, code: readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1') }));

/** Where real time may still be read or waited on, and why. */
const REAL_TIME: Record<string, string> = {
  'src/api/clock.ts': 'the clock itself',
  'src/bench/bare-poller.ts': "the benchmarks' floor: a process of its own polling on real timers, as lean as a poller gets",
  'src/bench/broker.ts': 'waits for the Mosquitto process it starts to listen',
  'src/bench/stats.ts': "the benchmarks' measuring windows are real time by definition",
};

describe('one clock', () => {
  it('no Date.now, setTimeout or setInterval in src/ outside the clock and the process plumbing listed', () => {
    const found = sources.filter(({ file, code }) => /\bDate\.now\(|\bset(Timeout|Interval)\b/.test(code) && !(file in REAL_TIME)).map(({ file }) => file);
    expect(found).toEqual([]);
  });

  it('the list names no file that no longer needs it', () => {
    const users = new Set(sources.filter(({ code }) => /\bDate\.now\(|\bset(Timeout|Interval)\b/.test(code)).map(({ file }) => file));
    expect(Object.keys(REAL_TIME).filter((file) => !users.has(file))).toEqual([]);
  });
});

/**
 * The real clock is chosen once, where the process is put together: src/cli/ (and the benchmarks, which
 * are processes of their own, and the Stream Deck app plugin's entry, src/plugin/main.ts, which the app
 * starts as a process of its own). Everywhere else a clock is a required argument: no `?? realTime`, no
 * `= realTime` default, no optional clock option, so a part (or a test) that forgets its clock does not
 * compile instead of silently running on real time. The precise timer (performance.now) lives in the clock
 * too (the benchmarks time themselves with it).
 */
const CLOCK_CHOSEN = (file: string) => file.startsWith('src/cli/') || file.startsWith('src/bench/') || file === 'src/plugin/main.ts';
const CLOCK_HOMES = new Set(['src/api/clock.ts', 'src/engine/engine-time.ts']);

describe('clocks required', () => {
  it('the real clock is named only in the clock, src/cli/, src/bench/ and the plugin\'s entry: no fallback to it', () => {
    const found = sources.filter(({ file, code }) => /\breal(Time|Clock)\b/.test(code) && !CLOCK_CHOSEN(file) && !CLOCK_HOMES.has(file)).map(({ file }) => file);
    expect(found).toEqual([]);
  });

  it('no optional clock: a time or clock option or parameter is required', () => {
    const found = sources.filter(({ file, code }) => /\b(time|clock)\?\s*:\s*(EngineTime|Clock|PreciseClock)\b/.test(code) && !CLOCK_CHOSEN(file)).map(({ file }) => file);
    expect(found).toEqual([]);
  });

  it('performance.now only in the clock (and the benchmarks)', () => {
    const found = sources.filter(({ file, code }) => /\bperformance\.now\b/.test(code) && file !== 'src/api/clock.ts' && !file.startsWith('src/bench/')).map(({ file }) => file);
    expect(found).toEqual([]);
  });
});

describe('one messageOf', () => {
  it('a caught error becomes words only through messageOf (api/errors.ts)', () => {
    const other = /\binstanceof Error \? \w+\.message : String\(|\(\w+ as Error\)\.message/;
    const found = sources.filter(({ file, code }) => file !== 'src/api/errors.ts' && other.test(code)).map(({ file }) => file);
    expect(found).toEqual([]);
    expect(sources.filter(({ code }) => /\bfunction messageOf\b/.test(code)).map(({ file }) => file)).toEqual(['src/api/errors.ts']);
  });
});

/**
 * One latest-wins queue (src/engine/latest-wins.ts) for every output path: a device's writes, a session's
 * renderings, each web page's images. The rule, checkable from the sources: outside that file no Map is
 * kept under a name that says it holds what waits (`pending…`, `waiting…`, `queue…`, `queued…`): a Map
 * of content by key that something drains is the shape of a latest-wins queue, and a second one is how
 * the skipping, ordering and "already shown" of two output paths drift apart. The Maps below are keyed
 * waits of another kind, named with why. Turn batching outside the clock (setImmediate, queueMicrotask,
 * process.nextTick) is refused with them: a batch waits on the injected clock (TurnBatch).
 */
const PENDING_MAPS: Record<string, string> = {
  'src/bus/bus-recorder.ts': 'requests in flight waiting for their reply, each settled once: no content replaced by newer content',
  'src/render/finished-images.ts': 'renderings in flight shared by equal requests (a de-duplication, for KeyRenderer and ThreadRenderer), never replaced by a newer one',
  'src/render/render-thread.ts': 'requests to the render thread waiting for its answer by id, each settled once',
};

const QUEUE_MAP = /\b(pending|waiting|queued?)\w*\s*(:\s*Map\b|=\s*new Map\b)/i;

describe('one latest-wins queue', () => {
  it('no Map of what waits outside src/engine/latest-wins.ts but the keyed waits listed', () => {
    const found = sources.filter(({ file, code }) => QUEUE_MAP.test(code) && file !== 'src/engine/latest-wins.ts' && !(file in PENDING_MAPS)).map(({ file }) => file);
    expect(found).toEqual([]);
  });

  it('the list names no file that no longer needs it', () => {
    const users = new Set(sources.filter(({ code }) => QUEUE_MAP.test(code)).map(({ file }) => file));
    expect(Object.keys(PENDING_MAPS).filter((file) => !users.has(file))).toEqual([]);
  });

  it('no turn batching outside the clock: setImmediate, queueMicrotask, process.nextTick', () => {
    expect(sources.filter(({ code }) => /\b(setImmediate|queueMicrotask|nextTick)\b/.test(code)).map(({ file }) => file)).toEqual([]);
  });

  it('the rule sees the queues it is about (the primitive itself, and a queue written the old way)', () => {
    expect(QUEUE_MAP.test(sources.find(({ file }) => file === 'src/engine/latest-wins.ts')?.code ?? '')).toBe(true);
    expect(QUEUE_MAP.test('  pendingImages: Map<string, PendingImage>;')).toBe(true);
    expect(QUEUE_MAP.test('  private readonly pending = new Map<string, OutputItem>();')).toBe(true);
    expect(QUEUE_MAP.test('  private readonly latest = new Map<string, Picture>();')).toBe(false);
  });
});
