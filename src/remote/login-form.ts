// A login form's body, read with a deadline: a client that sends the headers and then the form a byte
// at a time, or never, must not hold its connection and its place among the logins under way for long.
// The deadline runs on the injected scheduler, so it is tested on virtual time.
import type { IncomingMessage } from 'node:http';
import type { SchedulerLike } from 'rxjs';

/** A form holds one password: anything longer is not a login. */
export const MAX_LOGIN_FORM_BYTES = 4096;
/** From the headers to the end of the form, at most (10 s: a phone on bad Wi-Fi sends a few bytes in far less). */
export const DEFAULT_LOGIN_FORM_MS = 10_000;

export type LoginForm =
  | { kind: 'read'; password: string }
  | { kind: 'late' }
  | { kind: 'too-large' }
  /** The client closed the connection first. */
  | { kind: 'gone' };

export function readLoginForm(request: IncomingMessage, scheduler: SchedulerLike, deadlineMs: number): Promise<LoginForm> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (form: LoginForm) => {
      if (settled) return;
      settled = true;
      deadline.unsubscribe();
      resolve(form);
    };
    const deadline = scheduler.schedule(() => settle({ kind: 'late' }), deadlineMs);
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_LOGIN_FORM_BYTES) return settle({ kind: 'too-large' });
      if (!settled) chunks.push(chunk);
    });
    request.on('end', () => settle({ kind: 'read', password: new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('password') ?? '' }));
    request.on('error', () => settle({ kind: 'gone' }));
    request.on('close', () => settle({ kind: 'gone' }));
  });
}
