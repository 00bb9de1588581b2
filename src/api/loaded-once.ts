// A package required at its first use, then kept: the one shape of the lazy loaders (yaml-library.ts,
// sharp-library.ts, opentype-library.ts), whose packages a process that never needs them never loads.
//
// It takes the loading function, not the package's name, because the require must stay in each
// loader's own file: esbuild cannot follow `createRequire(import.meta.url)(name)`, and the Stream Deck
// plugin's bundle (scripts/build-plugin.mjs, which runs from a folder with no node_modules) swaps that
// exact call in each of those files, found by the file's path, for a static import of the package. A
// require here, by a name passed in, would leave the bundle a require it cannot satisfy on a desk.

/** `load`'s result, made at the first call and kept for every later one; a load that throws is tried again at the next call. */
export function loadedOnce<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
