// The remote server on a studio LAN (issue 12): passwords that hold, host names checked, guessing
// slowed, no framing, sessions that end, malformed paths refused, WebSocket clients bounded.
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { AccessControl, SESSION_COOKIE, allowedHostNames, hostAllowed } from '../../src/remote/access.js';
import { startRemoteServer, type RemoteServerOptions, type RunningRemoteServer } from '../../src/remote/server.js';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { VirtualTime } from '../support/virtual-time.js';

const PASSWORD = 'correct horse';
let f: RemoteFixture;
const servers: RunningRemoteServer[] = [];
const logs: string[] = [];

beforeAll(async () => {
  f = await startRemoteFixture();
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await f?.close();
});

async function server(options: Partial<RemoteServerOptions> = {}): Promise<RunningRemoteServer> {
  const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  const started = await startRemoteServer({ bridge: f.running.bridge, log, host: '127.0.0.1', port: 0, time: f.running.bridge.time, ...options });
  servers.push(started);
  return started;
}

async function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const answer = await request(`${base}${path}`, { method: method as 'GET', headers, body });
  const text = await answer.body.text();
  return { status: answer.statusCode, headers: answer.headers, text };
}

const login = (base: string, password: string) => call(base, 'POST', '/login', { 'content-type': 'application/x-www-form-urlencoded' }, `password=${encodeURIComponent(password)}`);
const cookieOf = (answer: { headers: Record<string, unknown> }) => String(answer.headers['set-cookie']).split(';')[0] as string;

const advance = (time: VirtualTime, ms: number) => time.advanceTo(time.now() + ms);

describe('passwords', () => {
  it('one shorter than 8 characters, the empty one included, is refused at start', async () => {
    for (const password of ['', 'seven77']) {
      await expect(server({ password })).rejects.toThrow(/the web password is shorter than 8 characters/);
    }
    await expect(server({ password: '', host: '0.0.0.0' })).rejects.toThrow(/shorter than 8 characters \(it is empty\)/);
  });
});

describe('host names', () => {
  const fake = (host: string) => ({ headers: { host } }) as never;

  it('in LAN mode only the bound address, this machine\'s names and addresses and the allowed names pass', () => {
    const lan = allowedHostNames('0.0.0.0', ['deck.studio.example']);
    expect(hostAllowed(fake('deck.studio.example:7900'), lan)).toBe(true);
    expect(hostAllowed(fake('localhost:7900'), lan)).toBe(true);
    expect(hostAllowed(fake('rebound.attacker.example:7900'), lan)).toBe(false);
    const bound = allowedHostNames('192.0.2.10', []);
    expect(hostAllowed(fake('192.0.2.10:7900'), bound)).toBe(true);
    expect(hostAllowed(fake('[2001:db8::1]:7900'), bound)).toBe(false);
  });

  it('--web-allow-host adds a name (a reverse proxy\'s), any other is refused', async () => {
    const { url } = await server({ allowHosts: ['deck.studio.example'] });
    expect((await call(url, 'GET', '/healthz', { host: 'deck.studio.example' })).status).toBe(200);
    const other = await call(url, 'GET', '/healthz', { host: 'attacker.example' });
    expect(other.status).toBe(421);
    expect(other.text).toContain('--web-allow-host');
  });
});

describe('password guessing', () => {
  it('after 5 wrong passwords an address waits (429, Retry-After), doubling; each failure is logged without the guess', async () => {
    const time = new VirtualTime();
    const { url } = await server({ password: PASSWORD, time });
    logs.length = 0;
    for (let i = 0; i < 5; i++) expect((await call(url, 'GET', '/state', { authorization: `Bearer guess-${i}` })).status).toBe(401);
    let answer = await call(url, 'GET', '/state', { authorization: `Bearer ${PASSWORD}` });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('1');
    expect((await login(url, PASSWORD)).status).toBe(429); // the form waits as well
    advance(time, 1000);
    expect((await login(url, 'guess-5')).status).toBe(401);
    answer = await call(url, 'GET', '/state', { authorization: `Bearer ${PASSWORD}` });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('2');
    advance(time, 2000);
    expect((await call(url, 'GET', '/state', { authorization: `Bearer ${PASSWORD}` })).status).toBe(200);
    expect((await call(url, 'GET', '/state', { authorization: 'Bearer guess-6' })).status).toBe(401); // the count started again
    const lines = logs.filter((l) => l.includes('wrong password from'));
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(/wrong password from 127\.0\.0\.1 \(1 in a row\)/);
    expect(logs.join('\n')).not.toContain('guess-');
  });
});

