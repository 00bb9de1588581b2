// Stream Decks over the network: a Stream Deck Studio, and the deck plugged into a Network Dock, through
// @elgato-stream-deck/tcp (7.3.2, with its own nested @elgato-stream-deck/core 7.3.2; recdeck's USB
// decks use core 7.6.3: the StreamDeck interface the surface uses is the same in both). Each deck is a
// StreamDeckSurface, as over USB: same ids (streamdeck:<serial>), same models, same profiles.
//
// Staying connected is the library's job, and it does it without being asked again: a socket that
// closes is reopened every 5 s (RECONNECT_INTERVAL), and one that hears nothing for 5 s (a dock whose
// network went, which sends no FIN) is counted lost and reopened. The library says 'disconnected' and,
// once the deck answers again, 'connected' with a new deck object: this source closes the old surface
// and opens a new one with the same id, so the session draws every key again. A deck whose write fails
// (a surface closes itself on its device's first failure) is disconnected and connected afresh, so it
// too comes back by itself. The library's timers are real time (node_modules, not injectable); nothing
// here keeps time of its own.
//
// Decks are named (--streamdeck-tcp HOST[:PORT]) or, when asked for, found by mDNS (_elg._tcp). A deck
// found by mDNS is any deck on the LAN, so discovery is the operator's choice, not the default.
import { createRequire } from 'node:module';
import type { StreamDeck } from '@elgato-stream-deck/core';
import { Subject, type Observable } from 'rxjs';
import { messageOf } from '../../api/errors.js';
import type { EngineTime } from '../../engine/engine-time.js';
import type { Logger } from '../../engine/log.js';
import { LogLimiter } from '../../engine/log-limit.js';
import type { SurfaceEvent, SurfaceSource } from '../../engine/surface.js';
import { hasOwnControls, shortModelId } from './models.js';
import { StreamDeckSurface } from './streamdeck-surface.js';
import { formatTcpDeckAddress, type TcpDeckAddress } from './tcp-address.js';

/** The part of a deck the library hands over that is used here (its StreamDeckTcp). */
export interface TcpDeck extends StreamDeck {
  readonly remoteAddress: string;
  readonly remotePort: number;
}

/** The part of the library's StreamDeckTcpConnectionManager used here. */
export interface TcpConnections {
  connectTo(address: string, port?: number): void;
  disconnectFrom(address: string, port?: number): boolean;
  disconnectFromAll(): void;
  on(event: 'connected' | 'disconnected', listener: (deck: TcpDeck) => void): unknown;
  on(event: 'error', listener: (message: unknown) => void): unknown;
  removeAllListeners(): unknown;
}

/** What mDNS reports of a deck or dock (the library's StreamDeckTcpDefinition). */
export interface FoundTcpDeck {
  address: string;
  port: number;
  name: string;
}

/** The part of the library's StreamDeckTcpDiscoveryService used here. */
export interface TcpDiscovery {
  on(event: 'up', listener: (found: FoundTcpDeck) => void): unknown;
  destroy(): void;
}

/** The library's two classes, as loaded (tests may put another discovery in). */
export interface TcpDeckLibrary {
  connections(): TcpConnections;
  discovery(): TcpDiscovery;
}

export interface StreamDeckTcpSourceOptions {
  /** Decks named on the command line; each is connected at start and kept. */
  decks: readonly TcpDeckAddress[];
  /** Also connect to every deck and dock mDNS finds. */
  mdns: boolean;
  log: Logger;
  time: EngineTime;
  /** Loads the library; the default requires @elgato-stream-deck/tcp when the source starts. */
  load?: () => Promise<TcpDeckLibrary>;
}

export const loadTcpDeckLibrary = async (): Promise<TcpDeckLibrary> => {
  // CommonJS: required, not imported, and only when a network deck is asked for (it brings mDNS along).
  const library = createRequire(import.meta.url)('@elgato-stream-deck/tcp') as {
    StreamDeckTcpConnectionManager: new (options: { autoConnectToSecondaries: boolean }) => TcpConnections;
    StreamDeckTcpDiscoveryService: new () => TcpDiscovery;
  };
  return {
    // A Network Dock is a deck of its own (with no controls) whose plugged-in deck listens on a second
    // port: the library connects to that one by itself, and again when another deck is plugged in.
    connections: () => new library.StreamDeckTcpConnectionManager({ autoConnectToSecondaries: true }),
    discovery: () => new library.StreamDeckTcpDiscoveryService(),
  };
};

interface OpenDeck {
  deck: TcpDeck;
  surface: StreamDeckSurface;
}

export class StreamDeckTcpSource implements SurfaceSource {
  readonly name = 'Stream Deck (network)';
  readonly surfaces$: Observable<SurfaceEvent>;
  private readonly events = new Subject<SurfaceEvent>();
  /** By the connection's host:port: the deck the library connected there, and its surface. */
  private readonly open = new Map<string, OpenDeck>();
  /** Connections asked of the library (host:port), so none is asked twice. */
  private readonly asked = new Set<string>();
  private readonly errors: LogLimiter;
  private connections: TcpConnections | null = null;
  private discovery: TcpDiscovery | null = null;
  private stopped = false;

  constructor(private readonly options: StreamDeckTcpSourceOptions) {
    this.surfaces$ = this.events.asObservable();
    this.errors = new LogLimiter((message) => options.log.warn(message), options.time.now);
  }

