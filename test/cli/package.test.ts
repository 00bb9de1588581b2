// e2e because the point is the packed artefact: the tarball `npm pack` makes, unpacked, its bin run as a process.
// The package as `npm pack` makes it: what the tarball holds, and that its bin runs unpacked. (.ci/run
// also installs the tarball globally with --omit=dev, which needs the registry; this test does not.)
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('npm pack', () => {
  const folder = mkdtempSync(join(tmpdir(), 'recdeck-pack-'));
  let files: string[] = [];
  let bin = '';

  beforeAll(async () => {
    // dist/ is built by npm test before the tests run; prepare (which builds it again) is skipped here.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], { cwd: root });
    const [packed] = JSON.parse(stdout) as [{ filename: string; files: Array<{ path: string }> }];
    files = packed.files.map((file) => file.path);
    await run('tar', ['xzf', join(folder, packed.filename), '-C', folder]);
    const unpacked = join(folder, 'package');
    // The dependencies a global install would fetch: the project's own, found where Node looks.
    symlinkSync(join(root, 'node_modules'), join(unpacked, 'node_modules'));
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as { bin: { recdeck: string } };
    bin = join(unpacked, manifest.bin.recdeck);
    // npm install makes the bin executable (npm pack stores it 0644); so does this test.
    chmodSync(bin, 0o755);
  }, 60_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('holds the built CLI, the shipped profiles and maps, the page, the deploy files and docs/ (the README links it), and no tests, sources or bench', () => {
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/cli/main.js', 'dist/cli/run.js', 'profiles/streamdeck-xl.yaml', 'profiles/midi/generic.yaml', 'profiles/recdeck-profile.schema.json', 'dist/profiles/shipped-parses.json', 'src/remote/page/index.html', 'src/remote/page/deck.js', 'deploy/mosquitto/acl', 'docs/design.md']));
    expect(files.filter((file) => file.startsWith('test/') || file.endsWith('.ts') || file.endsWith('.map') || file.startsWith('dist/bench/') || file.startsWith('scripts/'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/') && !file.startsWith('src/remote/page/'))).toEqual([]);
  });

  it('its bin runs unpacked: --version and run --help', async () => {
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
    // Side by side: each is a Node start and a module load, mostly waiting on the CPU.
    const [shown, { stdout: help }] = await Promise.all([run(bin, ['--version']), run(bin, ['run', '--help'])]);
    expect(shown.stdout).toBe(`recdeck ${version}\n`);
    expect(help).toMatch(/^usage: recdeck run /);
    expect(help).toContain('--recorder');
  });
});
