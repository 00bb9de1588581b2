// The desk bench's client of the web deck's socket hears the hello the bridge sends as it accepts the
// link: that hello says which panel index is the deck read, and a link that missed it read every key as
// having no image (each run of bench (i) stopped at its warm-up). A real ws server on loopback that
// sends the hello and a key's whole image at once, as deck-socket.ts does on attach.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { DeckLink } from '../../src/bench/deck-link.js';
import type { RgbImage } from '../../src/engine/surface.js';
import { CHANNEL_LOOKS } from '../../src/render/palette.js';
import { imageUpdate } from '../../src/remote/image-frames.js';
import { until } from '../support/until.js';

const solid = (hex: string, size = 8): RgbImage => {
  const data = Buffer.alloc(size * size * 3);
  for (let i = 0; i < data.length; i += 3) data.set([1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)), i);
  return { width: size, height: size, data };
};

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

async function serve(onConnect: (send: (data: string | Buffer) => void) => void): Promise<string> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
  await once(server, 'listening');
  server.on('connection', (socket) => onConnect((data) => socket.send(data)));
  cleanup.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the desk bench's deck link", () => {
  it('reads a key sent whole with the hello, in the same turn as the link is accepted', async () => {
    const web = await serve((send) => {
      // The deck read is the second panel: a link without the hello could not place its frames.
      send(JSON.stringify({ type: 'hello', surfaces: [{ id: 'web:other', controls: [{ id: 'key0' }] }, { id: 'web:web-15', controls: [{ id: 'key0' }, { id: 'key1' }] }] }));
      send(imageUpdate(0, 1, undefined, solid(CHANNEL_LOOKS.idle.band)) as Buffer);
      send(imageUpdate(1, 1, undefined, solid(CHANNEL_LOOKS.recording.band)) as Buffer);
    });
    const link = await DeckLink.open(web, 'web:web-15');
    cleanup.push(() => link.close());
    await until(() => link.shown('key1') !== null, 'the deck link to have key1', 10_000);
    link.check();
    expect(link.shown('key1')).toBe('recording');
    expect(link.shown('key0')).toBeNull();
  });

  it('says so when key images come without a hello naming the deck', async () => {
    const web = await serve((send) => send(imageUpdate(0, 0, undefined, solid(CHANNEL_LOOKS.recording.band)) as Buffer));
    const link = await DeckLink.open(web, 'web:web-15');
    cleanup.push(() => link.close());
    await until(() => {
      try {
        link.check();
        return false;
      } catch {
        return true;
      }
    }, 'the deck link to fail', 10_000);
    expect(() => link.check()).toThrow(/before the page's hello/);
  });
});
