// The remote server: the web deck page, its WebSocket, and the remote-control API, on node:http.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import type { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import type { WebSurface } from '../surfaces/web/web-surface.js';
import { AccessControl, SESSION_COOKIE, hostAllowed, isLoopback, sameOrigin } from './access.js';
import { ApiError, answerApi } from './api.js';
import { bridgeMetrics } from './bridge-metrics.js';
import { DeckSocket } from './deck-socket.js';

export interface RemoteServerOptions {
  bridge: Bridge;
  webSurfaces: readonly WebSurface[];
  log: Logger;
  host?: string;
  port?: number;
  /** Required when the host is not loopback. */
  password?: string | null;
}

export interface RunningRemoteServer {
  url: string;
  port: number;
  close: () => Promise<void>;
}

/** The page's files live beside the sources and are served as they are (no build step). */
const PAGE_FOLDER = fileURLToPath(new URL('../../src/remote/page/', import.meta.url));
const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/deck.js': { file: 'deck.js', type: 'text/javascript; charset=utf-8' },
  '/deck.css': { file: 'deck.css', type: 'text/css; charset=utf-8' },
};

export async function startRemoteServer(options: RemoteServerOptions): Promise<RunningRemoteServer> {
  const host = options.host ?? '127.0.0.1';
  const password = options.password ?? null;
  if (!isLoopback(host) && password === null) {
    throw new Error(`listening on ${host} (beyond this machine) needs a password: give --web-password or set RECDECK_WEB_PASSWORD`);
  }
  const access = new AccessControl(password);
  const loopback = isLoopback(host);
  const metrics = bridgeMetrics(options.bridge);
  const socket = new DeckSocket(options.bridge, options.webSurfaces, options.log);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      options.log.error(`remote server: ${request.method} ${request.url}: ${(error as Error).message}`);
      if (!response.headersSent) send(response, 500, 'application/json', JSON.stringify({ error: 'internal error' }));
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://recdeck');
    const method = request.method ?? 'GET';
    const page = PAGE_FILES[url.pathname];
    if (!hostAllowed(request, loopback)) {
      return send(response, 421, 'application/json', JSON.stringify({ error: `this bridge answers on loopback names only (localhost, 127.0.0.1, [::1]), not ${request.headers.host}` }));
    }
    if (method === 'POST' && url.pathname === '/login') return login(request, response);
    if (url.pathname === '/favicon.ico') return send(response, 204, 'image/x-icon', '');
    if (!access.allows(request)) {
      if (page && method === 'GET') return sendFile(response, 'login.html', 'text/html; charset=utf-8', 401);
      return send(response, 401, 'application/json', JSON.stringify({ error: 'a password is required: send Authorization: Bearer <password>' }), { 'www-authenticate': 'Bearer realm="recdeck"' });
    }
    if (method !== 'GET' && !sameOrigin(request)) {
      return send(response, 403, 'application/json', JSON.stringify({ error: `requests from another site (${request.headers.origin}) may not drive the bridge` }));
    }
    if (page && method === 'GET') return sendFile(response, page.file, page.type, 200);
    try {
      const answer = await answerApi(request, url, { bridge: options.bridge, metricsText: metrics.text });
      if (answer === null) return send(response, 404, 'application/json', JSON.stringify({ error: `no route ${method} ${url.pathname}` }));
      send(response, answer.status, answer.type, answer.body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      send(response, error.status, 'application/json', JSON.stringify({ error: error.message }));
    }
  }

  async function login(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readSmallBody(request);
    const candidate = new URLSearchParams(body).get('password') ?? '';
    if (!access.needsPassword || !access.passwordMatches(candidate)) {
      return send(response, 401, 'application/json', JSON.stringify({ error: access.needsPassword ? 'wrong password' : 'no password is set on this bridge' }));
    }
    const session = access.openSession();
    response.writeHead(303, { location: '/', 'set-cookie': `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/` });
    response.end();
  }

  server.on('upgrade', (request, stream, head) => {
    const url = new URL(request.url ?? '/', 'http://recdeck');
    const refusal = url.pathname !== '/ws' ? '404 Not Found' : !hostAllowed(request, loopback) ? '421 Misdirected Request' : !access.allows(request) ? '401 Unauthorized' : !sameOrigin(request) ? '403 Forbidden' : null;
    if (refusal !== null) {
      stream.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(request, stream, head, (ws) => socket.attach(ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7900, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: async () => {
      socket.close();
      metrics.stop();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  response.end(body);
}

async function sendFile(response: ServerResponse, file: string, type: string, status: number): Promise<void> {
  send(response, status, type, await readFile(`${PAGE_FOLDER}${file}`), { 'content-security-policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:" });
}

function readSmallBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 4096) reject(new Error('login body too large'));
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}
