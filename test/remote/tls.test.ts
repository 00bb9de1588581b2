// --web-tls-cert/--web-tls-key: the deck, the API and the WebSocket over TLS, the session cookie Secure.
// Integration, not e2e: the server runs in this process over a WebSocket client; openssl only makes its
// certificate (an EC key: an RSA one is a second of both cores' time for nothing this test shows).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { realTime } from '../../src/engine/engine-time.js';

let f: RemoteFixture;
let folder: string;
let cert: string;
let server: RunningRemoteServer;
let agent: Agent;

beforeAll(async () => {
  f = await startRemoteFixture({ stillPreviews: true });
  folder = await mkdtemp(join(tmpdir(), 'recdeck-tls-'));
  const [certFile, keyFile] = [join(folder, 'cert.pem'), join(folder, 'key.pem')];
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile]);
  cert = await readFile(certFile, 'utf8');
  server = await startRemoteServer({ time: realTime, bridge: f.running.bridge, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, port: 0, password: 'correct horse', tls: { cert, key: await readFile(keyFile, 'utf8') } });
  agent = new Agent({ connect: { ca: cert } });
}, 30_000);
afterAll(async () => {
  await server?.close();
  await agent?.close();
  await f?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('TLS', () => {
  it('serves HTTPS, and the login cookie is Secure', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const login = await request(`${server.url}/login`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=correct+horse' });
    await login.body.dump();
    expect(login.statusCode).toBe(303);
    expect(String(login.headers['set-cookie'])).toMatch(/; Secure/);
    const state = await request(`${server.url}/state`, { dispatcher: agent, headers: { cookie: String(login.headers['set-cookie']).split(';')[0] as string } });
    expect(state.statusCode).toBe(200);
    await state.body.dump();
  });

  it('serves the WebSocket as WSS', async () => {
    const socket = new WebSocket(`${server.url.replace('https', 'wss')}/ws`, { ca: cert, headers: { authorization: 'Bearer correct horse' } });
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data) => resolve((JSON.parse(data.toString()) as { type: string }).type));
      socket.once('error', reject);
    });
    socket.close();
    expect(first).toBe('hello');
  });
});
