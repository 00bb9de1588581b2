// No work nobody sees: a web deck with no page open is neither drawn nor fed previews; a page opening
// (a real WebSocket client of the deck socket) brings both, and its closing stops them again. The bridge
// runs on virtual time against the simulator.
import { afterEach, expect, it } from 'vitest';
import { WEB_LAYOUTS } from '../../src/surfaces/web/layouts.js';
import { WebSurface } from '../../src/surfaces/web/web-surface.js';
import { parseTestProfile, startBridgeFixture, type BridgeFixture } from '../support/bridge.js';
import { serveDeckSocket } from '../support/deck-socket.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const previewsSince = (f: BridgeFixture, mark: number) => f.sim.log.list().filter((r) => r.seq > mark && r.path.endsWith('/preview')).length;

/** A bridge on virtual time with a memory deck and a web deck showing a preview, behind a deck socket. */
async function webDeckFixture() {
  const f = await startBridgeFixture({ profile: 'name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 2 } }\n' });
  const layout = WEB_LAYOUTS['web-15'];
  if (!layout) throw new Error('no web-15 layout');
  const web = new WebSurface(layout, f.time);
  f.bridge.setProfiles([
    parseTestProfile('name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 2 } }\n', 'memory.yaml'),
    parseTestProfile('name: web\nmatch: { kind: web }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1, thumbnail: true } }\n', 'web.yaml'),
  ]);
  f.bridge.addSurface(web);
  const served = await serveDeckSocket(f);
  cleanups.push(async () => {
    await served.close();
    await f.close();
  });
  return { f, web, served };
}

it('a web deck is drawn and its previews fetched only while a page is open', async () => {
  const { f, web, served } = await webDeckFixture();

  let mark = f.mark();
  await f.advance(3000);
  expect(previewsSince(f, mark)).toBe(0);
  expect(web.output.shown().images.size).toBe(0);
  expect(f.surface.images.size).toBeGreaterThan(0); // the device beside it is drawn as ever

  const page = await served.connect();
  mark = f.mark();
  await f.until(() => web.output.shown().images.size === web.controls.length, 'the web deck drawn');
  await f.advance(2000);
  expect(previewsSince(f, mark)).toBeGreaterThanOrEqual(2);

  page.close();
  await f.until(() => served.deck.clientCount === 0, 'the page gone');
  await f.advance(1000); // a fetch under way may end
  mark = f.mark();
  await f.advance(3000);
  expect(previewsSince(f, mark)).toBe(0);
});

it('a page that views no deck gets no deck drawn; a view message that is wrong is refused, naming what is wrong', async () => {
  const { f, web, served } = await webDeckFixture();
  let watched = false;
  const watching = web.watched$.subscribe((w) => (watched = w));
  cleanups.push(async () => watching.unsubscribe());
  const page = await served.connect();
  await f.until(() => watched, 'the page to view every deck until it says');
  const answers: string[] = [];
  page.on('message', (data, isBinary) => {
    if (!isBinary) answers.push(data.toString());
  });
  page.send(JSON.stringify({ type: 'view', surfaces: [] }));
  await f.until(() => !watched, 'the view taken');
  await f.advance(1000); // a fetch under way may end
  let mark = f.mark();
  await f.advance(3000);
  expect(previewsSince(f, mark)).toBe(0);

  page.send(JSON.stringify({ type: 'view', surfaces: 'web:web-15' }));
  await f.until(() => answers.some((a) => a.includes('"type":"error"')), 'the refusal');
  expect(answers.find((a) => a.includes('"type":"error"'))).toContain('surfaces: ');
  expect(f.logs.some((l) => l.message.startsWith('web deck: ignored a message: surfaces: '))).toBe(true);

  page.send(JSON.stringify({ type: 'view', surfaces: [web.id] }));
  mark = f.mark();
  await f.until(() => web.output.shown().images.size === web.controls.length, 'the web deck drawn');
  await f.advance(2000);
  expect(previewsSince(f, mark)).toBeGreaterThanOrEqual(2);
});

it('a web deck the bridge gains after the page opened (its profile fixed later) is served from the bridge\'s one list: the page hears of it and it is drawn', async () => {
  const f = await startBridgeFixture({ profile: 'name: memory\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 2 } }\n' });
  const served = await serveDeckSocket(f);
  cleanups.push(async () => {
    await served.close();
    await f.close();
  });
  const page = await served.connect();
  const hellos: Array<Array<{ id: string }>> = [];
  page.on('message', (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(data.toString()) as { type: string; surfaces?: Array<{ id: string }> };
    if (message.type === 'hello' && message.surfaces) hellos.push(message.surfaces);
  });
  await f.until(() => served.deck.clientCount === 1, 'the page attached');

  const layout = WEB_LAYOUTS['web-15'];
  if (!layout) throw new Error('no web-15 layout');
  const web = new WebSurface(layout, f.time);
  f.bridge.setProfiles([
    ...f.bridge.loadedProfiles(),
    parseTestProfile('name: web\nmatch: { kind: web }\npages:\n  - name: main\n    controls:\n      key0: { show: { channel: 1 } }\n', 'web.yaml'),
  ]);
  f.bridge.addSurface(web);
  await f.until(() => hellos.some((surfaces) => surfaces.some((s) => s.id === web.id)), 'a hello naming the new web deck');
  expect(hellos.at(-1)?.[0]?.id).toBe(web.id); // web decks first, as the page lays them out
  await f.until(() => web.output.shown().images.size === web.controls.length, 'the new web deck drawn for the page viewing every deck');
});
