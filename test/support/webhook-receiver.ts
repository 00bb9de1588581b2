// A webhook receiver on loopback: keeps every POST (headers and body) and answers as the test says:
// a status per request in turn (then 200), or not at all (a receiver that hangs).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedPost {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  posts: ReceivedPost[];
  /** Statuses for the next requests, in turn; 200 once spent. */
  statuses: number[];
  /** While true, requests get no answer (until hang is set false or the receiver closes). */
  hang: boolean;
  /** Requests held unanswered now. */
  held: () => number;
  close: () => Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const receiver: WebhookReceiver = {
    url: '',
    posts: [],
    statuses: [],
    hang: false,
    held: () => held.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      receiver.posts.push({ headers: request.headers, body });
      if (receiver.hang) {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      response.writeHead(receiver.statuses.shift() ?? 200).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
