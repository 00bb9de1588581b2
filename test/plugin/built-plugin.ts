// The plugin as `npm run build` leaves it (dist/plugin/main.js, the entry the bundle is made from), in a
// plugin folder as the app installs one: the manifest and images the build writes, a CodePath that loads
// the built entry, and on request the property inspector bundled for the browser. A real Node process
// runs it (FakeStreamDeckApp.launch) for the tests whose part is a real process beside Mosquitto or
// chromium, without paying for a pack: the one packed plugin is streamdeck-plugin.test.ts's.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { pluginFolderFiles } from '../../src/plugin/manifest.js';
import { PLUGIN_UUID, type PluginFolder } from './packed-plugin.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY = join(ROOT, 'dist/plugin/main.js');

/** Refuses a dist/ older than the plugin's sources: the test would run yesterday's plugin. */
function builtEntry(): string {
  let built: number;
  try {
    built = statSync(ENTRY).mtimeMs;
  } catch {
    throw new Error(`${ENTRY} is missing: run npm run build first`);
  }
  const sources = join(ROOT, 'src/plugin');
  const newer = readdirSync(sources).filter((file) => file.endsWith('.ts') && statSync(join(sources, file)).mtimeMs > built);
  if (newer.length > 0) throw new Error(`dist/ is older than src/plugin/${newer.join(', src/plugin/')}: run npm run build first`);
  return ENTRY;
}

export async function builtPluginFolder(options: { inspector?: boolean } = {}): Promise<PluginFolder> {
  const entry = builtEntry();
  const work = mkdtempSync(join(tmpdir(), 'recdeck-plugin-built-'));
  const folder = join(work, `${PLUGIN_UUID}.sdPlugin`);
  const write = (path: string, content: string | Uint8Array) => {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), content);
  };
  for (const file of pluginFolderFiles('0.1.0.0')) write(file.path, file.content);
  const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { CodePath: string };
  write(manifest.CodePath, `import ${JSON.stringify(pathToFileURL(entry).href)};\n`);
  write(join(dirname(manifest.CodePath), 'package.json'), '{ "type": "module" }\n');
  if (options.inspector === true) {
    // As scripts/build-plugin.mjs bundles it for the app's browser (whose type-check and pack are
    // streamdeck-plugin.test.ts's build).
    await esbuild.build({ entryPoints: [join(ROOT, 'src/plugin/inspector/inspector.ts')], outfile: join(folder, 'ui/inspector.js'), bundle: true, platform: 'browser', target: 'chrome120', format: 'iife', logLevel: 'warning' });
    copyFileSync(join(ROOT, 'src/plugin/inspector/inspector.html'), join(folder, 'ui/inspector.html'));
  }
  return { folder, remove: () => rmSync(work, { recursive: true, force: true }) };
}
