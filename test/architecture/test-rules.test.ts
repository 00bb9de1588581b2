// Rules the test suite itself keeps, checked from its sources:
// - pure and integration files share a worker's loaded modules (vitest.config.ts, `isolate: false`), so
//   no file may replace a module or a global for the files after it (vi.mock, vi.doMock, vi.stubGlobal);
// - one test time strategy: virtual time (support/virtual-time.ts) for everything that is not a real
//   process, socket or browser, so no fake timers and no second manual clock.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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

  it('reads the files it checks (a rule over no files proves nothing)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some(({ file }) => file === 'test/support/virtual-time.ts')).toBe(true);
  });
});
