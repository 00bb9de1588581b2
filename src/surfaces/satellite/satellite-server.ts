// The Companion Satellite API server: Satellite clients (Companion Satellite on a Pi at a camera
// position, or any client of the protocol) connect over TCP or WebSocket, and every device they add
// becomes a recdeck surface. A SurfaceSource: surfaces$ says which come and go.
//
// The protocol has no authentication: the server listens on loopback unless told otherwise, takes only
// the addresses of --satellite-allow when given, and says so loudly when it listens beyond loopback
// with no such list. Every client is bounded: its line length, its devices, what waits to be written
// to it (a client that does not read is hung up on), and the number of clients.
import { BlockList, createServer, isIP, type Server, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { Observable, Subject } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';
import { messageOf } from '../../api/errors.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import type { SurfaceEvent, SurfaceSource } from '../../engine/surface.js';
import { ClientConnection, type ClientHooks, type ClientLink } from './client-connection.js';
import { MAX_LINE_LENGTH, errorLine } from './protocol.js';

export const DEFAULT_SATELLITE_PORT = 16622;
export const DEFAULT_SATELLITE_WS_PORT = 16623;
/** Clients at once; past it a new one is told why and hung up on. */
export const MAX_CLIENTS = 64;
/** What may wait to be written to one client before it counts as not reading and is hung up on. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export interface SatelliteServerOptions {
  host: string;
  /** 0: any free port. */
  tcpPort: number;
  wsPort: number;
  /** Addresses and CIDR ranges that may connect; empty: any that reach the host. */
  allow: readonly string[];
  log: Logger;
  time: EngineTime;
  /** recdeck's version, for BEGIN. */
  version: string;
  /** A client silent this long is hung up on (5 s, as Companion); null: never (tests on virtual time). */
  idleMs?: number | null;
}

export class SatelliteServer implements SurfaceSource {
  readonly name = 'Companion Satellite';
  private readonly events = new Subject<SurfaceEvent>();
  /**
   * The devices present when one starts following (as `added`), then every change. The server listens
   * before the bridge follows it (so that a port in use stops `recdeck run` before anything starts),
   * and a Satellite client connects the moment it can (it retries every second): a device it adds in
   * between would otherwise be answered OK and never become a surface.
   */
  readonly surfaces$: Observable<SurfaceEvent> = new Observable<SurfaceEvent>((subscriber) => {
    for (const client of this.clients) for (const surface of client.connection.surfaces) subscriber.next({ type: 'added', surface });
    return this.events.subscribe(subscriber);
  });
  private readonly clients = new Set<{ connection: ClientConnection; hangUp: () => void }>();
  /** Device ids across every client: one device id is one surface. */
  private readonly claimed = new Set<string>();
  private readonly allowed: BlockList | null;
  private readonly refusedSaid = new Set<string>();
  private tcp: Server | null = null;
  private ws: WebSocketServer | null = null;

  constructor(private readonly options: SatelliteServerOptions) {
    this.allowed = options.allow.length === 0 ? null : allowList(options.allow);
  }

  /** Listens on both ports; rejects (naming the flag) when one cannot be had. */
  async listen(): Promise<void> {
    const { host, log } = this.options;
    this.tcp = createServer((socket) => this.acceptTcp(socket));
    await listening(this.tcp, host, this.options.tcpPort, '--satellite-port');
    this.ws = new WebSocketServer({ host, port: this.options.wsPort, maxPayload: MAX_LINE_LENGTH * 4 });
    const ws = this.ws;
    await new Promise<void>((resolve, reject) => {
      ws.once('listening', resolve);
      ws.once('error', (error) => reject(new Error(`--satellite-ws-port: cannot listen on ${host}:${this.options.wsPort}: ${messageOf(error)}`)));
    });
    ws.on('error', (error) => log.error(`satellite WebSocket server: ${messageOf(error)}`));
    ws.on('connection', (socket, request) => this.acceptWs(socket, request.socket.remoteAddress ?? '?', request.socket.remotePort ?? 0));
    const { tcp, ws: wsPort } = this.ports;
    log.info(`Companion Satellite: listening on ${host} TCP ${tcp}, WebSocket ${wsPort}${this.allowed ? ` for ${this.options.allow.join(', ')}` : ''}`);
    if (!isLoopback(host) && this.allowed === null) log.warn(`Companion Satellite listens on ${host}, beyond loopback, and its protocol has no authentication: anyone who reaches it can press keys; give --satellite-allow ADDRESS|CIDR for the Satellite machines`);
  }

