// A hold needs its release: a web client that pressed a key and then lost its WebSocket must not have
// the hold action fire for it. The real WebSocket path (ws server and client on loopback, the deck
// socket) into the real bridge on virtual time, against the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { serveDeckSocket } from '../support/deck-socket.js';

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

const send = (client: WebSocket, type: 'down' | 'up') => client.send(JSON.stringify({ type: 'input', surface: 'memory:test', input: { type, control: 'key0' } }));

/** A bridge with channel 1 recording and a web client holding key0 (its long press stops the channel). */
async function clientHoldingKey0(): Promise<{ f: BridgeFixture; client: WebSocket; mark: number }> {
  const f = await startBridgeFixture({ profile: PROFILE });
  const served = await serveDeckSocket(f);
  cleanups.push(async () => {
    await served.close();
    await f.close();
  });
  await f.client.recStart(0);
  await f.until(() => f.bridge.recorderStates()[0]?.channels?.[0]?.IsRecording === true, 'recording seen');
  const client = await served.connect();
  const mark = f.mark();
  send(client, 'down');
  await f.until(() => f.bridge.session('memory:test')?.sessionState.held.has('key0') === true, 'the down to arrive');
  return { f, client, mark };
}

describe('a web client that loses its link while holding a key', () => {
  it('the hold action never fires: the key is let go without firing', async () => {
    const { f, client, mark } = await clientHoldingKey0();
    await f.advance(300);
    client.terminate(); // the link drops, no release will come
    await f.until(() => f.bridge.session('memory:test')?.sessionState.held.size === 0, 'the hold to be let go');
    await f.advance(3000);
    expect(f.writesSince(mark)).toEqual([]);
    expect(f.sim.recorder().channels()[0]?.IsRecording).toBe(true);
  });

  it('while the link holds, the same hold stops the channel after 1 s', async () => {
    const { f, client, mark } = await clientHoldingKey0();
    await f.advance(1000);
    expect(f.writesSince(mark)).toEqual(['PUT /api/channels/0/rec-stop']);
    send(client, 'up');
    client.close();
  });
});
