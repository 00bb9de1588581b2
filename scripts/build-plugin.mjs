// `npm run plugin`: builds the Stream Deck app plugin into dist/streamdeck-plugin/<UUID>.sdPlugin/ and
// packs it with Elgato's CLI into dist/<UUID>.streamDeckPlugin.
//
// The app runs the plugin with its own Node 20 on Windows and macOS, from the folder as it is: so the
// plugin's code (src/plugin/main.ts and all it imports) is bundled by esbuild into one file for Node 20,
// with no node_modules tree and no native module (the build fails if one gets in: sharp, which the
// bridge draws with, is not reachable from the plugin, whose tiles are SVG the app draws). The fonts the
// tiles' text outlines come from are copied beside it. The manifest and its images are made from the
// plugin's action list, and the property inspector is bundled for the app's browser (no internet there).
//
//   node scripts/build-plugin.mjs [--out DIR]   DIR: where the folder and the package go (default dist/)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UUID = 'com.recdeck.recorder';
const outArg = process.argv.indexOf('--out');
const OUT = outArg >= 0 ? process.argv[outArg + 1] : join(ROOT, 'dist');
const FOLDER = join(OUT, 'streamdeck-plugin', `${UUID}.sdPlugin`);
const FONTS = ['DejaVuSansCondensed-Bold.ttf', 'DejaVuSansCondensed.ttf', 'DejaVuSansMono-Bold.ttf'];
const NATIVE = /(^|\/)node_modules\/(sharp|@img|node-hid|usb|@julusian|bufferutil|utf-8-validate)\//;

// font.ts finds the DejaVu files through node_modules; in the plugin folder they are beside the bundle.
const FONT_LOOKUP = 'requireHere.resolve(`dejavu-fonts-ttf/ttf/${FACE_FILES[face]}`)';
const fontsBesideBundle = {
  name: 'fonts-beside-bundle',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]render[\\/]font\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(FONT_LOOKUP)) throw new Error(`src/render/font.ts no longer finds its fonts with ${FONT_LOOKUP}: update scripts/build-plugin.mjs`);
      return { contents: source.replace(FONT_LOOKUP, 'new URL(`./fonts/${FACE_FILES[face]}`, import.meta.url)'), loader: 'ts' };
    });
  },
};

// yaml-library.ts requires yaml at its first use (a bridge reading only the shipped profiles never loads it),
// opentype-library.ts opentype.js (a bridge that draws nothing never loads it), undici-pool.ts undici's pool
// from its own file (not the whole package): requires esbuild cannot follow. The plugin folder has no
// node_modules, so the bundle takes each from the package's entry (`take`: the part the require gave).
function requiredInBundle(name, file, pkg, { from = pkg, take = '' } = {}) {
  const lookup = `createRequire(import.meta.url)('${pkg}')`;
  const filter = new RegExp(`[\\\\/]src[\\\\/]${file.replaceAll('/', '[\\\\/]').replaceAll('.', '\\.')}$`);
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(lookup)) throw new Error(`src/${file} no longer loads ${pkg} with ${lookup}: update scripts/build-plugin.mjs`);
        return { contents: `import * as bundledLibrary from '${from}';\n${source.replace(lookup, `bundledLibrary${take}`)}`, loader: 'ts' };
      });
    },
  };
}
const yamlInBundle = requiredInBundle('yaml-in-bundle', 'profiles/yaml-library.ts', 'yaml');
const opentypeInBundle = requiredInBundle('opentype-in-bundle', 'render/opentype-library.ts', 'opentype.js');
const undiciPoolInBundle = requiredInBundle('undici-pool-in-bundle', 'api/undici-pool.ts', 'undici/lib/dispatcher/pool.js', { from: 'undici', take: '.Pool' });

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

rmSync(FOLDER, { recursive: true, force: true });
mkdirSync(FOLDER, { recursive: true });

