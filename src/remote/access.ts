// Who may use the remote server. On loopback it is open (as Companion's is), but a web page from another
// origin must not be able to press keys through the operator's browser, so writes and the WebSocket
// check Origin. With a password (required beyond loopback) every request and the WebSocket need it: as
// `Authorization: Bearer <password>` from programs, or a session cookie set by the login form.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import type { EngineTime } from '../engine/engine-time.js';

export const SESSION_COOKIE = 'recdeck_session';
/** Shorter passwords fall to guessing within a studio day even when slowed down. */
export const MIN_PASSWORD_LENGTH = 8;
/** A browser session ends after this long without a request (12 hours: a long studio day). */
export const DEFAULT_SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Refuses a password too short to hold (the empty one included), with the reason. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`the web password is shorter than ${MIN_PASSWORD_LENGTH} characters${password === '' ? ' (it is empty)' : ''}: give a longer one (--web-password-file or RECDECK_WEB_PASSWORD)`);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export class AccessControl {
  /** Session id to the time of its last request. */
  private readonly sessions = new Map<string, number>();
  private passwordDigest: Buffer | null;

  constructor(
    password: string | null,
    private readonly time: Pick<EngineTime, 'now'>,
    private readonly idleMs = DEFAULT_SESSION_IDLE_MS,
  ) {
    if (password !== null) checkPassword(password);
    this.passwordDigest = password === null ? null : digest(password);
  }

  get needsPassword(): boolean {
    return this.passwordDigest !== null;
  }

  /** A new password ends every session: whoever logged in with the old one logs in again. */
  changePassword(password: string): void {
    checkPassword(password);
    this.passwordDigest = digest(password);
    this.sessions.clear();
  }

  /** Compared in constant time (over digests, so the length does not leak either). */
  passwordMatches(candidate: string): boolean {
    return this.passwordDigest !== null && timingSafeEqual(digest(candidate), this.passwordDigest);
  }

  /** A new browser session after a good login; the cookie value is random, never the password. */
  openSession(): string {
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, this.time.now());
    return id;
  }

  closeSession(request: IncomingMessage): void {
    const session = cookie(request, SESSION_COOKIE);
    if (session !== null) this.sessions.delete(session);
  }

  /** The password the request carries as a bearer token, if any (the scheme's name in any case: RFC 7235). */
  static bearer(request: IncomingMessage): string | null {
    const header = request.headers.authorization;
    return header !== undefined && /^bearer /i.test(header) ? header.slice('bearer '.length) : null;
  }

  allows(request: IncomingMessage): boolean {
    if (this.passwordDigest === null) return true;
    const bearer = AccessControl.bearer(request);
    if (bearer !== null && this.passwordMatches(bearer)) return true;
    return this.sessionLives(cookie(request, SESSION_COOKIE));
  }

  /** A session is alive while used; one idle too long is ended (and its cookie opens nothing). */
  private sessionLives(session: string | null): boolean {
    if (session === null) return false;
    const lastUsed = this.sessions.get(session);
    if (lastUsed === undefined) return false;
    const now = this.time.now();
    if (now - lastUsed > this.idleMs) {
      this.sessions.delete(session);
      return false;
    }
    this.sessions.set(session, now);
    return true;
  }
}

function cookie(request: IncomingMessage, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * The host names the server answers to. On loopback: loopback names only. Otherwise a web page could
 * rebind its own name to the bridge's address (DNS rebinding) and then count as "same origin", so in
 * LAN mode too only the bound address, this machine's names and addresses, and the names the operator
 * gave (--web-allow-host: a reverse proxy's public name) are accepted.
 */
export function allowedHostNames(boundHost: string, extra: readonly string[]): ReadonlySet<string> {
  const names = new Set(['localhost', '127.0.0.1', '::1', ...extra.map((n) => n.toLowerCase())]);
  if (isLoopback(boundHost)) return names;
  if (!WILDCARD.has(boundHost)) names.add(boundHost.toLowerCase());
  const machine = hostname().toLowerCase();
  names.add(machine);
  names.add(`${machine}.local`);
  for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(address.address.toLowerCase());
  return names;
}

/** The name in a Host header, without port or IPv6 brackets. */
function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : (host.split(':')[0] ?? '');
  return name.toLowerCase();
}

export function hostAllowed(request: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const host = request.headers.host;
  if (host === undefined) return true; // not a browser (HTTP/1.0 tools)
  const name = hostName(host);
  return allowed.has(name) || (allowed.has('127.0.0.1') && isLoopback(name));
}

/**
 * A browser sends Origin with cross-site requests; a request from our own page, or from a program
 * (no Origin), is fine. Anything else is another site trying to drive the recorder.
 */
export function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
