// Whether a value is plain data: what structuredClone copies exactly and isDeepStrictEqual compares
// by content. Kept copies (a profile text's checked value, the simulator's last encoded answer) are
// made only of such values: a class instance would come back from a copy as a plain object, a Buffer as
// a Uint8Array, and a function would throw.

/** Strings, numbers, booleans, null, undefined, and arrays and plain objects of them. */
export function isPlainData(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object') return false;
  if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype && value.every(isPlainData);
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.getOwnPropertySymbols(value).length === 0 && Object.values(value).every(isPlainData);
}