  get ports(): { tcp: number; ws: number } {
    const tcp = this.tcp?.address();
    const ws = this.ws?.address();
    return { tcp: typeof tcp === 'object' && tcp ? tcp.port : 0, ws: typeof ws === 'object' && ws ? ws.port : 0 };
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** What the server keeps across clients, for the check that connections coming and going leave nothing behind. */
  get kept(): { clients: number; deviceIds: number; refusedAddresses: number } {
    return { clients: this.clients.size, deviceIds: this.claimed.size, refusedAddresses: this.refusedSaid.size };
  }

  /** Listening already (listen()); nothing more to start. */
  start(): void {}

  /** Hangs up on every client (their surfaces go) and stops listening. */
  async stop(): Promise<void> {
    for (const client of this.clients) client.hangUp();
    await Promise.all([...this.clients].map((client) => client.connection.closed()));
    this.clients.clear();
    await Promise.all([new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve())), new Promise<void>((resolve) => (this.ws ? this.ws.close(() => resolve()) : resolve()))]);
    this.events.complete();
  }

  private acceptTcp(socket: Socket): void {
    socket.on('error', (error) => this.options.log.debug?.(`satellite ${socket.remoteAddress}:${socket.remotePort}: ${messageOf(error)}`));
    const name = `${socket.remoteAddress}:${socket.remotePort}`;
    const link: ClientLink = {
      send: (line) => {
        if (socket.destroyed) return Promise.reject(new Error('the client is gone'));
        if (socket.writableLength > MAX_BUFFERED_BYTES) return this.notReading(name, () => socket.destroy());
        return new Promise((resolve, reject) => socket.write(line, (error) => (error ? reject(error) : resolve())));
      },
      hangUp: () => socket.destroy(),
    };
    const client = this.admit(socket.remoteAddress ?? '?', name, link);
    if (client === null) return;
    socket.setNoDelay(true);
    const decoder = new StringDecoder('utf8');
    socket.on('data', (data) => client.receive(decoder.write(data)));
    socket.on('close', () => void this.gone(client));
    client.begin();
  }

  private acceptWs(socket: WebSocket, address: string, port: number): void {
    socket.on('error', (error) => this.options.log.debug?.(`satellite ws ${address}:${port}: ${messageOf(error)}`));
    const name = `ws ${address}:${port}`;
    const link: ClientLink = {
      send: (line) => {
        if (socket.readyState !== socket.OPEN) return Promise.reject(new Error('the client is gone'));
        if (socket.bufferedAmount > MAX_BUFFERED_BYTES) return this.notReading(name, () => socket.terminate());
        return new Promise((resolve, reject) => socket.send(line, (error) => (error ? reject(error) : resolve())));
      },
      hangUp: () => socket.terminate(),
    };
    const client = this.admit(address, name, link);
    if (client === null) return;
    socket.on('message', (data, isBinary) => client.receive(isBinary ? '' : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8')));
    socket.on('close', () => void this.gone(client));
    client.begin();
  }

  /** A client that may connect gets its connection; one that may not is told why (when it can be) and hung up on. */
  private admit(address: string, name: string, link: ClientLink): ClientConnection | null {
    const plain = unmapped(address);
    if (this.allowed !== null && !this.allowed.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4')) {
      // Said once per address: a client retrying every second must not fill the log.
      if (this.refusedSaid.size < 1000 && !this.refusedSaid.has(plain)) {
        this.refusedSaid.add(plain);
        this.options.log.warn(`Companion Satellite: refused ${plain}, not in --satellite-allow`);
      }
      link.hangUp();
      return null;
    }
    if (this.clients.size >= MAX_CLIENTS) {
      link.send(errorLine(null, null, `recdeck takes at most ${MAX_CLIENTS} Satellite clients at once`)).catch(() => undefined).finally(() => link.hangUp());
      return null;
    }
    const hooks: ClientHooks = {
      claim: (deviceId) => {
        if (this.claimed.has(deviceId)) return false;
        this.claimed.add(deviceId);
        return true;
      },
      release: (deviceId) => void this.claimed.delete(deviceId),
      added: (surface) => this.events.next({ type: 'added', surface }),
      removed: (id) => this.events.next({ type: 'removed', id }),
    };
    const connection = new ClientConnection(link, hooks, { name, log: this.options.log, time: this.options.time, idleMs: this.options.idleMs === undefined ? 5000 : this.options.idleMs, version: this.options.version });
    this.clients.add({ connection, hangUp: () => link.hangUp() });
    this.options.log.info(`Companion Satellite: ${name} connected`);
    return connection;
  }

  private async gone(connection: ClientConnection): Promise<void> {
    for (const client of this.clients) if (client.connection === connection) this.clients.delete(client);
    const devices = connection.deviceCount;
    await connection.closed();
    this.options.log.info(`Companion Satellite: a client left${devices > 0 ? ` with ${devices} device${devices === 1 ? '' : 's'}` : ''}`);
  }

  private notReading(name: string, hangUp: () => void): Promise<void> {
    this.options.log.warn(`Companion Satellite: ${name} does not read what it is sent (over ${MAX_BUFFERED_BYTES} bytes waiting): hung up`);
    hangUp();
    return Promise.reject(new Error('the client does not read'));
  }
}

/** Makes the server and listens; the caller follows it as a SurfaceSource and stops it. */
export async function startSatelliteServer(options: SatelliteServerOptions): Promise<SatelliteServer> {
  const server = new SatelliteServer(options);
  try {
    await server.listen();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** `10.0.0.5`, `10.0.0.0/24`, `fd00::/8`: a list; an entry that is neither address nor range throws, naming it. */
export function allowList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (family === 0 || extra !== undefined || Number.isNaN(bits) || (bits !== null && bits > (family === 4 ? 32 : 128))) {
      throw new Error(`--satellite-allow: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 10.0.0.0/24)`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === null) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

/** An IPv4 client of a dual-stack socket comes as ::ffff:a.b.c.d. */
function unmapped(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function listening(server: Server, host: string, port: number, flag: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code === 'EADDRINUSE' ? `${flag}: port ${port} on ${host} is in use (is Companion itself running here?); give another ${flag}` : `${flag}: cannot listen on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, () => resolve());
  });
}
