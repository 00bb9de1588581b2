// The packed plugin as an operator installs it: `scripts/build-plugin.mjs` (what `npm run plugin` runs)
// into a temporary folder, and the .streamDeckPlugin unzipped as the app unzips it. A build takes most of
// a minute on a busy machine: only streamdeck-plugin.test.ts makes one (built-plugin.ts serves the rest).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PLUGIN_UUID = 'com.recdeck.recorder';
const ROOT = new URL('../..', import.meta.url).pathname;

/** A plugin folder as the app installs one (`<UUID>.sdPlugin`). */
export interface PluginFolder {
  /** The installed folder, e.g. unzipped from the package. */
  folder: string;
  remove(): void;
}

export function buildPackedPlugin(): PluginFolder {
  const work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-plugin.mjs'), '--out', work], { stdio: 'pipe' });
  execFileSync('unzip', ['-q', join(work, `${PLUGIN_UUID}.streamDeckPlugin`), '-d', join(work, 'installed')]);
  return { folder: join(work, 'installed', `${PLUGIN_UUID}.sdPlugin`), remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** An app action UUID of the plugin's. */
export const actionUuid = (name: string): string => `${PLUGIN_UUID}.${name}`;
