// Small kernel files read whole in pool-sized chunks (src/cli/small-file.ts): a text longer than one chunk
// whole (a character split across two chunks included), the bound, fs's own errors kept, and a real
// procfs file (which says it is 0 bytes long).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSmallFile } from '../../src/cli/small-file.js';

let folder = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-small-file-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('readSmallFile', () => {
  it('reads a text of several chunks whole, a two-byte character across a chunk boundary included', async () => {
    // 1023 ASCII bytes, then "é" (2 bytes: the 1024th and 1025th), then more: the chunk ends mid-character.
    const text = `${'a'.repeat(1023)}é${'b'.repeat(2000)}\n`;
    const file = join(folder, 'long');
    await writeFile(file, text);
    expect(await readSmallFile(file, 4096)).toBe(text);
  });

  it('refuses a file longer than its bound, naming it; an empty file is empty', async () => {
    const file = join(folder, 'too-long');
    await writeFile(file, 'x'.repeat(65));
    await expect(readSmallFile(file, 64)).rejects.toThrow(`${file} is longer than the 64 bytes expected of it`);
    await writeFile(join(folder, 'exact'), 'y'.repeat(64));
    expect(await readSmallFile(join(folder, 'exact'), 64)).toBe('y'.repeat(64));
    await writeFile(join(folder, 'empty'), '');
    expect(await readSmallFile(join(folder, 'empty'), 64)).toBe('');
  });

  it("passes fs's errors on with their codes (a missing file is told from an unreadable one)", async () => {
    await expect(readSmallFile(join(folder, 'absent'), 64)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readSmallFile(folder, 64)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it.runIf(process.platform === 'linux')('reads a procfs file, which says it is 0 bytes long: this thread\'s name', async () => {
    const name = (await readSmallFile('/proc/self/comm', 64)).trim();
    expect(name.length).toBeGreaterThan(0);
    expect(name.length).toBeLessThanOrEqual(15);
  });
});
