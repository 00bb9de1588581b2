// The remote-control API, each endpoint against the real bridge and simulator; and its security: the
// password when one is set, other sites' requests refused, and no secret in any answer.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteServer } from '../../src/remote/server.js';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { realTime } from '../../src/engine/engine-time.js';

const STREAM_KEY = 'demo-stream-key-not-secret';

describe('remote API', () => {
  let f: RemoteFixture;
  const answers: string[] = [];
  const call = async (method: string, path: string, headers?: Record<string, string>) => {
    const answer = await f.call(method, path, headers);
    if (!answer.type.startsWith('image/')) answers.push(answer.text);
    return answer;
  };
  const writes = (since: number) => f.sim.sim.log.list().filter((r) => r.seq > since && r.method !== 'GET').map((r) => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ''}`);
  const mark = () => f.sim.sim.log.list().at(-1)?.seq ?? 0;
  /**
   * That a refused press wrote nothing: a press the bridge takes, sent after it, is written alone (a
   * press that got through would have been written before it), then undone.
   */
  const refusedPressWroteNothing = async (before: number) => {
    expect((await call('POST', '/surfaces/web:web-15/keys/3/press')).status).toBe(200);
    await until(() => writes(before).length > 0, 'the press after it');
    expect(writes(before)).toEqual(['PUT /api/channels/3/rec-start']);
    await f.sim.client.recStop(3);
  };

  beforeAll(async () => {
    f = await startRemoteFixture();
    await until(() => f.running.bridge.recorderStates()[0]?.sources !== null, 'the first slow poll');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('GET /healthz says the bridge runs and how each recorder is', async () => {
    const answer = await call('GET', '/healthz');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ ok: true, recorders: [{ name: 'main', freshness: 'live' }], surfaces: 3 });
  });

  it('GET /surfaces lists each surface with its controls, layout, what each shows and does', async () => {
    const answer = await call('GET', '/surfaces');
    expect(answer.status).toBe(200);
    const surfaces = answer.json as Array<{ id: string; kind: string; model: string; controls: Array<{ id: string; kind: string; row?: number; shows: { kind: string }; does: Record<string, unknown> }> }>;
    expect(surfaces.map((s) => s.id).sort()).toEqual(['web:web-15', 'web:web-32', 'web:web-plus']);
    const deck = surfaces.find((s) => s.id === 'web:web-15');
    expect(deck?.controls).toHaveLength(15);
    expect(deck?.controls[0]).toMatchObject({ id: 'key0', kind: 'key', row: 0, column: 0, pixelSize: { width: 96, height: 96 }, shows: { kind: 'channel', channel: 1 }, does: { press: { action: 'rec-start', channel: 1 }, hold: { ms: 1000, do: { action: 'rec-stop', channel: 1 } } } });
    const plus = await call('GET', `/surfaces/${encodeURIComponent('web:web-plus')}`);
    expect((plus.json as { controls: Array<{ id: string; kind: string }> }).controls.filter((c) => c.kind === 'encoder').map((c) => c.id)).toEqual(['dial0', 'dial1', 'dial2', 'dial3']);
  });

  it('POST …/keys/0/press starts channel 1; the key PNG shows the recording colour', async () => {
    const before = mark();
    const answer = await call('POST', '/surfaces/web:web-15/keys/0/press');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ ok: true, surface: 'web:web-15', control: 'key0' });
    await until(() => writes(before).length > 0, 'the request');
    expect(writes(before)).toEqual(['PUT /api/channels/0/rec-start']);
    await until(async () => {
      const png = await call('GET', '/surfaces/web:web-15/keys/0.png');
      if (png.status !== 200 || png.type !== 'image/png') return false;
      const { data, info } = await sharp(png.body).raw().toBuffer({ resolveWithObject: true });
      let red = 0;
      for (let p = 0; p < info.width * info.height; p++) {
        const [r, g, b] = [data[p * info.channels] as number, data[p * info.channels + 1] as number, data[p * info.channels + 2] as number];
        if (Math.abs(r - 0xd5) < 24 && Math.abs(g - 0x5e) < 24 && Math.abs(b - 0x00) < 24) red++;
      }
      return info.width === 96 && red / (info.width * info.height) > 0.15;
    }, 'the key image to show recording');
  });

  it('press?holdMs= holds: the long-press stop fires only after its hold', async () => {
    let before = mark();
    await call('POST', '/surfaces/web:web-15/keys/0/press?holdMs=300');
    await until(() => writes(before).length > 0, 'the press');
    expect(writes(before)).toEqual(['PUT /api/channels/0/rec-start']); // released early: a short press
    const first = before;
    before = mark();
    expect((await call('POST', '/surfaces/web:web-15/keys/0/press?holdMs=1200')).status).toBe(200);
    await until(() => writes(before).length > 0, 'the stop');
    expect(writes(before)).toEqual(['PUT /api/channels/0/rec-stop']);
    expect(writes(first)).toEqual(['PUT /api/channels/0/rec-start', 'PUT /api/channels/0/rec-stop']); // the short press held nothing
  });

  it('POST …/down and …/up are a press in two requests', async () => {
    const before = mark();
    expect((await call('POST', '/surfaces/web:web-15/keys/1/down')).status).toBe(200);
    expect(writes(before)).toEqual([]);
    expect((await call('POST', '/surfaces/web:web-15/keys/1/up')).status).toBe(200);
    await until(() => writes(before).length > 0, 'the request');
    expect(writes(before)).toEqual(['PUT /api/channels/1/rec-start']);
    await f.sim.client.recStop(1);
  });

  it('POST …/encoders/0/rotate?amount=N turns the dial by N detents', async () => {
    await until(() => f.running.bridge.session('web:web-plus') !== undefined, 'the plus deck');
    // No page is open, so no meter is read for the dial: the step reads the gain first, then steps from it.
    await until(() => f.running.bridge.recorderStates()[0]?.sources !== null, 'the sources');
    const before = mark();
    const answer = await call('POST', '/surfaces/web:web-plus/encoders/0/rotate?amount=-3');
    expect(answer.json).toEqual({ ok: true, surface: 'web:web-plus', control: 'dial0', amount: -3 });
    await until(() => writes(before).length > 0, 'the request');
    expect(writes(before)).toEqual(['PUT /api/sources/0 {"AudioGain":"-1.5"}']);
  });

  it('GET /state has recorders with freshness and age, channels, the dialog and each surface\'s page', async () => {
    await f.sim.client.recStart(2);
    await until(async () => ((await call('GET', '/state')).json as { recorders: Array<{ channels: Array<{ state: string }> }> }).recorders[0]?.channels[2]?.state === 'recording', 'channel 3 recording');
    const state = (await call('GET', '/state')).json as { recorders: Array<Record<string, unknown> & { channels: unknown[] }>; surfaces: unknown[] };
    expect(state.recorders[0]).toMatchObject({ name: 'main', url: f.sim.sim.url, freshness: 'live', ageS: 0, dialog: { shown: false } });
    expect(state.recorders[0]?.channels).toHaveLength(16);
    expect(state.recorders[0]?.channels[2]).toMatchObject({ number: 3, state: 'recording', source: 'Cam 3', destinations: ['Local Disk'] });
    expect(state.surfaces).toContainEqual(expect.objectContaining({ id: 'web:web-15', profile: 'Web 15 keys', page: { name: 'Channels 1-8', number: 1, count: 3 } })); // the Dialog overlay is not one of the pages operators step through
    await f.sim.client.recStop(2);
  });

  it('GET /metrics is Prometheus text with commands, press-to-request latency, polls and renders', async () => {
    // The recorder's data is live unless a poll is late: on a loaded machine (a second copy of the suite
    // beside this one) it read 0 at one instant once. The metric is asked for until it says live, then read.
    const live = /^recdeck_recorder_live\{recorder="main"\} 1$/m;
    await until(async () => live.test((await call('GET', '/metrics')).text), 'the recorder live in /metrics');
    const answer = await call('GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('text/plain');
    expect(answer.text).toMatch(/^recdeck_commands_total\{action="rec-start",result="ok"\} [1-9]/m);
    expect(answer.text).toMatch(/^recdeck_press_to_request_seconds_count [1-9]/m);
    expect(answer.text).toMatch(/^recdeck_recorder_request_seconds_count\{recorder="main",method="GET",outcome="ok"\} [1-9]/m);
    expect(answer.text).toMatch(/^recdeck_renders_total [1-9]/m);
    expect(answer.text).toMatch(/^recdeck_render_fast_paths_total \d+/m);
    expect(answer.text).toMatch(/^recdeck_recorder_live\{recorder="main"\} [01]$/m);
  });

  it('unknown surfaces, keys, actions and bad parameters are 4xx with a JSON error naming them', async () => {
    const cases: Array<[string, string, number, RegExp]> = [
      ['GET', '/surfaces/web:nope', 404, /no surface "web:nope"; the surfaces are: web:web-15/],
      ['POST', '/surfaces/web:web-15/keys/15/press', 404, /no key "15": expected 0 to 14/],
      ['POST', '/surfaces/web:web-15/keys/x/press', 404, /no key "x"/],
      ['GET', '/surfaces/web:web-15/keys/99.png', 404, /no key "99"/],
      ['POST', '/surfaces/web:web-15/keys/0/smash', 404, /no action "smash" on a key: expected down, up or press/],
      ['POST', '/surfaces/web:web-15/keys/0/press?holdMs=long', 400, /holdMs: expected a whole number from 0 to 10000, got "long"/],
      ['POST', '/surfaces/web:web-15/keys/0/press?holdMs=20000', 400, /holdMs: expected a whole number from 0 to 10000/],
      ['POST', '/surfaces/web:web-15/encoders/0/rotate?amount=1', 404, /has no encoder "0": it has no encoders/],
      ['POST', '/surfaces/web:web-plus/encoders/0/rotate', 400, /amount: expected a whole number from -100 to 100, got nothing/],
      ['POST', '/surfaces/web:web-plus/encoders/0/rotate?amount=0', 400, /amount: expected a non-zero whole number/],
      ['GET', '/surfaces/web:web-15/keys/0/press', 405, /method GET not allowed here: expected POST/],
      ['POST', '/state', 405, /expected GET/],
      ['GET', '/nothing-here', 404, /no route GET \/nothing-here/],
    ];
    for (const [method, path, status, message] of cases) {
      const answer = await call(method, path);
      expect({ path, status: answer.status }).toEqual({ path, status });
      expect(answer.type).toContain('application/json');
      expect((answer.json as { error: string }).error).toMatch(message);
    }
  });

  it('another site cannot drive the bridge through the operator\'s browser', async () => {
    const before = mark();
    const answer = await call('POST', '/surfaces/web:web-15/keys/3/press', { origin: 'https://evil.example' });
    expect(answer.status).toBe(403);
    expect((answer.json as { error: string }).error).toContain('https://evil.example');
    await refusedPressWroteNothing(before);
  });

  it('on loopback it answers to loopback names only, so a rebound web name cannot reach it', async () => {
    const before = mark();
    const answer = await call('POST', '/surfaces/web:web-15/keys/3/press', { host: 'attacker.example:7900', origin: 'http://attacker.example:7900' });
    expect(answer.status).toBe(421);
    expect((answer.json as { error: string }).error).toContain('attacker.example:7900');
    expect((await call('GET', '/healthz', { host: 'localhost:7900' })).status).toBe(200);
    await refusedPressWroteNothing(before);
  });

  it('no answer, page or metric carries the recorder token or a stream key', async () => {
    for (const path of ['/', '/deck.js', '/state', '/surfaces', '/metrics', '/healthz']) answers.push((await call('GET', path)).text);
    const all = answers.join('\n');
    expect(all).not.toContain(f.sim.sim.token);
    expect(all).not.toContain(f.sim.sim.token.replace('perm:', ''));
    expect(all).not.toContain(STREAM_KEY);
    expect(f.logs.join('\n')).not.toContain(f.sim.sim.token);
  });
});

describe('remote API with a password', () => {
  let f: RemoteFixture;
  beforeAll(async () => {
    f = await startRemoteFixture({ password: 'correct horse' });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('every request needs it: none or a wrong one is 401, the right one works', async () => {
    expect((await f.call('GET', '/state')).status).toBe(401);
    expect((await f.call('GET', '/state', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await f.call('POST', '/surfaces/web:web-15/keys/0/press')).status).toBe(401);
    expect((await f.call('GET', '/state', { authorization: 'Bearer correct horse' })).status).toBe(200);
    const page = await f.call('GET', '/');
    expect(page.status).toBe(401);
    expect(page.text).toContain('type="password"'); // the login form, not the deck
  });

  it('the login form is styled: its stylesheet is served without a session, and nothing else of the page is', async () => {
    const style = await f.call('GET', '/deck.css');
    expect([style.status, style.type]).toEqual([200, 'text/css; charset=utf-8']);
    expect(style.text).toContain('.login');
    expect((await f.call('GET', '/deck.js')).status).toBe(401);
  });

  it('the login form gives a session cookie that opens the page and the API', async () => {
    const { request } = await import('undici');
    const wrong = await request(`${f.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=nope' });
    expect(wrong.statusCode).toBe(401);
    await wrong.body.dump();
    const good = await request(`${f.base}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=correct+horse' });
    expect(good.statusCode).toBe(303);
    await good.body.dump();
    const cookie = String(good.headers['set-cookie']).split(';')[0] as string;
    expect(cookie).not.toContain('correct');
    expect((await f.call('GET', '/', { cookie })).status).toBe(200);
    expect((await f.call('GET', '/state', { cookie })).status).toBe(200);
  });

  it('the WebSocket needs it too, and refuses other sites', async () => {
    const { WebSocket } = await import('ws');
    const url = `${f.base.replace('http', 'ws')}/ws`;
    const outcome = (headers: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(url, { headers });
        socket.once('message', (data) => {
          resolve(`message ${(JSON.parse(data.toString()) as { type: string }).type}`);
          socket.close();
        });
        socket.once('unexpected-response', (_request, response) => resolve(`refused ${response.statusCode}`));
        socket.once('error', (error) => resolve(`error ${error.message}`));
      });
    expect(await outcome({})).toBe('refused 401');
    expect(await outcome({ authorization: 'Bearer wrong' })).toBe('refused 401');
    expect(await outcome({ authorization: 'Bearer correct horse', origin: 'https://evil.example' })).toBe('refused 403');
    expect(await outcome({ authorization: 'Bearer correct horse' })).toBe('message hello');
  });

  it('listening beyond loopback without a password is refused before anything listens', async () => {
    await expect(startRemoteServer({ time: realTime, bridge: f.running.bridge, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      'listening on 0.0.0.0 (beyond this machine) needs a password: give --web-password-file or set RECDECK_WEB_PASSWORD',
    );
  });
});
