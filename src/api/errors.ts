/** What went wrong on one request to the recorder. */
export type RecorderErrorKind =
  /** The service answered with a status other than 200. */
  | 'status'
  /** The service answered 200 with a body that does not match the interface. */
  | 'decode'
  /** No answer within the request's time limit. */
  | 'timeout'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The connection failed or was reset. */
  | 'network';

/**
 * A failed request: method, path (as sent, names percent-encoded), status and the service's own
 * message. It never carries the token: that only ever travels in the Authorization header.
 */
export class RecorderError extends Error {
  override readonly name = 'RecorderError';
  constructor(
    readonly kind: RecorderErrorKind,
    readonly method: string,
    readonly path: string,
    /** The service's message, or what we observed when it said nothing usable. */
    readonly serviceMessage: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${method} ${path} failed${status === undefined ? '' : ` with ${status}`} (${kind}): ${serviceMessage}`, options);
  }

  /** True when the service refused the token (the product answers 400 or 401 alike). */
  get isAuthFailure(): boolean {
    return this.status === 401 || (this.status === 400 && /authori[sz]|token/i.test(this.serviceMessage));
  }
}

/** What a caught value says: an Error's message, anything else as text (a library may throw a string). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
