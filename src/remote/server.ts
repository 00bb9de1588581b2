// The remote server: the web deck page, its WebSocket, and the remote-control API, on node:http (or
// node:https when given a certificate).
import { readFile } from 'node:fs/promises';
import { STATUS_CODES, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Ws from 'ws';
import { messageOf } from '../api/errors.js';
import type { Bridge } from '../engine/bridge.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { AccessControl, DEFAULT_SESSION_IDLE_MS, SESSION_COOKIE, allowedHostNames, hostAllowed, isLoopback, sameOrigin } from './access.js';
import { ApiError, answerApi, decodePart, type RecorderWarnings } from './api.js';
import type { AlarmMonitor } from '../engine/alarms/alarm-monitor.js';
import { alarmMetrics } from './alarm-metrics.js';
import { answerAlarms } from './alarms-api.js';
import { bridgeMetrics } from './bridge-metrics.js';
import { ClientAddresses } from './client-address.js';
import { DEFAULT_DECK_SOCKET_LIMITS, DeckSocket, type DeckSocketLimits } from './deck-socket.js';
import { DEFAULT_LOGIN_FORM_MS, readLoginForm } from './login-form.js';
import type { ProfileEditing } from './profiles-api.js';
import { DEFAULT_MAX_LOGINS_UNDER_WAY, LoginThrottle, MAX_WAIT_S, type Arrival, type Guess } from './login-throttle.js';

// Required, not imported: Node scans a CommonJS module imported from an ES module for its export names,
// and ws's ES wrapper imports eight of its files (60-80 ms of CPU more than a require, paid by every
// start with a web deck before its ready line; docs/performance.md, "CommonJS packages required").
const { WebSocketServer } = createRequire(import.meta.url)('ws') as typeof Ws;

export interface RemoteServerOptions {
  bridge: Bridge;
  log: Logger;
  host?: string;
  /** 0: any free port. No default here: the command line's --web-port has the one (7900). */
  port: number;
  /** Required when the host is not loopback; at least 8 characters. */
  password?: string | null;
  /** More host names to answer to (a reverse proxy's public name); --web-allow-host. */
  allowHosts?: readonly string[];
  /** PEM certificate and key: serve HTTPS and WSS, and mark the session cookie Secure. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** A browser session ends after this long without a request (default 12 h). */
  sessionIdleMs?: number;
  socketLimits?: Partial<DeckSocketLimits>;
  /**
   * Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges; --web-trust-proxy): the
   * login throttle then counts each of their clients on its own.
   */
  trustProxies?: readonly string[];
  loginLimits?: Partial<LoginLimits>;
  timeouts?: Partial<ServerTimeouts>;
  /** The profile editor's files (GET /profiles …): reading always, writing when `allowed` (--allow-edit). Absent: no editor. */
  profileEditing?: ProfileEditing | null;
  /** The alarm engine: GET /alarms, POST /alarms/{id}/ack and its metrics. Absent: none. */
  alarms?: AlarmMonitor | null;
  /** What /healthz says is wrong with this process's hold on a recorder (the state bus's pollers). Absent: nothing. */
  warnings?: RecorderWarnings;
  /** The clock and scheduler of sessions, login slowing, login deadlines and the deck socket; the bridge's own (one clock) unless a test gives another. */
  time: EngineTime;
}

export interface LoginLimits {
  /** Logins from one address whose form is still arriving, at most (default 8); the next gets 429 at once. */
  underWay: number;
  /** A login form must arrive within this long of its headers (default 10 s), or it gets 408 and its connection is closed. */
  formMs: number;
}

/**
 * Node's own limits on every connection, set on purpose rather than left at Node's defaults (300 s for a
 * request): how long the headers may take to arrive, the whole request, and an idle kept-alive
 * connection. Node checks them every CONNECTIONS_CHECK_MS.
 */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };
const CONNECTIONS_CHECK_MS = 1000;

