// Which MIDI port a map means: an exact name, or a /regular expression/ (port names carry client numbers
// on Linux, which change when a device is plugged into another socket).
import { portRegex } from './midi-map.js';

export function portMatches(pattern: string, name: string): boolean {
  const regex = portRegex(pattern);
  if (regex === null) return name === pattern;
  return regex !== undefined && regex.test(name);
}

/** The first port the pattern matches that no other surface has taken. */
export function findPort(pattern: string, names: readonly string[], taken: ReadonlySet<string>): string | undefined {
  return names.find((name) => !taken.has(name) && portMatches(pattern, name));
}

/** The output port of a device: the one named like its input when the pattern allows, else the first match. */
export function findOutputPort(pattern: string, inputName: string, names: readonly string[]): string | undefined {
  if (names.includes(inputName) && portMatches(pattern, inputName)) return inputName;
  return names.find((name) => portMatches(pattern, name));
}

/** Exact names first: a map written for one port beats a pattern that happens to match it too. */
export function byExactnessFirst<T extends { ports: { input: string } }>(maps: readonly T[]): T[] {
  return [...maps].sort((a, b) => Number(portRegex(a.ports.input) !== null) - Number(portRegex(b.ports.input) !== null));
}
