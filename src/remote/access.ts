// Who may use the remote server. On loopback it is open (as Companion's is), but a web page from another
// origin must not be able to press keys through the operator's browser, so writes and the WebSocket
// check Origin. Beyond loopback a password is required on every request and on the WebSocket: as
// `Authorization: Bearer <password>` from programs, or a session cookie set by the login form.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'recdeck_session';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export class AccessControl {
  private readonly sessions = new Set<string>();
  private readonly passwordDigest: Buffer | null;

  constructor(password: string | null) {
    this.passwordDigest = password === null ? null : digest(password);
  }

  get needsPassword(): boolean {
    return this.passwordDigest !== null;
  }

  /** Compared in constant time (over digests, so the length does not leak either). */
  passwordMatches(candidate: string): boolean {
    return this.passwordDigest !== null && timingSafeEqual(digest(candidate), this.passwordDigest);
  }

  /** A new browser session after a good login; the cookie value is random, never the password. */
  openSession(): string {
    const id = randomBytes(24).toString('base64url');
    this.sessions.add(id);
    return id;
  }

  allows(request: IncomingMessage): boolean {
    if (this.passwordDigest === null) return true;
    const header = request.headers.authorization;
    if (header?.startsWith('Bearer ') && this.passwordMatches(header.slice('Bearer '.length))) return true;
    const session = cookie(request, SESSION_COOKIE);
    return session !== null && this.sessions.has(session);
  }
}

function cookie(request: IncomingMessage, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

/**
 * On loopback the bridge answers only to loopback host names. Otherwise a web page could rebind its
 * own name to 127.0.0.1 (DNS rebinding) and then count as "same origin" with the bridge.
 */
export function hostAllowed(request: IncomingMessage, listensOnLoopback: boolean): boolean {
  if (!listensOnLoopback) return true;
  const host = request.headers.host;
  if (host === undefined) return true; // not a browser (HTTP/1.0 tools)
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.split(':')[0];
  return name !== undefined && isLoopback(name);
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
