// A recorder that repeats the token back: a proxy in front of the simulator that, when told to,
// answers with an error (or a malformed answer) quoting the Authorization header it was sent, in one
// of five shapes. The masking tests drive every output of the bridge with it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

export const ECHO_SHAPES = [1, 2, 3, 4, 5] as const;
export type EchoShape = (typeof ECHO_SHAPES)[number];

export interface EchoRecorder {
  url: string;
  /** PUTs (commands) are answered with this shape; null forwards them. */
  commands: EchoShape | null;
  /** GET /api/channels (the fast poll) is answered with this shape; null forwards it. */
  polls: EchoShape | null;
  close: () => Promise<void>;
}

/** Each shape quotes the token differently, and carries "[echo N]" so a test can tell them apart. */
function echo(shape: EchoShape, authorization: string, method: string, response: ServerResponse): void {
  const token = authorization.replace(/^Bearer /, ''); // perm:<uuid>
  const uuid = token.replace(/^perm:/, '');
  const answer = (status: number, type: string, body: string): void => {
    response.writeHead(status, { 'content-type': type }).end(body);
  };
  switch (shape) {
    case 1:
      return answer(401, 'application/json', JSON.stringify({ Error: `[echo 1] unauthorized: ${authorization}` }));
    case 2:
      return answer(400, 'application/json', JSON.stringify({ message: `[echo 2] token ${token} is not valid` }));
    case 3:
      return answer(500, 'text/plain', `[echo 3] no session for ${uuid.toUpperCase()}\nretry later`);
    case 4:
      return answer(404, 'application/json', JSON.stringify(`[echo 4] no route /api?token=${encodeURIComponent(token)}`));
    case 5:
      // A GET gets a 200 of the wrong shape (the client reports what it got); a write a 502 page.
      if (method === 'GET') return answer(200, 'application/json', JSON.stringify({ note: '[echo 5]', Authorization: authorization }));
      return answer(502, 'text/html', `<html><body>[echo 5] upstream refused ${authorization}</body></html>`);
  }
}

export async function startEchoRecorder(target: string): Promise<EchoRecorder> {
  const forward = async (incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'accept']) {
      const value = incoming.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await request(`${target}${incoming.url}`, { method: (incoming.method ?? 'GET') as 'GET', headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    response.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') }).end(body);
  };
  const server = createServer((incoming, response) => {
    const method = incoming.method ?? 'GET';
    const authorization = incoming.headers.authorization ?? '';
    if (method === 'PUT' && recorder.commands !== null) return echo(recorder.commands, authorization, method, response);
    if (method === 'GET' && incoming.url === '/api/channels' && recorder.polls !== null) return echo(recorder.polls, authorization, method, response);
    forward(incoming, response).catch(() => response.writeHead(502).end());
  });
  const recorder: EchoRecorder = {
    url: '',
    commands: null,
    polls: null,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return recorder;
}