  start(): void {
    void this.begin().catch((error: unknown) => this.options.log.error(`${this.name}: cannot start: ${messageOf(error)}; the other surfaces run on`));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.discovery?.destroy();
    this.connections?.removeAllListeners();
    // Opens under way fail as their sockets close, and the library says so as an 'error' event, which
    // would end the process with nobody listening: heard, and dropped (the source is gone).
    this.connections?.on('error', () => undefined);
    this.connections?.disconnectFromAll();
    const closing = [...this.open.values()].map(({ surface }) => surface.close());
    for (const { surface } of this.open.values()) this.events.next({ type: 'removed', id: surface.id });
    this.open.clear();
    await Promise.all(closing);
    this.events.complete();
  }

  private async begin(): Promise<void> {
    const library = await (this.options.load ?? loadTcpDeckLibrary)();
    if (this.stopped) return;
    const connections = library.connections();
    this.connections = connections;
    connections.on('connected', (deck) => void this.opened(deck));
    connections.on('disconnected', (deck) => this.lost(deck));
    // The library's own 'error' events (a deck of an unknown model, a failed open) would end the
    // process if nobody listened; they are logged, a flood kept to a few lines.
    connections.on('error', (message) => this.errors.say(`${this.name}: ${typeof message === 'string' ? message : messageOf(message)}`));
    for (const address of this.options.decks) this.connect(address);
    if (this.options.mdns) {
      this.discovery = library.discovery();
      this.discovery.on('up', (found) => {
        if (!this.asked.has(keyOf(found.address, found.port))) this.options.log.info(`${this.name}: mDNS found "${found.name}" at ${formatTcpDeckAddress({ host: found.address, port: found.port })}`);
        this.connect({ host: found.address, port: found.port });
      });
    }
  }

  private connect(address: TcpDeckAddress): void {
    const key = keyOf(address.host, address.port);
    if (this.stopped || this.connections === null || this.asked.has(key)) return;
    this.asked.add(key);
    this.options.log.info(`${this.name}: connecting to ${formatTcpDeckAddress(address)} (and again by itself whenever it is lost)`);
    this.connections.connectTo(address.host, address.port);
  }

  /** The library connected a deck (for the first time, or again): it becomes a surface. */
  private async opened(deck: TcpDeck): Promise<void> {
    const key = keyOf(deck.remoteAddress, deck.remotePort);
    const where = formatTcpDeckAddress({ host: deck.remoteAddress, port: deck.remotePort });
    if (!hasOwnControls(deck.MODEL)) {
      // A Network Dock: its deck comes on a port of its own, connected by the library.
      this.options.log.info(`${this.name}: ${deck.PRODUCT_NAME} at ${where} (its deck connects on a port of its own)`);
      return;
    }
    let serial: string;
    try {
      serial = (await deck.getSerialNumber()).trim() || where;
    } catch (error) {
      // Without a serial the deck is named by its address, which stays put for a named deck.
      this.options.log.warn(`${this.name}: ${shortModelId(deck.MODEL)} at ${where}: its serial number could not be read (${messageOf(error)}); named by its address`);
      serial = where;
    }
    if (this.stopped) return;
    const surface = new StreamDeckSurface(socketOwned(deck), { serial, log: this.options.log, time: this.options.time, onFailure: () => this.reconnect(deck) });
    const twin = [...this.open.entries()].find(([other, open]) => other !== key && open.surface.id === surface.id);
    if (twin) {
      this.errors.say(`${this.name}: ${surface.id} at ${where} is already open at ${twin[0]}; this connection is not used`);
      void surface.close();
      return;
    }
    this.close(key); // a deck object the library replaced without telling it lost
    this.open.set(key, { deck, surface });
    this.options.log.info(`${this.name}: ${surface.id} (${deck.PRODUCT_NAME}) at ${where}`);
    this.events.next({ type: 'added', surface });
  }

  /** The library lost a deck: its surface goes; the library is already reconnecting. */
  private lost(deck: TcpDeck): void {
    const key = keyOf(deck.remoteAddress, deck.remotePort);
    if (this.open.get(key)?.deck !== deck) return; // an older deck object, already replaced
    this.options.log.warn(`${this.name}: ${this.open.get(key)?.surface.id ?? key} at ${formatTcpDeckAddress({ host: deck.remoteAddress, port: deck.remotePort })} lost; it is reconnected by itself when it answers again`);
    this.close(key);
  }

  /** A write to the deck failed (its surface closed itself): a fresh connection brings it back. */
  private reconnect(deck: TcpDeck): void {
    const key = keyOf(deck.remoteAddress, deck.remotePort);
    if (this.open.get(key)?.deck !== deck || this.connections === null) return;
    this.close(key);
    if (this.stopped) return;
    this.connections.disconnectFrom(deck.remoteAddress, deck.remotePort);
    this.connections.connectTo(deck.remoteAddress, deck.remotePort);
  }

  private close(key: string): void {
    const open = this.open.get(key);
    if (open === undefined) return;
    this.open.delete(key);
    void open.surface.close();
    this.events.next({ type: 'removed', id: open.surface.id });
  }
}

/** The library's own name of a connection (address:port, as it keys them). */
function keyOf(address: string, port: number): string {
  return `${address}:${port}`;
}

/**
 * The deck with close() left to the library: its socket belongs to the connection manager (the
 * library's close() throws), which keeps it, and reconnects it, until the source stops.
 */
function socketOwned(deck: TcpDeck): StreamDeck {
  return new Proxy(deck, {
    get(target, key) {
      if (key === 'close') return async () => undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
