// The remote server: the web deck page, its WebSocket, and the remote-control API, on node:http (or
// node:https when given a certificate).
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import type { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import type { WebSurface } from '../surfaces/web/web-surface.js';
import { AccessControl, DEFAULT_SESSION_IDLE_MS, SESSION_COOKIE, allowedHostNames, hostAllowed, isLoopback, sameOrigin } from './access.js';
import { ApiError, answerApi } from './api.js';
import { bridgeMetrics } from './bridge-metrics.js';
import { DEFAULT_DECK_SOCKET_LIMITS, DeckSocket, type DeckSocketLimits } from './deck-socket.js';
import { LoginThrottle } from './login-throttle.js';

export interface RemoteServerOptions {
  bridge: Bridge;
  webSurfaces: readonly WebSurface[];
  log: Logger;
  host?: string;
  port?: number;
  /** Required when the host is not loopback; at least 8 characters. */
  password?: string | null;
  /** More host names to answer to (a reverse proxy's public name); --web-allow-host. */
  allowHosts?: readonly string[];
  /** PEM certificate and key: serve HTTPS and WSS, and mark the session cookie Secure. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** A browser session ends after this long without a request (default 12 h). */
  sessionIdleMs?: number;
  socketLimits?: Partial<DeckSocketLimits>;
  /** The clock of sessions and login slowing (tests move it by hand). */
  now?: () => number;
}

export interface RunningRemoteServer {
  url: string;
  port: number;
  /** Web deck clients connected now. */
  webClients: () => number;
  /** Sets a new password and ends every session, the pages' open links included. */
  changePassword: (password: string) => void;
  /** Serves a web deck made after the start (its profile was fixed later). */
  addWebSurface: (surface: WebSurface) => void;
  close: () => Promise<void>;
}

/** The page's files live beside the sources and are served as they are (no build step). */
const PAGE_FOLDER = fileURLToPath(new URL('../../src/remote/page/', import.meta.url));
const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/deck.js': { file: 'deck.js', type: 'text/javascript; charset=utf-8' },
  '/deck-audit.js': { file: 'deck-audit.js', type: 'text/javascript; charset=utf-8' },
  '/deck-layout.js': { file: 'deck-layout.js', type: 'text/javascript; charset=utf-8' },
  '/deck-press.js': { file: 'deck-press.js', type: 'text/javascript; charset=utf-8' },
  '/deck.css': { file: 'deck.css', type: 'text/css; charset=utf-8' },
};

