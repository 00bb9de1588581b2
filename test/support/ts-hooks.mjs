// Node's module hooks that let vitest's workers import the TypeScript of src/ and test/ natively
// (vitest.config.ts: `experimental.viteModuleRunner: false`), each file compiled by esbuild in the
// worker's own hooks thread. Before, every module a worker imported went to vitest's one main process,
// through three vite servers (one per project, so most of src/ was compiled three times) and back, one
// request at a time: the run's first test began 14 s in, most of it workers waiting for that process.
// Registered by ts-register.mjs, a setup file, in the test workers only (not in the threads or processes
// a test starts). Plain JavaScript: it is what lets the workers load TypeScript.
//
// What it does is what tsc does for these files, no more: strips the types (esbuild, with the
// tsconfig.json options that change what is emitted), and resolves `./x.js` to `./x.ts` the way tsc's
// nodenext resolution does, for our own files only (never inside node_modules). The type-check stays
// tsc's (`npm test` runs it first); source maps are kept inline, so a failure points at the .ts line.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** tsconfig.json's options that change the emitted JavaScript (the rest are the type-check's). */
const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } };

/** esbuild, loaded at the first TypeScript file (a worker of a run loads hundreds). */
let esbuild;

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../')) && parent?.startsWith('file:') && !parent.includes('/node_modules/')) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, parent);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  // vitest adds a query to a test file's URL (`?vitest=<time>`).
  const path = url.split('?')[0];
  if (!path.startsWith('file:') || !path.endsWith('.ts') || path.includes('/node_modules/')) return nextLoad(url, context);
  esbuild ??= await import('esbuild');
  const file = fileURLToPath(path);
  const { code } = esbuild.transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file, tsconfigRaw: TSCONFIG });
  return { format: 'module', source: code, shortCircuit: true };
}
