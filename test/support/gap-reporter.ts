// Where a worker's time goes around each test file (issue 31). vitest's json reporter times a file from
// its first test's start to its last test's end, so a file's import AND its beforeAll/afterAll hooks show
// up as a gap between files. This reporter writes, per file, vitest 4.1's module diagnostic (prepare;
// collect = importing the file and what it imports that this worker has not loaded yet, plus suite
// callbacks; duration = hooks and tests), the part of the duration outside its tests (hooks), and the
// slowest imports, to the path in GAP_REPORT (JSON). Import times need
// `--experimental.importDurations.limit=N`; in a shared worker (isolate: false) a module is listed, with
// the same times, by every later file too: its cost belongs to the first file that imported it.
// Use: GAP_REPORT=/tmp/gaps.json npx vitest run --reporter=default --reporter=./test/support/gap-reporter.ts
import { writeFileSync } from 'node:fs';
import { experimental_getRunnerTask, type Reporter, type TestModule } from 'vitest/node';

interface FileRow {
  readonly file: string;
  readonly project: string;
  readonly startTime: number;
  readonly env: number;
  readonly prepare: number;
  readonly collect: number;
  readonly setup: number;
  readonly duration: number;
  readonly hooks: number;
  readonly imports: readonly { readonly id: string; readonly self: number; readonly total: number; readonly external: boolean }[];
}

export default class GapReporter implements Reporter {
  private readonly rows: FileRow[] = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    // For tests that run one after another, what the file's duration holds beyond its tests' is its
    // beforeAll/afterAll hooks; a describe.concurrent file's tests overlap, so there it is too small
    // (even negative), not a hook time.
    let inTests = 0;
    for (const test of module.children.allTests()) inTests += test.diagnostic()?.duration ?? 0;
    const imports = Object.entries(d.importDurations)
      .map(([id, i]) => ({ id, self: Math.round(i.selfTime), total: Math.round(i.totalTime), external: i.external === true }))
      .sort((a, b) => b.total - a.total);
    this.rows.push({
      file: module.moduleId,
      project: module.project.name,
      startTime: experimental_getRunnerTask(module).result?.startTime ?? 0,
      env: Math.round(d.environmentSetupDuration),
      prepare: Math.round(d.prepareDuration),
      collect: Math.round(d.collectDuration),
      setup: Math.round(d.setupDuration),
      duration: Math.round(d.duration),
      hooks: Math.round(d.duration - inTests),
      imports,
    });
  }

  onTestRunEnd(): void {
    const out = process.env['GAP_REPORT'];
    if (out !== undefined) writeFileSync(out, JSON.stringify(this.rows, null, 1));
  }
}
