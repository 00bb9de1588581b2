// TextRequest over a real undici Pool against a node:http server on 127.0.0.1: an answer whose UTF-8
// character is split between two chunks is decoded whole, a request given up while it waits for a
// connection fails at once and is never sent, and one whose time is up when it gets its connection is
// given up there, never sent.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextRequest } from '../../src/api/text-request.js';
import { until } from '../support/until.js';

/** Sees each chunk as it comes, so that the server can send the rest only after the first arrived. */
class CountingRequest extends TextRequest {
  received = 0;
  override onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += 1;
    super.onResponseData(controller, chunk);
  }
}

describe('TextRequest', () => {
  let server: Server;
  let pool: Pool;
  const seen: string[] = [];
  const held: ServerResponse[] = [];
  let rest: (() => void) | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.url ?? '');
      if (request.url === '/split') {
        // "€" is three bytes; the first goes alone, the other two once the client has read it.
        const euro = Buffer.from('"5 €"');
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': euro.length });
        response.write(euro.subarray(0, 4));
        rest = () => response.end(euro.subarray(4));
        return;
      }
      if (request.url === '/hang') return void held.push(response);
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1, pipelining: 1 });
  });

  afterAll(async () => {
    for (const response of held) response.end();
    await pool.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('decodes an answer whose character is split between chunks', async () => {
    const sent = new CountingRequest(pool, { method: 'GET', path: '/split' });
    await until(() => sent.received === 1 && rest !== undefined, 'the first chunk to arrive');
    rest?.();
    await expect(sent.answer).resolves.toEqual({ status: 200, text: '"5 €"' });
    expect(sent.received).toBe(2);
  });

  it('a request stopped while it waits for the one connection fails at once and is never sent', async () => {
    seen.length = 0;
    const holding = new TextRequest(pool, { method: 'GET', path: '/hang' });
    await until(() => held.length === 1, 'the first request to hold the connection');
    const queued = new TextRequest(pool, { method: 'GET', path: '/queued' });
    const reason = new Error('no answer within 300 ms');
    queued.stop(reason);
    await expect(queued.answer).rejects.toBe(reason);
    held[0]?.end('{}');
    await expect(holding.answer).resolves.toEqual({ status: 200, text: '{}' });
    await expect(new TextRequest(pool, { method: 'GET', path: '/after' }).answer).resolves.toMatchObject({ status: 200 });
    expect(seen).toEqual(['/hang', '/after']);
  });

  it('a request that is late when it gets the one connection is given up there and never sent; one in time is sent', async () => {
    seen.length = 0;
    held.length = 0;
    const holding = new TextRequest(pool, { method: 'GET', path: '/hang' });
    await until(() => held.length === 1, 'the first request to hold the connection');
    // Its timer has not run (a starved event loop): only the check at the connection stops it.
    let asked = 0;
    const reason = new Error('no answer within 300 ms');
    const late = new TextRequest(pool, { method: 'GET', path: '/late' }, () => (asked++, reason));
    const inTime = new TextRequest(pool, { method: 'GET', path: '/in-time' }, () => undefined);
    held[0]?.end('{}');
    await expect(holding.answer).resolves.toEqual({ status: 200, text: '{}' });
    await expect(late.answer).rejects.toBe(reason);
    await expect(inTime.answer).resolves.toEqual({ status: 200, text: '{}' });
    expect(asked).toBe(1);
    expect(seen).toEqual(['/hang', '/in-time']);
  });
});
