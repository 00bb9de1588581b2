// Matches a request to one operation of the interface by its path template.
import { isGridSize } from '../api/channel.js';
import { operations, type OperationId } from '../api/operations.js';
import { SimError } from './sim-error.js';

interface Route {
  id: OperationId;
  method: string;
  segments: readonly string[];
  /** Literal segments win over parameters (count/{n} before {index}). */
  literals: number;
}

const routes: Route[] = (Object.keys(operations) as OperationId[]).map((id) => {
  const { method, path } = operations[id];
  const segments = path.split('/').filter(Boolean);
  return { id, method, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
});

export type RouteMatch = { id: OperationId; params: Record<string, string | number> };

/**
 * The operation for a method and path, with its parameters decoded; null when no operation has that
 * path. A trailing slash is ignored (the interface lists presets at "/api/presets/").
 */
export function matchRoute(method: string, path: string): RouteMatch | null | 'method-not-allowed' {
  const segments = path.split('/').filter(Boolean);
  const candidates = routes
    .filter((route) => route.segments.length === segments.length && route.segments.every((s, i) => s.startsWith('{') || s === segments[i]))
    .sort((a, b) => b.literals - a.literals);
  if (candidates.length === 0) return null;
  const topLiterals = candidates[0]?.literals;
  const route = candidates.find((r) => r.method === method && r.literals === topLiterals) ?? candidates.find((r) => r.method === method);
  if (!route) return 'method-not-allowed';
  const params: Record<string, string | number> = {};
  route.segments.forEach((template, i) => {
    if (!template.startsWith('{')) return;
    const name = template.slice(1, -1);
    params[name] = decodeParam(name, segments[i] as string);
  });
  return { id: route.id, params };
}

function decodeParam(name: string, raw: string): string | number {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw new SimError(`${name}: malformed percent-encoding in ${JSON.stringify(raw)}`);
  }
  if (name === 'index' || name === 'grid_size') {
    if (!/^\d+$/.test(text)) throw new SimError(`${name}: expected a non-negative integer, got ${JSON.stringify(text)}`);
    const value = Number(text);
    if (name === 'grid_size' && !isGridSize(value)) throw new SimError(`grid_size: expected one of 1, 4, 9, 16, got ${value}`);
    return value;
  }
  return text;
}
