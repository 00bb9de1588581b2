// Remote presses work on hardware surfaces too: a Stream Deck XL (the real library over a fake HID
// device) bound to the shipped XL profile, driven through the remote API. Integration, not e2e: the
// bridge and its server run in this process, and the page's side is a WebSocket client (no browser).
import { DeviceModelId } from '@elgato-stream-deck/core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import { StreamDeckSurface } from '../../src/surfaces/streamdeck/streamdeck-surface.js';
import { openFakeStreamDeck } from '../support/fake-hid.js';
import { PageModel } from '../support/page-model.js';
import { TEST_MS, WAIT_MS } from '../support/remote.js';
import { until } from '../support/until.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { realClock } from '../../src/api/clock.js';
import { realTime } from '../../src/engine/engine-time.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let sim: SimulatorFixture;
let running: RunningBridge;

beforeAll(async () => {
  sim = await startFixture({ clock: realClock, grid: 16, tickMs: 1000 });
  const { deck } = await openFakeStreamDeck(DeviceModelId.XL, { serial: 'CL00REMOTE' });
  const surface = new StreamDeckSurface(deck, { time: realTime, serial: 'CL00REMOTE', log: quiet, onFailure: () => undefined });
  const neo = await openFakeStreamDeck(DeviceModelId.NEO, { serial: 'CL00NEO' });
  const neoSurface = new StreamDeckSurface(neo.deck, { time: realTime, serial: 'CL00NEO', log: quiet, onFailure: () => undefined });
  running = await startBridge(
    {
      recorderFlags: [sim.sim.url],
      tokenFlags: [sim.sim.token],
      profilePaths: [new URL('../../profiles', import.meta.url).pathname],
      pollMs: 100,
      env: {},
      web: { host: '127.0.0.1', port: 0, password: null },
      surfaces: [surface, neoSurface],
      sources: [],
    },
    quiet,
  );
}, TEST_MS);
afterAll(async () => {
  await running?.stop();
  await sim?.close();
}, TEST_MS);

describe('remote API on a hardware surface', { timeout: TEST_MS }, () => {
  it('lists the deck with its shipped profile, presses its key, and serves the key picture', async () => {
    const base = running.remote?.url as string;
    const list = await request(`${base}/surfaces/streamdeck:CL00REMOTE`);
    const deck = (await list.body.json()) as { kind: string; model: string; profile: string; controls: unknown[] };
    expect(deck).toMatchObject({ kind: 'streamdeck', model: 'xl', profile: 'Stream Deck XL' });
    expect(deck.controls).toHaveLength(32);

    const before = sim.sim.log.list().at(-1)?.seq ?? 0;
    const press = await request(`${base}/surfaces/streamdeck:CL00REMOTE/keys/0/press`, { method: 'POST' });
    expect(press.statusCode).toBe(200);
    await press.body.dump();
    await until(() => sim.sim.log.list().some((r) => r.seq > before && r.method === 'PUT'), 'the request', WAIT_MS);
    expect(sim.sim.log.list().filter((r) => r.seq > before && r.method === 'PUT').map((r) => r.path)).toEqual(['/api/channels/0/rec-start']);

    const png = await request(`${base}/surfaces/streamdeck:CL00REMOTE/keys/0.png`);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect((await png.body.arrayBuffer()).byteLength).toBeGreaterThan(500);
  });

  it('the web page mirrors it: the hello lists it after the web decks, and its key images follow', async () => {
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(`${(running.remote?.url as string).replace('http', 'ws')}/ws`);
    const page = new PageModel();
    const leds: Array<{ surface: string; control: string; state: string }> = [];
    type Hello = { type: string; surfaces: Array<{ id: string; kind: string; layout: { columns: number; keySize: number } }> };
    let hello: Hello | undefined;
    socket.on('message', (data, isBinary) => {
      if (!isBinary) {
        const message = JSON.parse(data.toString()) as Hello & { surface: string; control: string; state: string };
        if (message.type === 'hello') hello = message;
        if (message.type === 'led') leds.push({ surface: message.surface, control: message.control, state: message.state });
        return;
      }
      page.apply(data as Buffer);
    });
    try {
      await until(() => hello !== undefined, 'the hello', WAIT_MS);
      const ids = hello?.surfaces.map((s) => s.id) ?? [];
      expect(ids).toEqual(['web:web-15', 'web:web-32', 'web:web-plus', 'streamdeck:CL00NEO', 'streamdeck:CL00REMOTE']);
      expect(hello?.surfaces[4]?.layout).toEqual({ columns: 8, keySize: 96 });
      // The Neo's touch keys are lights: their states are mirrored too.
      await until(() => leds.filter((l) => l.surface === 'streamdeck:CL00NEO').length >= 2, 'the Neo touch key lights', WAIT_MS);
      expect(leds.filter((l) => l.surface === 'streamdeck:CL00NEO').map((l) => l.control).sort()).toEqual(['key8', 'key9']);
      // The XL's 32 keys as the deck shows them, sent at once, and again as they change.
      await until(() => Array.from({ length: 32 }, (_, c) => page.image(4, c)).every((image) => image !== undefined), 'every XL key image', WAIT_MS);
      expect(Array.from({ length: 32 }, (_, c) => page.image(4, c)).every((image) => image?.width === 96 && image.height === 96)).toBe(true);
      // What is drawn in one turn (the whole deck at connect) leaves together: fewer messages than frames.
      expect(page.messages).toBeLessThan(page.frames.length / 2);
      const seen = page.frames.length;
      await sim.client.recStart(5);
      // A key the page has is sent only the part that changed.
      await until(() => page.frames.slice(seen).some((f) => f.panel === 4 && f.control === 5 && f.rect), 'channel 6 key redrawn, as a changed rectangle', WAIT_MS);
    } finally {
      socket.close();
      await sim.client.recStop(5);
    }
  });
});
