/** Where the engine reports what operators and integrators need to know. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** What an operator chasing a fault wants and nobody else: each request and answer, each failed read, each device and lease change. */
  debug?(message: string): void;
}

/** One command, for the audit log: who pressed what, what was sent, and how it went. */
export interface CommandRecord {
  at: number;
  surface: string;
  control: string;
  action: string;
  recorder: string | null;
  /** e.g. "PUT /api/channels/0/rec-start"; null when nothing was sent. */
  request: string | null;
  result: 'ok' | 'failed' | 'refused';
  /** The recorder's answer on failure, or why it was refused. */
  message: string | null;
  /** From the input event to the request leaving the bridge; null when nothing was sent. */
  requestAfterMs: number | null;
  /** From the input event to the answer (or the refusal). */
  latencyMs: number;
}
