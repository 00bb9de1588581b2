// A hold needs its release: a web client that pressed a key and then lost its WebSocket must not have
// the hold action fire for it. The real WebSocket path (ws server and client on loopback, the deck
// socket) into the real bridge on virtual time, against the simulator.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { DeckSocket } from '../../src/remote/deck-socket.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';

const PROFILE = `
name: hold
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
`;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function socketOnBridge(): Promise<{ f: BridgeFixture; connect: () => Promise<WebSocket> }> {
  const f = await startBridgeFixture({ profile: PROFILE });
  const deck = new DeckSocket(f.bridge, [], { info: () => undefined, warn: (message) => f.logs.push({ level: 'warn', message }), error: (message) => f.logs.push({ level: 'error', message }) });
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket) => deck.attach(socket));
  await once(server, 'listening');
  cleanups.push(async () => {
    deck.close();
    await new Promise((resolve) => server.close(resolve));
    await f.close();
  });
  const connect = async () => {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await once(client, 'open');
    return client;
  };
  return { f, connect };
}

const send = (client: WebSocket, type: 'down' | 'up') => client.send(JSON.stringify({ type: 'input', surface: 'memory:test', input: { type, control: 'key0' } }));

describe('a web client that loses its link while holding a key', () => {
  it('the hold action never fires: the key is let go without firing', async () => {
    const { f, connect } = await socketOnBridge();
    await f.client.recStart(0);
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[0]?.IsRecording === true, 'recording seen');
    const client = await connect();
    const mark = f.mark();
    send(client, 'down');
    await f.until(() => f.bridge.session('memory:test')?.sessionState.held.has('key0') === true, 'the down to arrive');
    await f.advance(300);
    client.terminate(); // the link drops, no release will come
    await f.until(() => f.bridge.session('memory:test')?.sessionState.held.size === 0, 'the hold to be let go');
    await f.advance(3000);
    expect(f.writesSince(mark)).toEqual([]);
    expect(f.sim.recorder().channels()[0]?.IsRecording).toBe(true);
  });

  it('while the link holds, the same hold stops the channel after 1 s', async () => {
    const { f, connect } = await socketOnBridge();
    await f.client.recStart(0);
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[0]?.IsRecording === true, 'recording seen');
    const client = await connect();
    const mark = f.mark();
    send(client, 'down');
    await f.until(() => f.bridge.session('memory:test')?.sessionState.held.has('key0') === true, 'the down to arrive');
    await f.advance(1000);
    expect(f.writesSince(mark)).toEqual(['PUT /api/channels/0/rec-stop']);
    send(client, 'up');
    client.close();
  });
});
