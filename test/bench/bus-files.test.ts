// Bench (h) runs its poller as `recdeck run --mqtt-facility --mqtt-key-file`: the files it writes for it
// are what the CLI loads, each member's key the one the facility lists for it.
import type { KeyObject } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { generatedFacility, generatedFacilityOf } from '../../src/bench/bus.js';
import { publicKeyText } from '../../src/bus/facility.js';
import { readPrivateKeyFile } from '../../src/cli/bus-keys.js';
import { loadFacility } from '../../src/cli/facility-file.js';

let folder = '';
afterEach(() => rm(folder, { recursive: true, force: true }));

it("writes a facility file the CLI loads and the poller's key file, matching the facility's key for it", async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-bench-files-'));
  const made = generatedFacility('main', ['poller-main'], ['panel-0', 'panel-1'], { 'panel-1': ['read'] });
  const files = await made.writeFiles(folder, 'poller-main');
  const loaded = await loadFacility(files.facility);
  expect([...loaded.pollers.keys()]).toEqual(['poller-main']);
  expect([...loaded.panels.keys()]).toEqual(['panel-0', 'panel-1']);
  const keyText = (key: KeyObject | undefined) => (key === undefined ? 'none' : publicKeyText(key));
  for (const [id, panel] of loaded.panels) expect(keyText(panel.publicKey)).toBe(keyText(made.facility.panels.get(id)?.publicKey));
  expect(loaded.panels.get('panel-1')?.may).toEqual(made.facility.panels.get('panel-1')?.may);
  const { publicKey } = readPrivateKeyFile(files.keyFile, '--mqtt-key-file');
  expect(keyText(publicKey)).toBe(keyText(loaded.pollers.get('poller-main')?.publicKey));
  expect((await stat(files.keyFile)).mode & 0o777).toBe(0o600);
});

it('with several recorders: each poller may poll its own, every panel may read and control them all', async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-bench-files-'));
  const made = generatedFacilityOf({ 'poller-rec-0': 'rec-0', 'poller-rec-1': 'rec-1' }, ['panel-0']);
  const files = await made.writeFiles(folder, 'panel-0');
  const loaded = await loadFacility(files.facility);
  expect(Object.fromEntries([...loaded.pollers].map(([id, p]) => [id, [...p.recorders]]))).toEqual({ 'poller-rec-0': ['rec-0'], 'poller-rec-1': ['rec-1'] });
  expect([...(loaded.panels.get('panel-0')?.may.keys() ?? [])]).toEqual(['rec-0', 'rec-1']);
  expect(loaded.panels.get('panel-0')?.may).toEqual(made.facility.panels.get('panel-0')?.may);
  const keyText = (key: KeyObject | undefined) => (key === undefined ? 'none' : publicKeyText(key));
  expect(keyText(readPrivateKeyFile(files.keyFile, '--mqtt-key-file').publicKey)).toBe(keyText(loaded.panels.get('panel-0')?.publicKey));
});
