// A dial never steps from a gain nobody has read: the shipped Web Plus deck with no page viewing it
// (so its meters are not fetched), driven and read through the real remote API over HTTP, the bridge on
// virtual time against the simulator. Another operator changes the gain on the recorder itself; the
// dial's description says how old the gain it shows is, and its next detent reads the gain at the press.
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { loadProfileFile } from '../../src/profiles/load.js';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import { WEB_LAYOUTS } from '../../src/surfaces/web/layouts.js';
import { WebSurface } from '../../src/surfaces/web/web-surface.js';
import { parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { realTime } from '../../src/engine/engine-time.js';

const MEMORY_PROFILE = 'name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 2 } }\n';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface ControlView {
  id: string;
  shows: { kind: string; gainDb?: number | null; freshness?: string; ageS?: number | null; levels?: number[] | null };
}

async function webPlusOverHttp(): Promise<{ f: BridgeFixture; server: RunningRemoteServer; web: WebSurface }> {
  const f = await startBridgeFixture({ profile: MEMORY_PROFILE });
  const layout = WEB_LAYOUTS['web-plus'];
  if (!layout) throw new Error('no web-plus layout');
  const shipped = await loadProfileFile(join(import.meta.dirname, '../../profiles/web-plus.yaml'));
  if (!shipped.ok) throw new Error(JSON.stringify(shipped.problems));
  const web = new WebSurface(layout, f.time);
  f.bridge.setProfiles([parseTestProfile(MEMORY_PROFILE, 'memory.yaml'), shipped.loaded]);
  f.bridge.addSurface(web);
  const server = await startRemoteServer({ time: realTime, bridge: f.bridge, log: quiet, port: 0 });
  cleanups.push(async () => {
    await server.close();
    await f.close();
  });
  return { f, server, web };
}

it('web:web-plus with no page open: after another operator sets +6 dB, the dial shows -2 dB as old, never live, and its next detent steps from +6', async () => {
  const { f, server } = await webPlusOverHttp();
  const api = async (method: 'GET' | 'POST', path: string) => {
    const answer = await request(`${server.url}${path}`, { method });
    const body = (await answer.body.json()) as unknown;
    await f.settle(); // the command a rotate starts is carried out before the test goes on
    return { status: answer.statusCode, body };
  };
  const dial0 = async () => ((await api('GET', '/surfaces/web:web-plus')).body as { controls: ControlView[] }).controls.find((c) => c.id === 'dial0')?.shows;
  await f.until(() => f.bridge.recorderStates()[0]?.sources !== null, 'the first slow poll');
  expect((await f.raw('PUT', '/api/sources/0', { body: '{"AudioGain":"0"}' })).status).toBe(200);
  await f.advance(1000);

  // The dial turned twice (gain 0 → -2 dB).
  let mark = f.mark();
  expect((await api('POST', '/surfaces/web:web-plus/encoders/0/rotate?amount=-2')).status).toBe(200);
  await f.advance(20);
  expect((await api('POST', '/surfaces/web:web-plus/encoders/0/rotate?amount=-2')).status).toBe(200);
  await f.advance(20);
  expect(f.writesSince(mark)).toEqual(['PUT /api/sources/0 {"AudioGain":"-1.0"}', 'PUT /api/sources/0 {"AudioGain":"-2.0"}']);
  expect(await dial0()).toMatchObject({ kind: 'meter', gainDb: -2, freshness: 'live' }); // just written: this bridge owns it

  // Another operator (or the recorder's own screen) sets +6 dB.
  expect((await f.raw('PUT', '/api/sources/0', { body: '{"AudioGain":"6"}' })).status).toBe(200);
  for (let second = 1; second <= 6; second++) {
    await f.advance(1000);
    const shown = await dial0();
    // What it shows is the last gain it knew, with its age: never claimed as live.
    expect(shown).toMatchObject({ kind: 'meter', gainDb: -2, freshness: 'stale', levels: null });
    expect(shown?.ageS).toBeGreaterThanOrEqual(second - 1);
  }

  mark = f.mark();
  expect((await api('POST', '/surfaces/web:web-plus/encoders/0/rotate?amount=1')).status).toBe(200);
  await f.advance(50);
  expect(f.writesSince(mark)).toEqual(['PUT /api/sources/0 {"AudioGain":"6.5"}']);
  expect(f.commands.at(-1)).toMatchObject({ control: 'dial0', action: 'gain-step', result: 'ok' });
  expect(await dial0()).toMatchObject({ gainDb: 6.5, freshness: 'live' });
});
