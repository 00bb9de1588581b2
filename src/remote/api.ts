// The remote-control API: JSON over HTTP for integrators (and the tests). Every surface can be driven,
// hardware ones too; every answer names what was wrong when something was.
import type { IncomingMessage } from 'node:http';
import { delay } from '../api/clock.js';
import type { Bridge } from '../engine/bridge.js';
import type { SurfaceSession } from '../engine/surface-session.js';
import type { ControlDefinition, SurfaceInput } from '../engine/surface.js';
import { pngOf } from './png.js';
import { readiness } from './readiness.js';
import { stateView } from './state-view.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What this process knows is wrong with its hold on a recorder beyond its state (a bus poller whose
 * lease renewals come back late, before the lease lapses), given by src/cli: none when it knows nothing.
 */
export type RecorderWarnings = (recorder: string) => readonly string[];

export interface ApiContext {
  bridge: Bridge;
  metricsText: () => Promise<string>;
  warnings?: RecorderWarnings | undefined;
}

/** Keys are numbered among the pressable controls with no dial: keys, pedals, pads and buttons. */
const isKeyLike = (c: ControlDefinition) => c.kind === 'key' || c.kind === 'button';

export function surfaceSummary(session: SurfaceSession) {
  const { surface } = session;
  return {
    id: surface.id,
    kind: surface.kind,
    model: surface.model,
    name: surface.name,
    ...(surface.serial === undefined ? {} : { serial: surface.serial }),
    profile: session.profileName,
    page: session.currentPage,
    controls: session.describeControls().map(({ control, picture, binding }) => {
      const { show: _show, ...does } = binding ?? {};
      return { ...control, shows: picture, does };
    }),
  };
}

function sessionOf(bridge: Bridge, id: string): SurfaceSession {
  const session = bridge.session(id);
  if (!session) throw new ApiError(404, `no surface "${id}"; the surfaces are: ${bridge.surfaceSessions().map((s) => s.surface.id).join(', ') || 'none'}`);
  return session;
}

function controlAt(session: SurfaceSession, kind: 'key' | 'encoder', indexText: string): ControlDefinition {
  const candidates = session.surface.controls.filter(kind === 'key' ? isKeyLike : (c) => c.kind === 'encoder');
  const index = Number(indexText);
  if (!/^\d+$/.test(indexText) || index >= candidates.length) {
    const range = candidates.length === 0 ? `it has no ${kind}s` : `expected 0 to ${candidates.length - 1}`;
    throw new ApiError(404, `surface "${session.surface.id}" has no ${kind} ${JSON.stringify(indexText)}: ${range}`);
  }
  return candidates[index] as ControlDefinition;
}

function integerParam(url: URL, name: string, min: number, max: number, fallback: number | null): number {
  const text = url.searchParams.get(name);
  if (text === null) {
    if (fallback === null) throw new ApiError(400, `${name}: expected a whole number from ${min} to ${max}, got nothing`);
    return fallback;
  }
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < min || value > max) throw new ApiError(400, `${name}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

/** Waits on the engine's clock, which the hold it measures runs on too. */

export type ApiAnswer = { status: number; type: string; body: string | Buffer };
const json = (value: unknown, status = 200): ApiAnswer => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(value) });

/** Answers an API request, or null when the path is not the API's. */
export async function answerApi(request: IncomingMessage, url: URL, context: ApiContext): Promise<ApiAnswer | null> {
  const method = request.method ?? 'GET';
  const parts = url.pathname.split('/').slice(1).map(decodePart);
  const { bridge } = context;

  // The process is alive (it answers): 200 whatever the recorders do; they are listed for information.
  if (url.pathname === '/healthz') {
    allow(method, 'GET');
    const recorders = stateView(bridge).recorders.map((r) => {
      const warnings = context.warnings?.(r.name) ?? [];
      return { name: r.name, freshness: r.freshness, ageS: r.ageS, ...(warnings.length === 0 ? {} : { warnings }) };
    });
    return json({ ok: true, recorders, surfaces: bridge.surfaceSessions().length });
  }
  // Ready: every recorder the bound profiles use is live; otherwise 503 with each one's reason.
  if (url.pathname === '/readyz') {
    allow(method, 'GET');
    const ready = readiness(bridge);
    return json(ready, ready.ready ? 200 : 503);
  }
  if (url.pathname === '/state') {
    allow(method, 'GET');
    return json(stateView(bridge));
  }
  if (url.pathname === '/metrics') {
    allow(method, 'GET');
    return { status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', body: await context.metricsText() };
  }
  if (parts[0] !== 'surfaces') return null;

  if (parts.length === 1) {
    allow(method, 'GET');
    return json(bridge.surfaceSessions().map(surfaceSummary));
  }
  const session = sessionOf(bridge, parts[1] as string);
  if (parts.length === 2) {
    allow(method, 'GET');
    return json(surfaceSummary(session));
  }
  const [, , group, index, verb] = parts;
  if (group === 'keys' && parts.length === 4 && index?.endsWith('.png')) {
    allow(method, 'GET');
    const control = controlAt(session, 'key', index.slice(0, -'.png'.length));
    if (control.kind !== 'key') throw new ApiError(404, `${session.surface.id} ${control.id} has no display`);
    const shown = session.describeControls().find((c) => c.control.id === control.id);
    const image = await bridge.renderer.render(shown?.picture ?? { kind: 'blank' }, control.pixelSize);
    // The bridge's renderer makes raw pixels (only the plugin's draws encoded pictures, and it serves no API).
    if ('encoding' in image) throw new ApiError(500, `${session.surface.id} ${control.id}: its renderer draws ${image.encoding}, not pixels`);
    return { status: 200, type: 'image/png', body: await pngOf(image) };
  }
  if (group === 'keys' && parts.length === 5 && index !== undefined) {
    allow(method, 'POST');
    const control = controlAt(session, 'key', index);
    const send = (input: SurfaceInput) => session.surface.inject(input);
    switch (verb) {
      case 'down':
        send({ type: 'down', control: control.id });
        break;
      case 'up':
        send({ type: 'up', control: control.id });
        break;
      case 'press': {
        const holdMs = integerParam(url, 'holdMs', 0, 10_000, 0);
        send({ type: 'down', control: control.id });
        if (holdMs > 0) await delay(bridge.time, holdMs);
        send({ type: 'up', control: control.id });
        break;
      }
      default:
        throw new ApiError(404, `no action ${JSON.stringify(verb)} on a key: expected down, up or press`);
    }
    return json({ ok: true, surface: session.surface.id, control: control.id });
  }
  if (group === 'encoders' && parts.length === 5 && index !== undefined) {
    allow(method, 'POST');
    const control = controlAt(session, 'encoder', index);
    if (verb !== 'rotate') throw new ApiError(404, `no action ${JSON.stringify(verb)} on an encoder: expected rotate`);
    const amount = integerParam(url, 'amount', -100, 100, null);
    if (amount === 0) throw new ApiError(400, 'amount: expected a non-zero whole number from -100 to 100, got 0');
    session.surface.inject({ type: 'rotate', control: control.id, amount });
    return json({ ok: true, surface: session.surface.id, control: control.id, amount });
  }
  throw new ApiError(404, `no route ${method} ${url.pathname}`);
}

/** A path segment with its percent-escapes decoded; a malformed one ("%", "%zz") is the client's error. */
export function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ApiError(400, `the path has a malformed percent-escape in ${JSON.stringify(part)}: write % as %25`);
  }
}

function allow(method: string, expected: 'GET' | 'POST'): void {
  if (method !== expected) throw new ApiError(405, `method ${method} not allowed here: expected ${expected}`);
}