describe('framing and sessions', () => {
  it('every answer forbids framing', async () => {
    const { url } = await server({ password: PASSWORD });
    for (const [path, headers] of [['/', {}], ['/state', {}], ['/', { authorization: `Bearer ${PASSWORD}` }], ['/state', { authorization: `Bearer ${PASSWORD}` }]] as const) {
      const answer = await call(url, 'GET', path, headers);
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(String(answer.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
  });

  it('POST /logout ends the session; a session idle for its idle time ends; a new password ends them all', async () => {
    const time = new VirtualTime();
    // A minute, not the 12 hours of the default: 12 hours of the deck socket's once-a-second timers on
    // virtual time nest 43,200 rescheduled actions, deeper than the stack unsubscribing them.
    const running = await server({ password: PASSWORD, time, sessionIdleMs: 60_000 });
    const { url } = running;
    let cookie = cookieOf(await login(url, PASSWORD));
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(200);
    const out = await call(url, 'POST', '/logout', { cookie });
    expect(out.status).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(401);

    cookie = cookieOf(await login(url, PASSWORD));
    time.advance(55_000);
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(200); // used: the idle time starts again
    time.advance(60_000 + 1);
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(401);

    cookie = cookieOf(await login(url, PASSWORD));
    running.changePassword('battery staple');
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(401);
    expect((await call(url, 'GET', '/state', { authorization: 'Bearer battery staple' })).status).toBe(200);
  });

  it('by default a session lives through 12 idle hours and no longer', () => {
    const time = new VirtualTime();
    const access = new AccessControl(PASSWORD, time);
    const withCookie = (id: string) => ({ headers: { cookie: `${SESSION_COOKIE}=${id}` } }) as IncomingMessage;
    const session = access.openSession();
    time.advance(12 * 3600_000);
    expect(access.allows(withCookie(session))).toBe(true);
    time.advance(12 * 3600_000 + 1);
    expect(access.allows(withCookie(session))).toBe(false);
  });
});

describe('paths', () => {
  it('a malformed percent-escape is 400, naming it', async () => {
    for (const path of ['/surfaces/%', '/surfaces/%zz/keys/0.png', '/surfaces/web%3Aweb-15/keys/%E0%A4%A/press']) {
      const answer = await f.call(path.endsWith('press') ? 'POST' : 'GET', path);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect((answer.json as { error: string }).error).toContain('malformed percent-escape');
    }
  });
});

describe('WebSocket clients', () => {
  const open = (url: string, options: { autoPong?: boolean; headers?: Record<string, string> } = {}) =>
    new Promise<{ socket: WebSocket; outcome: string }>((resolve) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/ws`, options);
      socket.once('message', () => resolve({ socket, outcome: 'hello' }));
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ socket, outcome: `refused ${response.statusCode}: ${body}` }));
      });
      socket.once('error', (error) => resolve({ socket, outcome: `error ${error.message}` }));
    });

  it('are capped: one over the limit is refused with the reason', async () => {
    const { url } = await server({ socketLimits: { maxClients: 2 } });
    const first = await open(url);
    const second = await open(url);
    const third = await open(url);
    expect([first.outcome, second.outcome]).toEqual(['hello', 'hello']);
    expect(third.outcome).toBe('refused 503: the web deck has 2 clients already, the most it takes: close another tab or window first');
    first.socket.close();
    second.socket.close();
  });

  it('1000 bad messages write five log lines, and the next window says how many were not logged', async () => {
    const time = new VirtualTime();
    const running = await server({ time });
    const { socket, outcome } = await open(running.url);
    expect(outcome).toBe('hello');
    let refusals = 0;
    socket.on('message', (data) => (refusals += String(data).includes('"type":"error"') ? 1 : 0));
    const ignored = () => logs.filter((l) => l.startsWith('web deck: ignored a message'));
    const before = ignored().length;
    for (let i = 0; i < 1000; i++) socket.send(i % 2 === 0 ? 'not json' : JSON.stringify({ type: 'press' }));
    await until(() => refusals === 1000, 'every message answered with its error', 20_000);
    expect(ignored().slice(before)).toHaveLength(5);
    const counted = () => logs.filter((l) => l.includes('more like that'));
    expect(counted()).toEqual([]);
    time.advanceTo(time.now() + 10_000);
    socket.send('still not json');
    await until(() => refusals === 1001, 'the next answered');
    expect(counted()).toEqual(['(995 more like that in the last 10 s were not logged)']);
    expect(ignored().slice(before + 5)).toEqual(['web deck: ignored a message: not JSON']);
    socket.close();
  }, 30_000); // a thousand answers take a few seconds on a busy machine

  it('a new password closes the pages open with the old one, with the reason', async () => {
    const running = await server({ password: PASSWORD });
    const { socket, outcome } = await open(running.url, { headers: { authorization: `Bearer ${PASSWORD}` } });
    expect(outcome).toBe('hello');
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    running.changePassword('battery staple');
    expect(await closed).toEqual({ code: 1008, reason: 'the web password changed: log in again' });
    expect(running.webClients()).toBe(0);
    expect(() => running.changePassword('short')).toThrow('shorter than 8 characters');
  });

  it('one that does not answer pings is closed', async () => {
    const time = new VirtualTime();
    const running = await server({ socketLimits: { heartbeatMs: 100 }, time });
    const { socket, outcome } = await open(running.url, { autoPong: false });
    expect(outcome).toBe('hello');
    let closed = false;
    socket.once('close', () => (closed = true));
    time.advance(100); // a ping
    time.advance(100); // no pong since: dropped
    await until(() => closed, 'the socket to close');
    expect(logs.join('\n')).toContain('no answer to a ping within 100 ms');
  });

  it('one that never reads is skipped over a bound and then closed; the bridge holds no more for it', async () => {
    const running = await server({ socketLimits: { bufferBytes: 64 * 1024, stalledMs: 500, heartbeatMs: 60_000 } });
    const { port } = running;
    const stalled = connect(port, '127.0.0.1');
    stalled.pause(); // never reads a byte
    stalled.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    await until(() => running.webClients() === 1, 'the stalled client to be attached');
    // Pictures keep coming: a channel starts recording and its clock ticks on every deck, and the decks
    // turn their pages (whole new key images, where a tick is only the few pixels that changed).
    expect((await f.call('POST', '/surfaces/web:web-15/keys/0/press')).status).toBe(200);
    const turning = setInterval(() => {
      void f.call('POST', '/surfaces/web:web-32/keys/23/press');
      void f.call('POST', '/surfaces/web:web-15/keys/14/press');
    }, 100);
    try {
      await until(() => running.webClients() === 0, 'the stalled client to be closed');
    } finally {
      clearInterval(turning);
    }
    const line = logs.find((l) => l.includes('it stopped reading'));
    expect(line).toBeDefined();
    // What was held for it when it was closed stayed near the bound (one hello's worth of pictures at most).
    expect(Number(/\((\d+) bytes unsent/.exec(line ?? '')?.[1])).toBeLessThan(4 * 1024 * 1024);
    stalled.destroy();
    expect((await f.call('POST', '/surfaces/web:web-15/keys/0/press?holdMs=1100')).status).toBe(200);
  });
});
