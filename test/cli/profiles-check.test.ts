// `recdeck profiles check DIR`: a studio's profiles and MIDI maps checked without starting anything,
// every problem at file:line:column, exit 1 when there is one (for the CI of a profile repository).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { profiles } from '../../src/cli/profiles-check.js';
import { UsageError } from '../../src/cli/usage-error.js';

const SHIPPED = fileURLToPath(new URL('../../profiles', import.meta.url));
const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

async function check(args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await profiles(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { status, stdout, stderr };
}

describe('recdeck profiles check', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'recdeck-profiles-check-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('passes the shipped profiles and MIDI maps', async () => {
    const result = await check(['check', SHIPPED]);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(/^\d+ profiles and \d+ MIDI maps load; no problems\n$/);
  });

  it('names each bad profile and map at file:line:column and exits 1', async () => {
    await writeFile(join(folder, 'good.yaml'), 'name: Good\nmatch:\n  kind: web\n  model: web-15\npages:\n  - name: main\n    controls: {}\n');
    await writeFile(join(folder, 'bad.yaml'), 'name: Bad\nmatch:\n  kind: streamdeck\npages: 3\n');
    await mkdir(join(folder, 'midi'));
    await writeFile(join(folder, 'midi', 'broken.yaml'), 'name: [\n');
    const result = await check(['check', folder]);
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      `${join(folder, 'bad.yaml')}:4:8: pages: expected a list, got 3`,
      expect.stringMatching(new RegExp(`^${join(folder, 'midi', 'broken.yaml')}:\\d+:\\d+: `)),
      '',
    ]);
    expect(result.stdout).toBe('1 profile and 0 MIDI maps load; 2 problems\n');
  });

  it('a folder that is not there is a problem; no folder or another subcommand is a usage error', async () => {
    expect(await check(['check', join(folder, 'missing')])).toMatchObject({ status: 1, stderr: `${join(folder, 'missing')}: not a folder\n` });
    await expect(check(['check'])).rejects.toThrow(UsageError);
    await expect(check(['validate', folder])).rejects.toThrow('expected the subcommand check');
  });

  it('the built command exits 1 on a bad folder and 0 on the shipped one', async () => {
    await writeFile(join(folder, 'bad.yaml'), 'pages: [\n');
    const status = async (dir: string) => {
      const child = spawn(process.execPath, [main, 'profiles', 'check', dir], { stdio: 'ignore' });
      return ((await once(child, 'exit')) as [number | null])[0];
    };
    expect(await status(folder)).toBe(1);
    expect(await status(SHIPPED)).toBe(0);
  }, 30_000);
});
