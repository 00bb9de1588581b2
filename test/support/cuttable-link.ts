// A page's link to the bridge that a test can cut and keep down: a TCP relay on loopback in front of the
// remote server, which the page is opened through. Cutting drops every connection through it, as a
// network that goes away does (the page sees its socket close), and while it is down each new connection
// is dropped at once, so the page's reconnects fail until the test restores it. The bytes pass untouched:
// the page's frames cost a copy in the kernel, where playwright's routeWebSocket relays every message
// through the test process as JSON.
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export interface CuttableLink {
  /** The server's address as the page is to open it: through the relay. */
  url: string;
  cut: () => void;
  restore: () => void;
  close: () => Promise<void>;
}

export async function cuttableLink(serverUrl: string): Promise<CuttableLink> {
  const target = new URL(serverUrl);
  const open = new Set<Socket>();
  let down = false;
  const relay = createServer((page) => {
    if (down) return page.destroy();
    const server = connect(Number(target.port), target.hostname);
    for (const [socket, other] of [[page, server], [server, page]] as const) {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        other.destroy();
      });
      socket.on('error', () => other.destroy());
      socket.pipe(other);
    }
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  const address = relay.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  const cut = () => {
    down = true;
    for (const socket of open) socket.destroy();
  };
  return {
    url: `${target.protocol}//127.0.0.1:${address.port}`,
    cut,
    restore: () => {
      down = false;
    },
    close: async () => {
      cut();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}
