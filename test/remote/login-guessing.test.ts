// The web login's throttle holds whatever the timing of the guesses, and locks out only the one who
// guesses (issue 25): a guess is counted when its headers arrive, before its form is read; logins still
// arriving and the time to send a form are capped per address; behind a trusted reverse proxy each
// client is throttled on its own; the log says once when an address is throttled.
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteServer, type RemoteServerOptions, type RunningRemoteServer } from '../../src/remote/server.js';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';
import { VirtualTime } from '../support/virtual-time.js';

const PASSWORD = 'correct horse';
let f: RemoteFixture;
const servers: RunningRemoteServer[] = [];
const logs: string[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  f = await startRemoteFixture();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers) await server.close();
  await f?.close();
});

async function server(options: Partial<RemoteServerOptions> = {}): Promise<RunningRemoteServer & { time: VirtualTime }> {
  const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  const time = new VirtualTime();
  const started = await startRemoteServer({ bridge: f.running.bridge, log, host: '127.0.0.1', port: 0, password: PASSWORD, time, ...options });
  servers.push(started);
  logs.length = 0;
  return { ...started, time };
}

async function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const answer = await request(`${base}${path}`, { method: method as 'GET', headers, body });
  const text = await answer.body.text();
  return { status: answer.statusCode, headers: answer.headers, text };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const login = (base: string, password: string, headers: Record<string, string> = {}) => call(base, 'POST', '/login', { ...FORM, ...headers }, `password=${encodeURIComponent(password)}`);

/** A login sent by hand over its own connection: the headers now, the form when the test says. */
function slowLogin(port: number, password: string, headers = '') {
  const form = `password=${encodeURIComponent(password)}`;
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined); // a refused login may be closed while its form is on the way
  let answer = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('close', () => (closed = true));
  socket.write(`POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n${headers}\r\n`);
  return {
    /** The answer's status, once it has come. */
    status: () => /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1],
    answer: () => answer,
    closed: () => closed,
    sendForm: () => {
      if (!closed) socket.write(form);
    },
  };
}

const statuses = (logins: ReturnType<typeof slowLogin>[]) => logins.map((l) => l.status());
const count = <T>(values: T[], value: T) => values.filter((v) => v === value).length;

/** The form deadline is on the server's scheduler: a login is under way once its deadline is due at `dueAt`. */
const deadlineAt = (time: VirtualTime, dueAt: number) => time.scheduler.actions.some((action) => action.delay === dueAt);

