// A hold on one key survives other actions appearing and disappearing in the app (a page turned on
// another device, an action dragged onto the deck): a stop held on key A fires once its hold is reached,
// or is let go by A's own keyUp, whatever came and went beside it meanwhile. Each instance is a surface
// of its own, and the Bridge leaves a session bound to the very same profile alone. The real deck,
// engine and client against the simulator in this process (in-process-deck.ts), on virtual time, so the
// hold is measured exactly; the packed plugin under the fake app is test/plugin/hold-fake-app.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { lastSeq, writesSince } from '../support/simulator.js';
import { startInProcessDeck, uuidOf, type InProcessDeck } from './in-process-deck.js';

let running: InProcessDeck | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

const STOP = { context: 'A', uuid: uuidOf('rec-stop'), settings: { recorder: 'main', channel: 1, holdMs: 1000 } };
const OTHER = { context: 'B', uuid: uuidOf('rec-toggle'), settings: { recorder: 'main', channel: 2 }, column: 1 };

/** Channel 1 recording, its stop key A live. */
async function recordingWithStopKey(): Promise<InProcessDeck> {
  const d = await startInProcessDeck();
  running = d;
  d.deck.setGlobalSettings({ recorders: [{ name: 'main', url: d.fixture.sim.url, token: d.fixture.sim.token }] });
  await d.fixture.client.recStart(0);
  d.appear(STOP);
  await d.until(() => d.lastTitle('A').startsWith('channel 1: recording'), 'the stop key showing the recording');
  return d;
}

const stops = (d: InProcessDeck, mark: number) => writesSince(d.fixture.sim, mark).filter((w) => w.startsWith('PUT /api/channels/0/rec-stop'));

describe('a stop held on key A', () => {
  it('fires when its hold is reached, though key B appeared during it', async () => {
    const d = await recordingWithStopKey();
    const mark = lastSeq(d.fixture.sim);
    d.deck.input('A', { type: 'down' });
    await d.advance(400);
    d.appear(OTHER);
    await d.advance(100);
    expect(d.images('B').length).toBeGreaterThan(0); // B is up and drawn
    await d.advance(450); // 950 ms held
    expect(stops(d, mark)).toEqual([]);
    await d.until(() => stops(d, mark).length > 0, 'the stop at 1000 ms', 200);
    d.deck.input('A', { type: 'up' });
    await d.advance(500);
    expect(stops(d, mark)).toHaveLength(1);
    expect(d.calls.some((c) => c.call === 'showOk' && c.context === 'A')).toBe(true);
  });

  it('fires though key B disappeared during it', async () => {
    const d = await recordingWithStopKey();
    d.appear(OTHER);
    await d.until(() => d.images('B').length > 0, 'B drawn');
    const mark = lastSeq(d.fixture.sim);
    d.deck.input('A', { type: 'down' });
    await d.advance(300);
    d.deck.disappear('B');
    await d.advance(800);
    expect(stops(d, mark)).toHaveLength(1);
  });

  it("is let go by A's keyUp before the hold, though B appeared during it: nothing is sent, then or later", async () => {
    const d = await recordingWithStopKey();
    const mark = lastSeq(d.fixture.sim);
    d.deck.input('A', { type: 'down' });
    await d.advance(300);
    d.appear(OTHER);
    await d.advance(300);
    d.deck.input('A', { type: 'up' });
    await d.advance(3000);
    expect(stops(d, mark)).toEqual([]);
    expect(d.lastTitle('A').startsWith('channel 1: recording')).toBe(true);
  });

  it("is let go, without firing, when A's own settings change during it (the key now means something else)", async () => {
    const d = await recordingWithStopKey();
    const mark = lastSeq(d.fixture.sim);
    d.deck.input('A', { type: 'down' });
    await d.advance(300);
    d.deck.settingsChanged('A', { ...STOP.settings, holdMs: 2000 });
    await d.advance(2500);
    expect(stops(d, mark)).toEqual([]);
  });
});
