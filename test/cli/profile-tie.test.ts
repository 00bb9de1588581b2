// Profiles that fit one surface equally, through `recdeck run`'s own loading (watched folders, the web
// decks, GET /state): a tie is said once in the log, given per surface in GET /state, and gone with
// its cause; the operator's own profile outranks the shipped one for the same surfaces, with no tie.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import type { Logger } from '../../src/engine/log.js';
import type { StateView } from '../../src/remote/state-view.js';
import { until } from '../support/until.js';

// The operator's folders are made in the repository's own (git-ignored) tmp/: beside profiles/, and
// after it by path, so that a choice by file path alone would take the shipped profile.
const OPERATOR_ROOT = fileURLToPath(new URL('../../tmp/', import.meta.url));
const SHIPPED_PROFILES = fileURLToPath(new URL('../../profiles', import.meta.url));

let running: RunningBridge | undefined;
let folder: string | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

async function start(profilePaths: string[]): Promise<{ bridge: RunningBridge; lines: string[]; state: () => Promise<StateView> }> {
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  running = await startBridge({ recorderFlags: [], tokenFlags: [], profilePaths, pollMs: 100, env: {}, web: { host: '127.0.0.1', port: 0, password: null }, surfaces: [], sources: [] }, log);
  const url = `${running.remote?.url}/state`;
  return { bridge: running, lines, state: async () => (await (await request(url)).body.json()) as StateView };
}

const operatorFolder = async () => {
  await mkdir(OPERATOR_ROOT, { recursive: true });
  folder = await mkdtemp(join(OPERATOR_ROOT, 'profiles-'));
  return folder;
};
const shippedWeb15 = () => readFile(join(SHIPPED_PROFILES, 'web-15-keys.yaml'), 'utf8');

describe('profiles that tie for a surface', () => {
  it('a backup copy beside a profile: the tie is logged once (not again at a reload), given in GET /state, and gone with the copy', async () => {
    const dir = await operatorFolder();
    const original = join(dir, 'web-15-keys.yaml');
    const copy = join(dir, 'web-15-copy.yaml');
    const text = await shippedWeb15();
    await writeFile(original, text);
    await writeFile(copy, text.replace('name: Web 15 keys', 'name: Web 15 keys (copy)'));
    const { bridge, lines, state } = await start([dir]);
    const ties = () => lines.filter((l) => l.includes('profiles tie'));
    const session = () => bridge.bridge.session('web:web-15');

    // The copy wins by file name ("web-15-c" before "web-15-k"), and that is said, naming both.
    expect(session()?.profileFile).toBe(copy);
    expect(ties()).toHaveLength(1);
    expect(ties()[0]).toBe(
      `web:web-15 (Web deck, 15 keys): profiles tie: ${copy} is in use; ${original} fits it just as well (as specific a match, none shipped with recdeck) and loses by file name only: make the one meant more specific (match: name or serial) or remove the others`,
    );
    const surface = (s: StateView) => s.surfaces.find((x) => x.id === 'web:web-15');
    expect(surface(await state())?.profileTie).toEqual({ winner: copy, others: [original], origin: 'operator' });

    // A reload that leaves the tie as it was says nothing more.
    await writeFile(copy, text.replace('name: Web 15 keys', 'name: Web 15 keys (copy, edited)'));
    await until(() => session()?.profileName === 'Web 15 keys (copy, edited)', 'the edit to be loaded');
    expect(ties()).toHaveLength(1);

    await rm(copy);
    await until(() => session()?.profileFile === original, 'the original in use again');
    expect(surface(await state())?.profileTie).toBeNull();
    expect(ties()).toHaveLength(1);

    // A tie that comes back is news again.
    await writeFile(copy, text);
    await until(() => session()?.profileFile === copy, 'the copy back');
    expect(ties()).toHaveLength(2);
  }, 20_000);

  it("the operator's own profile outranks the shipped one as specific: no tie, and the shipped decks untied", async () => {
    const dir = await operatorFolder();
    const studio = join(dir, 'studio-a.yaml');
    await writeFile(studio, (await shippedWeb15()).replace('name: Web 15 keys', 'name: Studio A'));
    const { bridge, lines, state } = await start([SHIPPED_PROFILES, dir]);
    expect(bridge.bridge.session('web:web-15')?.profileFile).toBe(studio);
    expect(bridge.bridge.session('web:web-15')?.profileName).toBe('Studio A');
    expect(lines.filter((l) => l.includes('profiles tie'))).toEqual([]);
    const surfaces = (await state()).surfaces;
    expect(surfaces.map((s) => [s.id, s.profile, s.profileTie])).toEqual([
      ['web:web-15', 'Studio A', null],
      ['web:web-32', 'Web 32 keys', null],
      ['web:web-plus', 'Web Plus', null],
    ]);
  });
});
