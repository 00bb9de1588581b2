// What a page is sent of a deck is what the deck shows, every key of it, at every moment: when the deck
// comes into the page's view it is sent what the device shows, then every change the device takes. The
// bridge runs on virtual time against the simulator; the page is a socket at the transport whose view
// messages arrive in the turn the test chooses, and the page model applies the frames as the page does.
import type { WebSocket } from 'ws';
import { afterEach, expect, it } from 'vitest';
import type { Logger } from '../../src/engine/log.js';
import { DeckSocket } from '../../src/remote/deck-socket.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { WEB_LAYOUTS } from '../../src/surfaces/web/layouts.js';
import { WebSurface } from '../../src/surfaces/web/web-surface.js';
import { parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { FakePageSocket } from '../support/deck-socket.js';
import { shippedProfile } from '../support/shipped-profiles.js';
import { realTime } from '../../src/engine/engine-time.js';

const MEMORY_PROFILE = 'name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 2 } }\n';
const LIMITS = { maxClients: 32, bufferBytes: 1024 * 1024, imagesAhead: 2, stalledMs: 60_000, heartbeatMs: 60_000 };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function socketFor(f: BridgeFixture): DeckSocket {
  const log: Logger = { info: () => undefined, warn: (message) => f.logs.push({ level: 'warn', message }), error: (message) => f.logs.push({ level: 'error', message }) };
  const deck = new DeckSocket(f.bridge, log, LIMITS, f.time);
  cleanups.push(async () => deck.close());
  return deck;
}

/** The shipped Web Plus deck beside the fixture's memory deck, behind a deck socket. */
async function webPlus() {
  const f = await startBridgeFixture({ profile: MEMORY_PROFILE });
  cleanups.push(() => f.close());
  const layout = WEB_LAYOUTS['web-plus'];
  // Loaded once per worker by loadProfileFile (test/support/shipped-profiles.ts); this test's copy.
  const shipped = await shippedProfile('web-plus.yaml');
  if (!layout) throw new Error('no web-plus deck');
  const web = new WebSurface(layout, f.time);
  f.bridge.setProfiles([parseTestProfile(MEMORY_PROFILE, 'memory.yaml'), shipped]);
  f.bridge.addSurface(web);
  const deck = socketFor(f);
  return { f, web, deck };
}

const pictureOf = (f: BridgeFixture, surface: string, control: string) => f.bridge.session(surface)?.describeControls().find((c) => c.control.id === control)?.picture;

it('a phone picking Web Plus is sent every key of it, OK and Cancel too, though their newest pictures come out as the pixels it shows already', async () => {
  const { f, web, deck } = await webPlus();
  await f.advance(1000);

  // A phone connects and at once says it views another deck: Web Plus is drawn for the moment it was
  // viewed by default, and the page is sent none of it.
  const phone = new FakePageSocket();
  deck.attach(phone as unknown as WebSocket);
  phone.say({ type: 'view', surfaces: ['web:web-15'] });
  await f.advance(1000);
  const panel = 0; // web decks come first
  expect(phone.page().frames.filter((frame) => frame.panel === panel)).toEqual([]);

  // The recorder's dialog stops answering: OK and Cancel now show a dialog state with an age. Their
  // pictures change every second; their pixels do not (a dialog key does not show its age).
  const okBefore = pictureOf(f, web.id, 'key5');
  f.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/app/dialog', probability: 1, latencyMs: 0, status: 500 }]);
  await f.advance(3000);
  const okNow = pictureOf(f, web.id, 'key5');
  expect(okNow).not.toEqual(okBefore);
  const size = { width: 120, height: 120 };
  expect((await f.renderer.render(okNow as NonNullable<typeof okNow>, size)).data.equals((await f.renderer.render(okBefore as NonNullable<typeof okBefore>, size)).data)).toBe(true);

  // The phone picks Web Plus.
  phone.say({ type: 'view', surfaces: [web.id] });
  await f.advance(1500);

  // Every display of the deck is on the page, as the deck shows it (OK as it is drawn now).
  const page = phone.page();
  const displays = web.controls.map((control, index) => ({ control, index })).filter(({ control }) => control.kind === 'key' || control.kind === 'lcd');
  const missing = displays.filter(({ index }) => page.image(panel, index) === undefined).map(({ control }) => control.id);
  expect(missing).toEqual([]);
  const shown = web.output.shown().images;
  for (const { control, index } of displays) expect(page.image(panel, index)?.data.equals(shown.get(control.id)?.data ?? Buffer.alloc(0)), `${control.id} as the deck shows it`).toBe(true);
  const ok = await f.renderer.render(pictureOf(f, web.id, 'key5') as NonNullable<typeof okNow>, size);
  expect(page.image(panel, web.controls.findIndex((c) => c.id === 'key5'))?.data.equals(ok.data)).toBe(true);
});

it('a page is sent a dial\'s level only when the level its deck shows changes, not at every meter read', async () => {
  const f = await startBridgeFixture({ profile: MEMORY_PROFILE });
  cleanups.push(() => f.close());
  // A deck whose dial has a ring, showing channel 1's gain (a page mirrors it).
  const ringProfile = 'name: ring\nmatch: { kind: memory, model: ring }\npages:\n  - name: main\n    controls:\n      dial0: { show: { meter: 1 } }\n';
  f.bridge.setProfiles([parseTestProfile(MEMORY_PROFILE, 'memory.yaml'), parseTestProfile(ringProfile, 'ring.yaml')]);
  const ring = new MemorySurface({ time: realTime, id: 'memory:ring', model: 'ring', controls: [{ kind: 'encoder', id: 'dial0', pressable: false, ring: true }] });
  f.bridge.addSurface(ring);
  const deck = socketFor(f);
  const page = new FakePageSocket();
  deck.attach(page as unknown as WebSocket);
  const levels = () => page.messages().filter((m) => m.type === 'level' && m.surface === ring.id);
  await f.until(() => levels().length > 0, 'the dial\'s level on the page');
  const first = levels();
  expect(first).toEqual([{ type: 'level', surface: ring.id, control: 'dial0', level: first[0]?.level }]);

  // The meters are read and move 10 times a second; the gain does not.
  const meterBefore = pictureOf(f, ring.id, 'dial0');
  await f.advance(2000);
  expect(pictureOf(f, ring.id, 'dial0')).not.toEqual(meterBefore);
  expect(levels()).toHaveLength(1);

  // Another operator sets the gain: one message, the new level.
  await f.client.updateSource(0, { AudioGain: 10 });
  await f.advance(2000);
  expect(levels()).toHaveLength(2);
  expect(levels()[1]?.level).not.toBe(first[0]?.level);
});
