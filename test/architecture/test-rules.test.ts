// Rules the test suite itself keeps, checked from its sources:
// - pure and integration files share a worker's loaded modules (vitest.config.ts, `isolate: false`), so
//   no file may replace a module or a global for the files after it (vi.mock, vi.doMock, vi.stubGlobal);
// - one test time strategy: virtual time (support/virtual-time.ts) for everything that is not a real
//   process, socket or browser, so no fake timers and no second manual clock;
// - the e2e project (real processes, Mosquitto, chromium: slow, and waited on) holds only what needs it,
//   so each of its files says why in its first comment.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { E2E } from '../../vitest.config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const THIS_FILE = 'test/architecture/test-rules.test.ts';

function testFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = testFiles('test')
  .filter((file) => file !== THIS_FILE)
  .map((file) => ({ file, code: readFileSync(join(ROOT, file), 'utf8') }));

const using = (pattern: RegExp) => files.filter(({ code }) => pattern.test(code)).map(({ file }) => file);

describe('the test suite', () => {
  it('replaces no module or global (its files share a worker\'s modules)', () => {
    expect(using(/\bvi\.(mock|doMock|unmock|stubGlobal|stubEnv)\(/)).toEqual([]);
  });

  it('has one time strategy: no fake timers, no manual clock', () => {
    expect(using(/\bvi\.(useFakeTimers|advanceTimersByTime|setSystemTime)\(|\bManualClock\b/)).toEqual([]);
  });

  it('says in each e2e file\'s first comment why it must be e2e', () => {
    const firstComment = (code: string) => /^(?:\/\/.*\n)+/.exec(code)?.[0] ?? '';
    const e2e = files.filter(({ file }) => E2E.includes(file));
    expect(e2e.length).toBe(E2E.length);
    expect(e2e.filter(({ code }) => !/\be2e\b/.test(firstComment(code))).map(({ file }) => file)).toEqual([]);
  });

  it('reads the files it checks (a rule over no files proves nothing)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some(({ file }) => file === 'test/support/virtual-time.ts')).toBe(true);
  });
});
