import { randomUUID } from 'node:crypto';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecorderClient, type RequestRecord } from '../../src/api/client.js';
import { RecorderError } from '../../src/api/errors.js';
import { authorizationHeader } from '../../src/api/token.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { until } from '../support/until.js';
import { realClock } from '../../src/api/clock.js';
import { FaultRule } from '../../src/simulator/faults.js';

const uuid = randomUUID();

describe('authorizationHeader', () => {
  it.each([
    [`perm:${uuid}`, `Bearer perm:${uuid}`],
    [`Bearer perm:${uuid}`, `Bearer perm:${uuid}`],
    [`bearer   perm:${uuid}`, `Bearer perm:${uuid}`],
    [uuid, `Bearer perm:${uuid}`],
    ['some-other-token', 'Bearer some-other-token'],
  ])('%s is sent as %s', (given, sent) => {
    expect(authorizationHeader(given)).toBe(sent);
  });

  it('refuses an empty token', () => {
    expect(() => authorizationHeader('  ')).toThrow(/empty/);
  });
});

describe('RecorderClient against the simulator', () => {
  let f: SimulatorFixture;
  beforeAll(async () => {
    f = await startFixture({ token: `perm:${uuid}` });
  });
  afterAll(() => f.close());
  beforeEach(async () => {
    await f.raw('DELETE', '/_sim/faults');
  });

  it.each([`perm:${uuid}`, `Bearer perm:${uuid}`, uuid])('is accepted with the token given as %s', async (token) => {
    const client = new RecorderClient({ clock: realClock, url: f.sim.url, token });
    try {
      await expect(client.listChannels()).resolves.toHaveLength(4);
      expect(f.sim.log.list().at(-1)?.authorized).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('fails with a typed 401 error for a wrong token, and never carries the token', async () => {
    const secret = `perm:${randomUUID()}`;
    const client = new RecorderClient({ clock: realClock, url: f.sim.url, token: secret });
    try {
      const error = await client.recStart(0).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RecorderError);
      const failure = error as RecorderError;
      expect(failure).toMatchObject({ kind: 'status', status: 401, method: 'PUT', path: '/api/channels/0/rec-start' });
      expect(failure.serviceMessage).toMatch(/token is not valid/);
      expect(failure.isAuthFailure).toBe(true);
      const everything = `${failure.message} ${failure.stack} ${JSON.stringify(failure)} ${String(failure.cause)}`;
      expect(everything).not.toContain(secret.slice(5));
      expect(everything).not.toContain(uuid);
      expect((await f.client.getChannel(0)).IsRecording).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('a missing Authorization header is a 401 with a JSON error body', async () => {
    const { status, json } = await f.raw('GET', '/api/channels', { authorization: null });
    expect(status).toBe(401);
    expect(json).toEqual({ Error: expect.stringMatching(/Authorization header is missing/) });
  });

  it('carries the service message of a 400', async () => {
    const error = (await f.client.recPause(1).catch((e: unknown) => e)) as RecorderError;
    expect(error).toMatchObject({ kind: 'status', status: 400, path: '/api/channels/1/rec-pause' });
    expect(error.serviceMessage).toBe('Channel 2 is not recording; there is nothing to pause');
    expect(error.isAuthFailure).toBe(false);
  });

  it('percent-encodes names in paths, spaces and non-ASCII included', async () => {
    const name = 'Kamera Süd/2 #1 ½';
    await f.client.addSource({ Name: name });
    await f.client.setChannelSource(2, name);
    const logged = f.sim.log.list().at(-1);
    expect(logged?.path).toBe(`/api/channels/2/set-source/${encodeURIComponent(name)}`);
    expect(logged?.path).toContain('Kamera%20S%C3%BCd%2F2%20%231%20%C2%BD');
    expect((await f.client.getChannel(2)).SourceName).toBe(name);
  });

  it('times out after the per-request limit, as a timeout', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'hang', path: '/api/app/sync', count: 1 }] }) });
    const started = Date.now();
    const error = (await f.client.getSyncState({ timeoutMs: 150 }).catch((e: unknown) => e)) as RecorderError;
    expect(error).toMatchObject({ kind: 'timeout', method: 'GET', path: '/api/app/sync' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('a write whose limit passed while it waited for a connection is never sent, even when its timer has not run', async () => {
    // A recorder whose slow answers take real time (this file's simulator runs on virtual time).
    const slow = await startFixture({ clock: realClock });
    // The client's clock as a starved event loop sees it: time moves, its timers do not run.
    let now = 1_000_000;
    const stalled = { now: () => now, scheduler: new VirtualTimeScheduler() };
    const client = new RecorderClient({ clock: stalled, url: slow.sim.url, token: slow.sim.token, timeoutMs: 100 });
    try {
      // Both write connections opened first (a request also waits for its connection to open: checked then).
      await Promise.all([client.recStop(2), client.recStop(3)].map((write) => write.catch(() => undefined)));
      // Two slow writes hold them; a third waits for one.
      slow.sim.faults.set([FaultRule.parse({ kind: 'latency', method: 'PUT', path: '/api/channels/0/', count: 2, latencyMs: 300 })]);
      const holding = [client.recStart(0), client.recStop(0)];
      const waiting = client.recStart(1).catch((e: unknown) => e);
      await until(() => slow.sim.faults.list().length === 0, 'both slow writes at the recorder');
      now += 100;
      await Promise.all(holding);
      expect(await waiting).toMatchObject({ kind: 'timeout', method: 'PUT', path: '/api/channels/1/rec-start' });
      expect(slow.sim.log.list().map((r) => r.path)).toEqual(['/api/channels/2/rec-stop', '/api/channels/3/rec-stop', '/api/channels/0/rec-start', '/api/channels/0/rec-stop']);
    } finally {
      await client.close();
      await slow.close();
    }
  });

  it('a state read never waits behind reads that hold every other connection', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'hang', path: '/api/channels/0/preview', count: 8 }] }) });
    const client = new RecorderClient({ clock: realClock, url: f.sim.url, token: f.sim.token });
    const abort = new AbortController();
    try {
      // Eight previews that never answer: four hold the read connections, four wait for one.
      const previews = Array.from({ length: 8 }, () => client.getChannelPreview(0, { signal: abort.signal }).catch((e: unknown) => e));
      let previewsSettled = false;
      void Promise.all(previews).then(() => (previewsSettled = true));
      await expect(client.listChannels({ lane: 'state', timeoutMs: 2000 })).resolves.toHaveLength(4);
      expect(previewsSettled).toBe(false);
      // A read without the lane queues behind them (and times out: its limit runs while it waits).
      await expect(client.getSchedule({ timeoutMs: 300 })).rejects.toMatchObject({ kind: 'timeout' });
    } finally {
      abort.abort();
      await client.close();
    }
  });

  it('stops when the caller aborts, as aborted', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'hang', path: '/api/app/dialog', count: 1 }] }) });
    const controller = new AbortController();
    const pending = f.client.getDialog({ signal: controller.signal });
    await until(() => f.sim.log.list().some((r) => r.path === '/api/app/dialog'), 'the request to reach the recorder');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted', path: '/api/app/dialog' });
  });

  it('reports a reset connection as a network error', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'reset', path: '/api/app/schedule', count: 1 }] }) });
    await expect(f.client.getSchedule()).rejects.toMatchObject({ kind: 'network', path: '/api/app/schedule' });
    await expect(f.client.getSchedule()).resolves.toMatchObject({ IsEnabled: false });
  });

  it('reports an answer that is not JSON as a decode error', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'malformed', path: '/api/channels', method: 'GET', count: 1 }] }) });
    const error = (await f.client.listChannels().catch((e: unknown) => e)) as RecorderError;
    expect(error).toMatchObject({ kind: 'decode', status: 200 });
    expect(error.serviceMessage).toMatch(/not JSON/);
  });

  it('decodes a repeated answer once: the same text is the same value, a changed text a new one', async () => {
    const first = await f.client.getChannel(3);
    expect(await f.client.getChannel(3)).toBe(first);
    await f.client.recStart(3);
    try {
      const changed = await f.client.getChannel(3);
      expect(changed).not.toBe(first);
      expect([first.IsRecording, changed.IsRecording]).toEqual([false, true]);
    } finally {
      await f.client.recStop(3);
    }
  });

  it('fails a bad answer every time it comes, however often it repeats, and keeps the last good one', async () => {
    const good = await f.client.getSchedule();
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'malformed', path: '/api/app/schedule', method: 'GET', count: 2 }] }) });
    await expect(f.client.getSchedule()).rejects.toMatchObject({ kind: 'decode' });
    await expect(f.client.getSchedule()).rejects.toMatchObject({ kind: 'decode' });
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'status', status: 503, path: '/api/app/schedule', count: 1 }] }) });
    await expect(f.client.getSchedule()).rejects.toMatchObject({ kind: 'status', status: 503 });
    expect(await f.client.getSchedule()).toBe(good);
  });

  it('reports an injected error status with the service message', async () => {
    await f.raw('PUT', '/_sim/faults', { body: JSON.stringify({ rules: [{ kind: 'status', status: 503, path: '/api/sources', count: 1 }] }) });
    await expect(f.client.listSources()).rejects.toMatchObject({ kind: 'status', status: 503, serviceMessage: 'injected fault: 503' });
  });

  it('tells observers about each request, failures included', async () => {
    const records: RequestRecord[] = [];
    const stop = f.client.observe((r) => records.push(r));
    await f.client.getSyncState();
    await f.client.recPause(3).catch(() => undefined);
    stop();
    await f.client.getSyncState();
    expect(records.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/api/app/sync', 200],
      ['PUT', '/api/channels/3/rec-pause', 400],
    ]);
    expect(records[1]?.error).toBeInstanceOf(RecorderError);
  });

  it('refuses a path parameter that is not a position', async () => {
    await expect(f.client.getChannel(-1)).rejects.toThrow(/non-negative integer/);
    await expect(f.client.getChannel(1.5)).rejects.toThrow(/non-negative integer/);
  });
});
