// The deck socket of a test bridge behind a real WebSocket server on loopback, and page-like clients
// that connect to it.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { DeckSocket } from '../../src/remote/deck-socket.js';
import type { WebSurface } from '../../src/surfaces/web/web-surface.js';
import type { BridgeFixture } from './bridge.js';

export interface DeckSocketServer {
  deck: DeckSocket;
  /** A client connected and open, as a page's. */
  connect: () => Promise<WebSocket>;
  close: () => Promise<void>;
}

export async function serveDeckSocket(f: BridgeFixture, webSurfaces: readonly WebSurface[] = []): Promise<DeckSocketServer> {
  const deck = new DeckSocket(f.bridge, webSurfaces, {
    info: () => undefined,
    warn: (message) => f.logs.push({ level: 'warn', message }),
    error: (message) => f.logs.push({ level: 'error', message }),
  });
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
