/** One request the simulator received on /api, for tests that check exactly what was sent. */
export interface LoggedRequest {
  seq: number;
  at: number;
  /** Wall-clock ms with sub-ms precision when the request arrived (for latency benchmarks). */
  receivedAt: number;
  method: string;
  /** The path as received (percent-encoding kept). */
  path: string;
  /** The operation it matched (e.g. "recStart"), or null. */
  operation: string | null;
  /** The request body as text; empty when none. */
  body: string;
  authorized: boolean;
  status: number;
}

/** The last `capacity` requests, oldest first. */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;
  constructor(private readonly capacity = 2000) {}

  add(entry: Omit<LoggedRequest, 'seq'>): LoggedRequest {
    const logged = { seq: ++this.seq, ...entry };
    this.entries.push(logged);
    if (this.entries.length > this.capacity) this.entries.shift();
    return logged;
  }

  list(): readonly LoggedRequest[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
  }
}