export interface RunningRemoteServer {
  url: string;
  port: number;
  /** Web deck clients connected now. */
  webClients: () => number;
  /** Sets a new password and ends every session, the pages' open links included. */
  changePassword: (password: string) => void;
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
  '/deck-alarms.js': { file: 'deck-alarms.js', type: 'text/javascript; charset=utf-8' },
  '/deck.css': { file: 'deck.css', type: 'text/css; charset=utf-8' },
  '/editor.js': { file: 'editor.js', type: 'text/javascript; charset=utf-8' },
  '/editor-form.js': { file: 'editor-form.js', type: 'text/javascript; charset=utf-8' },
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
  const { time } = options;
  const { log } = options;
  const access = new AccessControl(password, time, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS);
  const loginLimits: LoginLimits = { underWay: DEFAULT_MAX_LOGINS_UNDER_WAY, formMs: DEFAULT_LOGIN_FORM_MS, ...options.loginLimits };
  const throttle = new LoginThrottle(time, loginLimits.underWay);
  const addresses = new ClientAddresses(options.trustProxies ?? [], (proxy, header) =>
    log.warn(`remote server: the trusted proxy ${proxy} sent a malformed X-Forwarded-For (${JSON.stringify(header.slice(0, 200))}): its requests count as the proxy's own address (said once)`),
  );
  const hosts = allowedHostNames(host, options.allowHosts ?? []);
  const secure = options.tls != null;
  const metrics = bridgeMetrics(options.bridge);
  const alarmRegistry = options.alarms ? alarmMetrics(options.alarms, options.bridge) : null;
  const metricsText = async () => (await metrics.text()) + (alarmRegistry ? await alarmRegistry.metrics() : '');
  const socket = new DeckSocket(options.bridge, log, { ...DEFAULT_DECK_SOCKET_LIMITS, ...options.socketLimits }, time);
  if (options.alarms) socket.followAlarms(options.alarms); // the page's alarm banner (issue 36)
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    serve(request, response).catch((error: unknown) => {
      log.error(`remote server: ${request.method} ${request.url}: ${messageOf(error)}`);
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
    });
  };
  const serverOptions = { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, keepAliveTimeout: timeouts.keepAliveMs, connectionsCheckingInterval: CONNECTIONS_CHECK_MS };
  const server = options.tls ? createTlsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, handle) : createServer(serverOptions, handle);

  /**
   * Whether the request may go on (null) or why not. A Bearer password is a guess: counted against the
   * client's address as it arrives, and an address that guessed too often waits (429) before any guess
   * of it is looked at. A session cookie is no guess: an open session is never throttled.
   */
  function admission(request: IncomingMessage): Refusal | null {
    const bearer = AccessControl.bearer(request);
    if (access.needsPassword && bearer !== null) {
      const address = addresses.of(request);
      const arrival = throttle.arrive(address);
      if (arrival.kind !== 'taken') return notTaken(address, arrival);
      if (access.passwordMatches(bearer)) arrival.guess.right();
      else wrongPassword(address, arrival.guess);
      arrival.guess.finished();
    }
    return access.allows(request) ? null : { status: 401, why: 'a password is required: send Authorization: Bearer <password>', headers: { 'www-authenticate': 'Bearer realm="recdeck"' } };
  }

  /** The answer to a guess the throttle did not take; the log says so once an episode, not per request. */
  function notTaken(address: string, arrival: Exclude<Arrival, { kind: 'taken' }>): Refusal {
    if (arrival.kind === 'busy') {
      return { status: 429, why: `${arrival.underWay} logins from this address are still arriving, the most it may have: try again when one is answered`, headers: { 'retry-after': '1' } };
    }
    if (arrival.firstRefusal) {
      log.warn(`remote server: ${address} is throttled after ${arrival.inARow} wrong passwords in a row: its guesses wait ${arrival.waitS} s, doubling with each wrong one (up to ${MAX_WAIT_S / 60} min), until it logs in or has been quiet for an hour; open sessions go on (said once)`);
    }
    return { status: 429, why: `too many wrong passwords from this address: try again in ${arrival.waitS} s`, headers: { 'retry-after': String(arrival.waitS) } };
  }

  function wrongPassword(address: string, guess: Guess): void {
    log.warn(`remote server: wrong password from ${address} (${guess.inARow} in a row)`);
  }

  /** Refusals close the connection: nothing more of an unauthenticated client is read. */
  const refuse = (response: ServerResponse, refusal: Refusal) => sendJson(response, refusal.status, { error: refusal.why }, { ...refusal.headers, connection: 'close' });

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
    // The stylesheet holds nothing of the bridge's, and the login form needs it before any session.
    if (url.pathname === '/deck.css' && method === 'GET' && page) return sendFile(response, page.file, page.type, 200);
    const refusal = admission(request);
    if (refusal !== null) {
      if (refusal.status === 401 && page && method === 'GET') return sendFile(response, 'login.html', 'text/html; charset=utf-8', 401, { connection: 'close' });
      return refuse(response, refusal);
    }
    if (method !== 'GET' && !sameOrigin(request)) {
      return sendJson(response, 403, { error: `requests from another site (${request.headers.origin}) may not drive the bridge` });
    }
    if (page && method === 'GET') return sendFile(response, page.file, page.type, 200);
    if (options.profileEditing && url.pathname.split('/')[1] === 'profiles') return editProfiles(request, response, url, options.profileEditing);
    try {
      const alarmAnswer = options.alarms ? await answerAlarms(method, url.pathname.split('/').slice(1).map(decodePart), options.alarms, `${addresses.of(request)} (remote API)`) : null;
      const answer = alarmAnswer ?? (await answerApi(request, url, { bridge: options.bridge, metricsText, warnings: options.warnings }));
      if (answer === null) return sendJson(response, 404, { error: `no route ${method} ${url.pathname}` });
      send(response, answer.status, answer.type, answer.body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      sendJson(response, error.status, { error: error.message });
    }
  }

  /**
   * The profile editor. Without a password only this machine may write (the server answers beyond it
   * only with one, but a reverse proxy on this machine could pass others on); the audit log names who.
   */
  async function editProfiles(request: IncomingMessage, response: ServerResponse, url: URL, editing: ProfileEditing): Promise<void> {
    const address = addresses.of(request);
    const method = request.method ?? 'GET';
    if (method !== 'GET' && !access.needsPassword && !isLoopback(address)) {
      return sendJson(response, 403, { error: `editing profiles from ${address} (beyond this machine) needs the web password: start recdeck with --web-password-file` });
    }
    const how = !access.needsPassword ? 'loopback, no password set' : AccessControl.bearer(request) !== null ? 'password' : 'web session';
    let parts: string[];
    try {
      parts = url.pathname.split('/').slice(1).map(decodePart);
    } catch (error) {
      return sendJson(response, 400, { error: messageOf(error) });
    }
    // The editor's API (its JSON Schema of the profile format, the YAML editing, the checks) is imported
    // at its first request: a bridge nobody edits on never marks it (docs/performance.md, "A smaller live heap").
    const { answerProfiles } = await import('./profiles-api.js');
    const answer = await answerProfiles(request, parts, options.bridge, editing, `${address} (${how})`);
    if (answer === null) return sendJson(response, 404, { error: `no route ${method} ${url.pathname}` });
    sendJson(response, answer.status, answer.body, answer.headers ?? {});
  }

  /**
   * A form login is counted as it arrives, before its form is read: an address that must wait, or that
   * has too many logins still arriving, is answered at once, and the form must arrive within a deadline.
   */
  async function login(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!access.needsPassword) return refuse(response, { status: 401, why: 'no password is set on this bridge' });
    const address = addresses.of(request);
    const arrival = throttle.arrive(address);
    if (arrival.kind !== 'taken') return refuse(response, notTaken(address, arrival));
    const { guess } = arrival;
    try {
      const form = await readLoginForm(request, time.scheduler, loginLimits.formMs);
      if (form.kind === 'gone') return;
      if (form.kind === 'late') return refuse(response, { status: 408, why: `the login form did not arrive within ${loginLimits.formMs / 1000} s of its headers` });
      if (form.kind === 'too-large') return refuse(response, { status: 413, why: 'a login form is a password, not this much' });
      if (!access.passwordMatches(form.password)) {
        wrongPassword(address, guess);
        return refuse(response, { status: 401, why: 'wrong password' });
      }
      guess.right();
    } finally {
      guess.finished();
    }
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
    const refusal = admission(request);
    if (refusal !== null) {
      const headers = Object.entries(refusal.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      return refuse(`${refusal.status} ${STATUS_CODES[refusal.status]}`, refusal.why, headers);
    }
    if (!sameOrigin(request)) return refuse('403 Forbidden', 'another site may not open the web deck\'s socket');
    if (socket.full) return refuse('503 Service Unavailable', `the web deck has ${socket.clientCount} clients already, the most it takes: close another tab or window first`);
    sockets.handleUpgrade(request, stream, head, (ws) => socket.attach(ws));
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => resolve());
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
    close: async () => {
      socket.close();
      metrics.stop();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

}

/** Why a request is not served, and the headers that go with it (Retry-After, WWW-Authenticate). */
interface Refusal {
  status: number;
  why: string;
  headers?: Record<string, string>;
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...NO_FRAMING, ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  send(response, status, 'application/json', JSON.stringify(value), headers);
}

async function sendFile(response: ServerResponse, file: string, type: string, status: number, headers: Record<string, string> = {}): Promise<void> {
  send(response, status, type, await readFile(`${PAGE_FOLDER}${file}`), { 'content-security-policy': PAGE_POLICY, ...headers });
}