/** On every answer: no other site may frame the deck (one click in a hidden frame would press a key). */
const NO_FRAMING = { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" };
const PAGE_POLICY = "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

export async function startRemoteServer(options: RemoteServerOptions): Promise<RunningRemoteServer> {
  const host = options.host ?? '127.0.0.1';
  const password = options.password ?? null;
  if (!isLoopback(host) && password === null) {
    throw new Error(`listening on ${host} (beyond this machine) needs a password: give --web-password-file or set RECDECK_WEB_PASSWORD`);
  }
  const now = options.now ?? Date.now;
  const access = new AccessControl(password, now, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS);
  const throttle = new LoginThrottle(now);
  const hosts = allowedHostNames(host, options.allowHosts ?? []);
  const secure = options.tls != null;
  const { log } = options;
  const metrics = bridgeMetrics(options.bridge);
  const socket = new DeckSocket(options.bridge, options.webSurfaces, log, { ...DEFAULT_DECK_SOCKET_LIMITS, ...options.socketLimits });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    serve(request, response).catch((error: unknown) => {
      log.error(`remote server: ${request.method} ${request.url}: ${(error as Error).message}`);
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
    });
  };
  const server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handle) : createServer(handle);

  const clientAddress = (request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown';

  /**
   * Whether the request may go on: a wrong password counts against the client's address, and an
   * address that guessed too often waits (429) before any guess of it is looked at.
   */
  function admission(request: IncomingMessage): { ok: true } | { ok: false; waitS: number } {
    const address = clientAddress(request);
    const bearer = AccessControl.bearer(request);
    if (access.needsPassword && bearer !== null) {
      const waitS = throttle.waitSeconds(address);
      if (waitS > 0) return { ok: false, waitS };
      if (access.passwordMatches(bearer)) throttle.succeeded(address);
      else loginFailed(address);
    }
    return access.allows(request) ? { ok: true } : { ok: false, waitS: 0 };
  }

  const tooManyGuesses = (waitS: number) => `too many wrong passwords from this address: try again in ${waitS} s`;

  function loginFailed(address: string): void {
    const inARow = throttle.failed(address);
    log.warn(`remote server: wrong password from ${address} (${inARow} in a row)`);
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://recdeck');
    const method = request.method ?? 'GET';
    const page = PAGE_FILES[url.pathname];
    if (!hostAllowed(request, hosts)) {
      return sendJson(response, 421, { error: `this bridge does not answer to the name ${request.headers.host}; give it with --web-allow-host if it is yours` });
    }
    if (method === 'POST' && (url.pathname === '/login' || url.pathname === '/logout') && !sameOrigin(request)) {
      return sendJson(response, 403, { error: `requests from another site (${request.headers.origin}) may not log in or out` });
    }
    if (method === 'POST' && url.pathname === '/login') return login(request, response);
    if (method === 'POST' && url.pathname === '/logout') return logout(request, response);
    if (url.pathname === '/favicon.ico') return send(response, 204, 'image/x-icon', '');
    const admitted = admission(request);
    if (!admitted.ok) {
      if (admitted.waitS > 0) return sendJson(response, 429, { error: tooManyGuesses(admitted.waitS) }, { 'retry-after': String(admitted.waitS) });
      if (page && method === 'GET') return sendFile(response, 'login.html', 'text/html; charset=utf-8', 401);
      return sendJson(response, 401, { error: 'a password is required: send Authorization: Bearer <password>' }, { 'www-authenticate': 'Bearer realm="recdeck"' });
    }
    if (method !== 'GET' && !sameOrigin(request)) {
      return sendJson(response, 403, { error: `requests from another site (${request.headers.origin}) may not drive the bridge` });
    }
    if (page && method === 'GET') return sendFile(response, page.file, page.type, 200);
    try {
      const answer = await answerApi(request, url, { bridge: options.bridge, metricsText: metrics.text });
      if (answer === null) return sendJson(response, 404, { error: `no route ${method} ${url.pathname}` });
      send(response, answer.status, answer.type, answer.body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      sendJson(response, error.status, { error: error.message });
    }
  }

  async function login(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const address = clientAddress(request);
    const wait = throttle.waitSeconds(address);
    if (wait > 0) return sendJson(response, 429, { error: tooManyGuesses(wait) }, { 'retry-after': String(wait) });
    const body = await readSmallBody(request);
    if (!access.needsPassword) return sendJson(response, 401, { error: 'no password is set on this bridge' });
    if (!access.passwordMatches(new URLSearchParams(body).get('password') ?? '')) {
      loginFailed(address);
      return sendJson(response, 401, { error: 'wrong password' });
    }
    throttle.succeeded(address);
    const session = access.openSession();
    response.writeHead(303, { location: '/', 'set-cookie': `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`, ...NO_FRAMING });
    response.end();
  }

  function logout(request: IncomingMessage, response: ServerResponse): void {
    access.closeSession(request);
    response.writeHead(303, { location: '/', 'set-cookie': `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`, ...NO_FRAMING });
    response.end();
  }

  server.on('upgrade', (request: IncomingMessage, stream, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://recdeck');
    const refuse = (status: string, why: string, extra = '') =>
      stream.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(why)}\r\n\r\n${why}`);
    if (url.pathname !== '/ws') return refuse('404 Not Found', `no WebSocket at ${url.pathname}; it is /ws`);
    if (!hostAllowed(request, hosts)) return refuse('421 Misdirected Request', 'this bridge does not answer to that name');
    const admitted = admission(request);
    if (!admitted.ok && admitted.waitS > 0) return refuse('429 Too Many Requests', tooManyGuesses(admitted.waitS), `Retry-After: ${admitted.waitS}\r\n`);
    if (!admitted.ok) return refuse('401 Unauthorized', 'a password is required');
    if (!sameOrigin(request)) return refuse('403 Forbidden', 'another site may not open the web deck\'s socket');
    if (socket.full) return refuse('503 Service Unavailable', `the web deck has ${socket.clientCount} clients already, the most it takes: close another tab or window first`);
    sockets.handleUpgrade(request, stream, head, (ws) => socket.attach(ws));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 7900, host, () => resolve());
    });
  } catch (error) {
    // Not listening (port in use, no such address): the socket's ping timer and the metrics' must not
    // keep the process alive after the caller reports the failure.
    socket.close();
    metrics.stop();
    sockets.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${secure ? 'https' : 'http'}://${shownHost}:${port}`,
    port,
    webClients: () => socket.clientCount,
    changePassword: (next) => {
      access.changePassword(next); // throws on a password too short, before anything changed
      socket.closeClients('the web password changed: log in again');
    },
    addWebSurface: (surface) => socket.addWebSurface(surface),
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
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...NO_FRAMING, ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  send(response, status, 'application/json', JSON.stringify(value), headers);
}

async function sendFile(response: ServerResponse, file: string, type: string, status: number): Promise<void> {
  send(response, status, type, await readFile(`${PAGE_FOLDER}${file}`), { 'content-security-policy': PAGE_POLICY });
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