describe('a guess is counted when it arrives', () => {
  it('50 form logins sent at once from one address, each form after its headers: at most 5 are looked at', async () => {
    const { port } = await server();
    const logins = Array.from({ length: 50 }, (_, i) => slowLogin(port, `guess-${i}`));
    // The ones over the five free guesses are answered from their headers alone, before their forms are sent.
    await until(() => count(statuses(logins), '429') === 45, '45 logins refused before their forms');
    for (const l of logins) l.sendForm();
    await until(() => logins.every((l) => l.status() !== undefined), 'every login answered');
    expect(count(statuses(logins), '401')).toBe(5);
    expect(count(statuses(logins), '429')).toBe(45);
    expect(logs.filter((l) => l.includes('wrong password from 127.0.0.1'))).toHaveLength(5);
    expect(logins.find((l) => l.status() === '429')?.answer()).toMatch(/retry-after: 1\r\n[\s\S]*too many wrong passwords from this address: try again in 1 s/i);
  });

  it('a right password still logs in, and clears the count of its address', async () => {
    const { url } = await server();
    for (let i = 0; i < 4; i++) expect((await login(url, `guess-${i}`)).status).toBe(401);
    expect((await login(url, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 5; i++) expect((await login(url, `guess-${i}`)).status).toBe(401);
    expect((await login(url, PASSWORD)).status).toBe(429);
  });

  it('an open session goes on while its address is throttled', async () => {
    const { url } = await server();
    const cookie = String((await login(url, PASSWORD)).headers['set-cookie']).split(';')[0] as string;
    for (let i = 0; i < 6; i++) await login(url, `guess-${i}`);
    expect((await login(url, PASSWORD)).status).toBe(429);
    expect((await call(url, 'GET', '/state', { cookie })).status).toBe(200);
  });

  it('the scheme of Authorization is read in any case (RFC 7235)', async () => {
    const { url } = await server();
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) expect((await call(url, 'GET', '/state', { authorization: `${scheme} ${PASSWORD}` })).status).toBe(200);
    expect((await call(url, 'GET', '/state', { authorization: `bearer not-it` })).status).toBe(401);
  });
});

describe('logins still arriving are bounded per address', () => {
  it('over the most under way from one address, the next is refused at once with the reason', async () => {
    const { port, url } = await server({ loginLimits: { underWay: 3 } });
    const slow = [0, 1, 2].map((i) => slowLogin(port, `guess-${i}`));
    const over = slowLogin(port, 'guess-3');
    await until(() => over.status() !== undefined, 'the fourth login answered');
    expect(over.status()).toBe('429');
    expect(over.answer()).toContain('3 logins from this address are still arriving');
    expect(statuses(slow)).toEqual([undefined, undefined, undefined]);
    for (const l of slow) l.sendForm();
    await until(() => slow.every((l) => l.status() === '401'), 'the three answered');
    expect((await login(url, PASSWORD)).status).toBe(303); // answered: their places are free again
  });

  it('a form that does not arrive within its deadline gets 408 and its connection is closed; its guess still counts', async () => {
    const { port, url, time } = await server({ loginLimits: { formMs: 7000 } });
    const start = time.now();
    const slow = slowLogin(port, 'guess-0');
    await until(() => deadlineAt(time, start + 7000), 'the login under way');
    time.advanceTo(start + 6999);
    time.advanceTo(start + 7000);
    await until(() => slow.closed(), 'the connection closed');
    expect(slow.status()).toBe('408');
    expect(slow.answer()).toContain('the login form did not arrive within 7 s of its headers');
    for (let i = 1; i < 5; i++) expect((await login(url, `guess-${i}`)).status).toBe(401);
    expect((await login(url, PASSWORD)).status).toBe(429); // the late one was the first of five
  });

  it("Node's own limits are set: a client that never finishes its headers is cut off", async () => {
    const { port } = await server({ timeouts: { headersMs: 300, requestMs: 600 } });
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    let answer = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => (closed = true));
    socket.write(`POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    await until(() => closed, 'the connection closed');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('the log', () => {
  it('says once an episode that an address is throttled, not once a request', async () => {
    const { url, time } = await server();
    const bearer = (password: string) => call(url, 'GET', '/state', { authorization: `Bearer ${password}` });
    const throttled = () => logs.filter((l) => /127\.0\.0\.1 is throttled after \d+ wrong passwords/.test(l));
    for (let i = 0; i < 5; i++) expect((await bearer(`guess-${i}`)).status).toBe(401);
    expect(throttled()).toHaveLength(0);
    for (let i = 0; i < 10; i++) expect((await bearer(PASSWORD)).status).toBe(429);
    expect(throttled()).toHaveLength(1);
    expect(throttled()[0]).toContain('after 5 wrong passwords in a row: its guesses wait 1 s');
    time.advanceTo(time.now() + 1000);
    expect((await login(url, 'guess-5')).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await login(url, PASSWORD)).status).toBe(429);
    expect(throttled()).toHaveLength(1); // the same episode
    time.advanceTo(time.now() + 2000);
    expect((await bearer(PASSWORD)).status).toBe(200); // it ends with a login
    for (let i = 0; i < 5; i++) expect((await bearer(`guess-${i}`)).status).toBe(401);
    expect((await bearer(PASSWORD)).status).toBe(429);
    expect(throttled()).toHaveLength(2);
  });
});

describe('behind a trusted reverse proxy', () => {
  const from = (address: string) => ({ 'x-forwarded-for': address });

  it("each client is throttled on its own: one client's guesses do not block another's login", async () => {
    const { url } = await server({ trustProxies: ['127.0.0.1'] });
    for (let i = 0; i < 20; i++) await login(url, `guess-${i}`, from('203.0.113.7'));
    for (let i = 0; i < 20; i++) await call(url, 'GET', '/state', { authorization: `Bearer guess-${i}`, ...from('203.0.113.7') });
    expect((await login(url, PASSWORD, from('203.0.113.7'))).status).toBe(429);
    expect((await login(url, PASSWORD, from('198.51.100.20'))).status).toBe(303);
    expect((await call(url, 'GET', '/state', { authorization: `Bearer ${PASSWORD}`, ...from('198.51.100.20') })).status).toBe(200);
    expect(logs.filter((l) => l.includes('wrong password from 203.0.113.7'))).toHaveLength(5);
    expect(logs.some((l) => l.includes('203.0.113.7 is throttled'))).toBe(true);
  });

  it("a client's own X-Forwarded-For entries are not believed: the right-most entry the proxy wrote is the client", async () => {
    const { url } = await server({ trustProxies: ['127.0.0.1'] });
    // The attacker writes a new address each time; the proxy appends the one it really came from.
    for (let i = 0; i < 5; i++) await login(url, `guess-${i}`, from(`192.0.2.${i}, 203.0.113.7`));
    expect((await login(url, PASSWORD, from('192.0.2.99, 203.0.113.7'))).status).toBe(429);
  });

  it('without --web-trust-proxy the header is ignored: a client cannot pick its own address', async () => {
    const { url } = await server();
    for (let i = 0; i < 5; i++) await login(url, `guess-${i}`, from(`192.0.2.${i}`));
    expect((await login(url, PASSWORD, from('198.51.100.20'))).status).toBe(429);
    expect(logs.filter((l) => l.includes('wrong password from 127.0.0.1'))).toHaveLength(5);
  });

  it("a malformed header counts as the proxy's own address, said once", async () => {
    const { url } = await server({ trustProxies: ['127.0.0.1'] });
    expect((await login(url, 'guess-0', from('not an address'))).status).toBe(401);
    expect((await login(url, 'guess-1', from('203.0.113.7:4711'))).status).toBe(401);
    expect(logs.filter((l) => l.includes('wrong password from 127.0.0.1'))).toHaveLength(2);
    expect(logs.filter((l) => l.includes('malformed X-Forwarded-For'))).toEqual([
      'remote server: the trusted proxy 127.0.0.1 sent a malformed X-Forwarded-For ("not an address"): its requests count as the proxy\'s own address (said once)',
    ]);
  });
});