// The plugin's code, for the app's Node 20.
const plugin = await esbuild.build({
  entryPoints: [join(ROOT, 'src/plugin/main.ts')],
  outfile: join(FOLDER, 'bin/plugin.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // ws tries these optional native helpers and does without them.
  external: ['bufferutil', 'utf-8-validate'],
  // Bundled CommonJS modules call require(): give the bundle one.
  banner: { js: "import { createRequire as __recdeckRequire } from 'node:module'; const require = __recdeckRequire(import.meta.url);" },
  plugins: [fontsBesideBundle, yamlInBundle, opentypeInBundle, undiciPoolInBundle],
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
const native = Object.keys(plugin.metafile.inputs).filter((input) => NATIVE.test(input) || input.endsWith('.node'));
if (native.length > 0) throw new Error(`the plugin bundle reaches native modules, which the app's Node cannot load on every desk: ${native.join(', ')}`);
for (const [pkg, file] of [['yaml', 'profiles/yaml-library.ts'], ['opentype.js', 'render/opentype-library.ts'], ['undici', 'api/undici-pool.ts']]) {
  if (!Object.keys(plugin.metafile.inputs).some((input) => input.includes(`node_modules/${pkg}/`))) throw new Error(`the plugin bundle does not hold ${pkg} (src/${file}): the plugin folder has no node_modules to load it from`);
}
write(join(FOLDER, 'bin/package.json'), '{ "type": "module" }\n');
const requireHere = createRequire(import.meta.url);
for (const font of FONTS) {
  mkdirSync(join(FOLDER, 'bin/fonts'), { recursive: true });
  copyFileSync(requireHere.resolve(`dejavu-fonts-ttf/ttf/${font}`), join(FOLDER, 'bin/fonts', font));
}
copyFileSync(requireHere.resolve('dejavu-fonts-ttf/LICENSE'), join(FOLDER, 'bin/fonts/LICENSE'));

// The property inspector, for the app's browser, checked with the DOM's types first. On one thread:
// TypeScript 7's checkers in parallel cost 4.8-5.2 s of CPU for this small program against 2.0-2.1 s
// on one, and were no sooner on a loaded machine (`/usr/bin/time node node_modules/typescript/bin/tsc -p
// src/plugin/inspector/tsconfig.json [--singleThreaded]`, A B A B, load 14, 2026-11-29).
execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'src/plugin/inspector/tsconfig.json'), '--singleThreaded'], { stdio: 'inherit' });
await esbuild.build({
  entryPoints: [join(ROOT, 'src/plugin/inspector/inspector.ts')],
  outfile: join(FOLDER, 'ui/inspector.js'),
  bundle: true,
  platform: 'browser',
  target: 'chrome120',
  format: 'iife',
  logLevel: 'warning',
});
copyFileSync(join(ROOT, 'src/plugin/inspector/inspector.html'), join(FOLDER, 'ui/inspector.html'));

// The manifest and images, from the action list (a build-time bundle of manifest.ts, run here).
// Inside the repository, so that the packages it leaves external resolve from its node_modules.
const builder = join(ROOT, 'dist', `.plugin-manifest-${process.pid}.mjs`);
await esbuild.build({ entryPoints: [join(ROOT, 'src/plugin/manifest.ts')], outfile: builder, bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning' });
const { pluginFolderFiles } = await import(pathToFileURL(builder).href);
rmSync(builder);
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
for (const file of pluginFolderFiles(`${version}.0`)) write(join(FOLDER, file.path), file.content);

// Elgato's own checks, then the package (offline: no schema update check). `pack` runs the same checks
// as `validate` first (@elgato/cli 1.9: it prints any error or warning and packs nothing on an error;
// --ignore-validation, not given, would pack anyway), so one process does both: a second Node start and
// load of Elgato's CLI cost 2 s of CPU.
const cli = join(ROOT, 'node_modules/@elgato/cli/bin/streamdeck.mjs');
execFileSync(process.execPath, [cli, 'pack', FOLDER, '--output', OUT, '--force', '--no-update-check', '--no-file-list'], { stdio: 'inherit' });
console.log(`built ${relative(ROOT, FOLDER) || FOLDER} and ${relative(ROOT, join(OUT, `${UUID}.streamDeckPlugin`))}`);
