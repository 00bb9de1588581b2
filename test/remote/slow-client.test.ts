// A page on a bad link, at the deck socket: a client over the bound of unsent bytes is skipped, and
// once it has drained it gets the latest of what it missed even if nothing is drawn after that (a key
// must not go on showing REC for a take that stopped while the link was slow); a client cut off for not
// answering pings lets go of what it holds, as one whose link closed does. The WebSocket is a fake at
// the transport (its unsent bytes are set by the test); the bridge and the deck socket (pings, drain
// checks) are real, on virtual time, against the simulator.
import type { WebSocket } from 'ws';
import type { Picture } from '../../src/engine/picture.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DeckSocket, type DeckSocketLimits } from '../../src/remote/deck-socket.js';
import { startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { FakePageSocket } from '../support/deck-socket.js';

const PROFILE = `name: memory
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { show: { channel: 1, thumbnail: false }, press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
`;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function attached(limits: Partial<DeckSocketLimits>): Promise<{ f: BridgeFixture; deck: DeckSocket; page: FakePageSocket }> {
  const f = await startBridgeFixture({ profile: PROFILE });
  const deck = new DeckSocket(f.bridge, { info: () => undefined, warn: (message) => f.logs.push({ level: 'warn', message }), error: () => undefined }, { maxClients: 32, bufferBytes: 1000, imagesAhead: 2, stalledMs: 60_000, heartbeatMs: 60_000, ...limits }, f.time);
  cleanups.push(async () => {
    deck.close();
    await f.close();
  });
  await f.until(() => f.surface.images.has('key0'), 'the deck drawn');
  const page = new FakePageSocket();
  deck.attach(page as unknown as WebSocket);
  return { f, deck, page };
}

describe('a page on a slow link', () => {
  it('catches up with the latest picture once it has drained, though nothing is drawn after that', async () => {
    const { f, page } = await attached({});
    const shown = () => f.surface.output.shown().images.get('key0')?.data;
    const pageShowsDevice = () => {
      const device = shown();
      return device !== undefined && page.shows(0, 0)?.equals(device) === true;
    };
    await f.until(pageShowsDevice, 'the page to show the key as the deck does');
    await f.client.recStart(0);
    // The take as the key draws it: the session's picture of the key once it says recording, rendered.
    // (Any image other than the first one was once taken for it: a hint drawn on the idle key passed for
    // the take, and the stop then changed nothing on the key; seen after other files in the same worker.)
    const keyPicture = () => f.bridge.surfaceSessions()[0]?.describeControls().find((c) => c.control.id === 'key0')?.picture;
    await f.until(() => { const picture = keyPicture(); return picture?.kind === 'channel' && picture.state === 'recording'; }, 'the key to say recording');
    const take = await f.renderer.render(keyPicture() as Picture, { width: 96, height: 96 });
    await f.until(() => pageShowsDevice() && shown()?.equals(take.data) === true, 'the page to show the take');
    const recording = Buffer.from(page.shows(0, 0) as Buffer);

    page.bufferedAmount = 5000; // over the bound: the link is not keeping up
    const sentBefore = page.sent.length;
    await f.client.recStop(0);
    await f.advance(1500);
    const final = Buffer.from(shown() as Buffer);
    expect(final.equals(recording)).toBe(false); // the key no longer shows the take
    expect(page.sent.slice(sentBefore).some((m) => typeof m !== 'string')).toBe(false); // nothing drawn was sent while over
    expect(page.shows(0, 0)?.equals(recording)).toBe(true);

    page.bufferedAmount = 0; // drained; the recorder and the keys stay as they are, and nothing new is drawn
    await f.until(() => page.shows(0, 0)?.equals(final) === true, 'the latest picture of the key', 1000); // the next drain check
  });

  it('a page that counts what it draws is sent at most imagesAhead image messages beyond it, then the newest picture as it draws; one that does not count is not held back', async () => {
    const { f, deck, page } = await attached({});
    const images = (socket: FakePageSocket) => socket.sent.filter((m) => typeof m !== 'string').length;
    const drawnAll = () => page.say({ type: 'drawn', images: images(page) });
    const shown = () => f.surface.output.shown().images.get('key0')?.data;
    page.say({ type: 'drawn', images: 0 }); // as the page does when its link opens
    const other = new FakePageSocket(); // a client that never says what it drew
    deck.attach(other as unknown as WebSocket);
    await f.until(() => images(page) > 0, 'the first image message');
    drawnAll();
    await f.until(() => page.shows(0, 0)?.equals(shown() as Buffer) === true, 'the page to show the key as the deck does');

    // The take's clock draws the key anew each second; the page draws nothing more meanwhile.
    drawnAll();
    const from = images(page);
    const otherFrom = images(other);
    await f.client.recStart(0);
    await f.advance(5000);
    expect(images(page) - from).toBe(2); // DEFAULT imagesAhead, not one per picture
    expect(images(other) - otherFrom).toBeGreaterThan(3); // each picture
    const behind = Buffer.from(page.shows(0, 0) as Buffer);
    expect(behind.equals(shown() as Buffer)).toBe(false);
    const statesWhileBehind = page.messages().filter((m) => m.type === 'state').length;
    await f.advance(2000);
    expect(page.messages().filter((m) => m.type === 'state').length).toBe(statesWhileBehind); // the state waits too

    // Drawn: the newest picture of the key at once (in the turn the count arrives), then the state.
    drawnAll();
    await f.until(() => page.shows(0, 0)?.equals(shown() as Buffer) === true, 'the newest picture of the key', 50);
    expect(page.messages().filter((m) => m.type === 'state').length).toBeGreaterThan(statesWhileBehind);
    expect(deck.clientCount).toBe(2);
    await f.client.recStop(0);
  });

  it('a count of drawn images that cannot be is refused, named, and changes nothing', async () => {
    const { f, page } = await attached({});
    const images = () => page.sent.filter((m) => typeof m !== 'string').length;
    page.say({ type: 'drawn', images: 0 });
    await f.until(() => images() > 0, 'the first image message');
    const errors = () => page.messages().filter((m) => m.type === 'error').map((m) => m.message);
    page.say({ type: 'drawn', images: images() + 5 });
    page.say({ type: 'drawn', images: 1.5 });
    page.say({ type: 'drawn', images: -1 });
    page.say({ type: 'drawn', images: images() });
    page.say({ type: 'drawn', images: 0 });
    expect(errors()).toEqual([
      `drawn: ${images() + 5} image messages, but ${images()} were sent`,
      'images: Invalid input: expected int, received number',
      'images: Too small: expected number to be >=0',
      `drawn: 0 image messages, fewer than the ${images()} it said before`,
    ]);
  });

  it('a page that stops drawing is closed, saying so', async () => {
    const { f, deck, page } = await attached({ stalledMs: 3000 });
    page.say({ type: 'drawn', images: 0 });
    await f.client.recStart(0); // its clock draws the key each second: image messages the page never draws
    await f.until(() => deck.clientCount === 0, 'the page closed', 8000);
    expect(f.logs.map((l) => l.message).filter((m) => m.includes('closed a client'))).toEqual(['web deck: closed a client: it stopped drawing (2 image messages not drawn for over 3000 ms)']);
    await f.client.recStop(0);
  });

  it('a client cut off for not answering pings lets go of the key it holds: the hold never fires', async () => {
    const { f, deck, page } = await attached({ heartbeatMs: 50 });
    const mark = f.mark();
    page.say({ type: 'input', surface: f.surface.id, input: { type: 'down', control: 'key0' } });
    await f.until(() => deck.clientCount === 0, 'the client cut off', 500);
    await f.advance(2500); // well past the hold's 1 s
    expect(f.writesSince(mark)).toEqual([]);
    expect(f.logs.some((l) => l.message.includes('no answer to a ping'))).toBe(true);
  });
});
