// A Companion Satellite client for the tests, written from the protocol as Companion documents it for
// developers (not from recdeck's server): lines of `COMMAND KEY=VALUE KEY="quoted value" FLAG` ended by
// a newline, over TCP or over a WebSocket whose messages carry the same lines. It keeps every message it
// receives, in order, and waits for them in real time (bounded), as one waits for any socket.
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { WAIT_MS, until } from '../../support/until.js';

export interface Received {
  name: string;
  /** OK or ERROR, for answers. */
  status: 'OK' | 'ERROR' | null;
  params: Record<string, string | true>;
  raw: string;
  /** What `arrivalMark` said when the line arrived (an e2e test stamps lines with the recorder's request count). */
  mark: number;
}

export class SatelliteTestClient {
  readonly received: Received[] = [];
  closed = false;
  /** Read as each line arrives, and kept with it; by default nothing to stamp (0). */
  arrivalMark: () => number = () => 0;
  private buffer = '';
  private pings: ReturnType<typeof setInterval> | undefined;

  private constructor(private readonly write: (text: string) => void, private readonly hangUp: () => void) {}

  static async tcp(port: number): Promise<SatelliteTestClient> {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    const client = new SatelliteTestClient((text) => socket.write(text), () => socket.destroy());
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => client.take(text));
    socket.on('close', () => (client.closed = true));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return client;
  }

  static async ws(port: number): Promise<SatelliteTestClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    const client = new SatelliteTestClient((text) => socket.send(text), () => socket.terminate());
    socket.on('message', (data) => client.take(data.toString()));
    socket.on('close', () => (client.closed = true));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  /** Sends text as it is (a test of bad input writes what it likes). */
  sendRaw(text: string): void {
    this.write(text);
  }

  /** Sends one message: text values quoted, numbers bare, yes/no as 1/0. */
  send(name: string, args: Record<string, string | number | boolean> = {}): void {
    const parts = [name, ...Object.entries(args).map(([key, value]) => `${key}=${typeof value === 'string' ? `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"` : typeof value === 'number' ? value : value ? 1 : 0}`)];
    this.write(`${parts.join(' ')}\n`);
  }

  /**
   * PINGs every `everyMs` until the link ends, as a real Satellite client does: a server (Companion, and
   * recdeck against a real process) hangs up on a client silent for 5 s. A test that waits seconds for a
   * busy recdeck's first bitmaps without a word was hung up on (run-satellite, at load 14-34) and never
   * got them. Not for tests on virtual time, whose servers watch no silence.
   */
  keepAlive(everyMs = 1000): void {
    this.pings ??= setInterval(() => {
      if (this.closed) this.stopPinging();
      else this.write('PING\n');
    }, everyMs);
  }

  /** Drops the link without a word (a cable pulled, a Pi losing power). */
  drop(): void {
    this.stopPinging();
    this.hangUp();
  }

  private stopPinging(): void {
    clearInterval(this.pings);
    this.pings = undefined;
  }

  /**
   * Waits for the first message after `from` (an index into `received`) that matches; returns it. Asked
   * every 2 ms (a line on loopback comes within one): a test of many short exchanges (60 clients) spent
   * seconds on until()'s default 20 ms between asks. The bound is until()'s. `match` looks at the message
   * alone (received messages never change), so a message seen not to match is not asked again.
   */
  async expect(match: (message: Received) => boolean, what: string, from = 0): Promise<Received> {
    let found: Received | undefined;
    // Looked for from where the last ask stopped (what was seen not to match is not asked again), without
    // copying `received`: a client sent hundreds of bitmaps is asked every 2 ms.
    let next = from;
    const look = () => {
      for (; next < this.received.length; next++) {
        if (match(this.received[next] as Received)) return (found = this.received[next]) !== undefined;
      }
      return false;
    };
    await until(look, what, WAIT_MS, 2);
    return found as Received;
  }

  /** Waits for the answer (OK or ERROR) to a command, after `from`. */
  answer(name: string, from: number, device?: string): Promise<Received> {
    return this.expect((m) => m.name === name && m.status !== null && (device === undefined || m.params.DEVICEID === device), `${name} answered`, from);
  }

  /** The KEY-STATE messages for a device so far. */
  keyStates(device: string): Received[] {
    return this.received.filter((m) => m.name === 'KEY-STATE' && m.params.DEVICEID === device);
  }

  private take(text: string): void {
    this.buffer += text;
    // Lines cut from where the last one ended, and the rest kept once: cutting the buffer after each
    // line copied the rest of a burst of 57 kB bitmap lines again for every line.
    let start = 0;
    for (let end = this.buffer.indexOf('\n'); end !== -1; end = this.buffer.indexOf('\n', start)) {
      const line = this.buffer.slice(start, end);
      start = end + 1;
      if (line.trim() !== '') this.received.push({ ...parseMessage(line), mark: this.arrivalMark() });
    }
    this.buffer = this.buffer.slice(start);
  }
}

/** Where the tokenizer must look: an escape, a quote or a space; everything between is copied as a run. */
const SPECIAL = /[\\" ]/g;

/**
 * One received line, as the protocol documents it: a name, an optional OK/ERROR, then parameters.
 * Runs of plain characters are copied whole (a bitmap is 20-57 kB of base64; built a character at a time
 * it was the file's largest CPU cost).
 */
function parseMessage(line: string): Omit<Received, 'mark'> {
  const tokens: string[] = [];
  let token = '';
  let inQuotes = false;
  let any = false;
  for (let i = 0; i < line.length; ) {
    SPECIAL.lastIndex = i;
    const special = SPECIAL.exec(line);
    const at = special === null ? line.length : special.index;
    if (at > i) {
      token += line.slice(i, at);
      any = true;
    }
    if (special === null) break;
    const c = line.charAt(at);
    if (c === '\\') {
      token += line.charAt(at + 1);
      i = at + 2;
      any = true;
    } else if (c === '"') {
      inQuotes = !inQuotes;
      i = at + 1;
      any = true;
    } else if (inQuotes) {
      token += c;
      i = at + 1;
      any = true;
    } else {
      if (any) tokens.push(token);
      token = '';
      any = false;
      i = at + 1;
    }
  }
  if (any) tokens.push(token);
  const [name = '', ...rest] = tokens;
  const status = rest[0] === 'OK' || rest[0] === 'ERROR' ? (rest.shift() as 'OK' | 'ERROR') : null;
  const params: Record<string, string | true> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq === -1) params[part] = true;
    else params[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return { name, status, params, raw: line };
}

/** A bitmap's RGB bytes. */
export function bitmapOf(message: Received): Buffer {
  const bitmap = message.params.BITMAP;
  if (typeof bitmap !== 'string') throw new Error(`no BITMAP in ${message.raw.slice(0, 80)}`);
  return Buffer.from(bitmap, 'base64');
}

/** A layout manifest, base64 of its JSON, as ADD-DEVICE carries it. */
export function manifestParam(manifest: unknown): string {
  return Buffer.from(JSON.stringify(manifest)).toString('base64');
}
