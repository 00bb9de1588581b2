// The deck socket of a test bridge behind a real WebSocket server on loopback, and page-like clients
// that connect to it; or a page at the transport, whose messages the test hands in and reads back in
// step with virtual time.
import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { realTime } from '../../src/engine/engine-time.js';
import { DEFAULT_DECK_SOCKET_LIMITS, DeckSocket } from '../../src/remote/deck-socket.js';
import type { BridgeFixture } from './bridge.js';
import { PageModel } from './page-model.js';

export interface DeckSocketServer {
  deck: DeckSocket;
  /** A client connected and open, as a page's. */
  connect: () => Promise<WebSocket>;
  close: () => Promise<void>;
}

export async function serveDeckSocket(f: BridgeFixture): Promise<DeckSocketServer> {
  const deck = new DeckSocket(f.bridge, {
    info: () => undefined,
    warn: (message) => f.logs.push({ level: 'warn', message }),
    error: (message) => f.logs.push({ level: 'error', message }),
  }, DEFAULT_DECK_SOCKET_LIMITS, realTime); // real WebSockets: pings, state pushes and image batches on real time
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket) => deck.attach(socket));
  await once(server, 'listening');
  return {
    deck,
    connect: async () => {
      const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await once(client, 'open');
      return client;
    },
    close: async () => {
      deck.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * What the deck socket uses of a `ws` WebSocket, in memory: what it is sent is kept, what the page says is
 * handed in by the test (at once, in the turn the test chooses), and its unsent bytes are what the test
 * sets.
 */
export class FakePageSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Array<string | Buffer> = [];
  send(data: string | Buffer): void {
    this.sent.push(data);
  }
  ping(): void {
    // Never answered: a link that has gone without closing.
  }
  terminate(): void {
    this.readyState = 3;
    this.emit('close');
  }
  close(): void {
    this.terminate();
  }
  /** A message from the page. */
  say(message: unknown): void {
    this.emit('message', Buffer.from(JSON.stringify(message)), false);
  }
  /** The JSON messages sent so far, parsed. */
  messages(): Array<Record<string, unknown>> {
    return this.sent.flatMap((m) => (typeof m === 'string' ? [JSON.parse(m) as Record<string, unknown>] : []));
  }
  /** What the page holds after every image message sent so far. */
  page(): PageModel {
    const page = new PageModel();
    for (const message of this.sent) if (typeof message !== 'string') page.apply(message);
    return page;
  }
  /** What the page holds of a panel's control after every image message sent so far. */
  shows(panel: number, control: number): Buffer | undefined {
    return this.page().image(panel, control)?.data;
  }
}
