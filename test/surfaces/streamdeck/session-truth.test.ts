// A press does what the key showed, nothing else: the real bridge on virtual time, the simulator over
// real HTTP, and Stream Decks found by the manager (the real library over fake HID devices). Each case
// was an operator's report: an overlay press firing the main page's binding, a hold firing after its
// release was lost, page keys stranding the deck on the dialog overlay, dial steps going backwards, gain
// steps refused forever, and macros outliving their deck.
import { readFileSync } from 'node:fs';
import { DeviceModelId } from '@elgato-stream-deck/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bridge } from '../../../src/engine/bridge.js';
import type { CommandRecord } from '../../../src/engine/log.js';
import { StreamDeckManager } from '../../../src/surfaces/streamdeck/device-manager.js';
import { parseTestProfile } from '../../support/bridge.js';
import { deviceBridge } from '../../support/device-bridge.js';
import type { SimulatorFixture } from '../../support/simulator.js';
import type { RequestCounter, VirtualTime } from '../../support/virtual-time.js';
import { FakeStreamDeckBackend } from './helpers.js';

const gen2Keys = (keyCount: number, pressed: number[]) => [0x00, keyCount, 0x00, ...Array.from({ length: keyCount }, (_, i) => (pressed.includes(i) ? 1 : 0))];
/** A Stream Deck + dial report: turn (signed detents) of each of the four dials. */
const dialTurn = (amounts: [number, number, number, number]) => [0x03, 0x05, 0x00, 0x01, ...amounts.map((a) => a & 0xff)];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface DeckBridge {
  fixture: SimulatorFixture;
  bridge: Bridge;
  backend: FakeStreamDeckBackend;
  requests: RequestCounter;
  commands: CommandRecord[];
  time: VirtualTime;
  advance: (ms: number) => Promise<void>;
  until: (check: () => boolean, what: string, ms?: number) => Promise<void>;
  /** Writes the simulator received after a mark (method, path and body). */
  writesSince: (mark: number) => string[];
  mark: () => number;
  /** Presses (down) or releases (up) keys on the deck at a path, as its HID reports them. */
  keys: (path: string, keyCount: number, pressed: number[]) => void;
}

async function deckBridge(profile: string, decks: Array<{ path: string; model: DeviceModelId; serial: string }>): Promise<DeckBridge> {
  const d = await deviceBridge();
  cleanups.push(d.close);
  const backend = new FakeStreamDeckBackend();
  for (const deck of decks) backend.plug(deck.path, deck.model, deck.serial);
  const manager = new StreamDeckManager({ backend, log: d.log, scanIntervalMs: 60_000, watchHotplug: null, time: d.time });
  d.follow(manager);
  cleanups.push(() => manager.stop());
  d.bridge.setProfiles([parseTestProfile(profile)]);
  manager.start();
  await manager.scan();
  await d.advance(0);
  return { ...d, backend, keys: (path, keyCount, pressed) => backend.hidAt(path)?.input(gen2Keys(keyCount, pressed)) };
}

const MK2 = { path: '/dev/hidraw1', model: DeviceModelId.ORIGINALMK2, serial: 'CLMK2' };

/** Raises a dialog on the simulator: a grid change while a channel records asks for confirmation. */
async function raiseDialog(d: DeckBridge): Promise<void> {
  await d.fixture.client.recStart(3);
  await d.fixture.client.setChannelCount(1);
  expect(d.fixture.sim.recorder().dialogState().IsDialog).toBe(true);
}

describe('the page in front decides, at the press', () => {
  const PROFILE = `
name: overlay
match: { kind: streamdeck }
overlays: { dialog: Dialog }
pages:
  - name: Main
    controls:
      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }
      key14: { press: { action: sync-on, channel: 1 } }
  - name: Dialog
    controls:
      key0: { show: dialog }
      key14: { press: { action: dialog-ok } }
`;

  it('a press on the dialog overlay sends the overlay\'s dialog-ok, never the main page\'s sync-on', async () => {
    const d = await deckBridge(PROFILE, [MK2]);
    await d.until(() => d.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    // The operator uses key14 on the main page first (the case that once left a gesture behind).
    d.keys(MK2.path, 15, [14]);
    d.keys(MK2.path, 15, []);
    await d.advance(200);
    await raiseDialog(d);
    await d.until(() => d.bridge.session('streamdeck:CLMK2')?.currentPage.name === 'Dialog', 'the overlay');
    const mark = d.mark();
    d.keys(MK2.path, 15, [14]);
    d.keys(MK2.path, 15, []);
    await d.advance(200);
    expect(d.writesSince(mark)).toEqual(['PUT /api/app/dialog/ok']);
  });

  it('a hold under way when the dialog comes up is cancelled: nothing fires, not even when let go', async () => {
    const d = await deckBridge(PROFILE, [MK2]);
    await d.until(() => d.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    await d.fixture.client.recStart(0);
    const mark = d.mark();
    d.keys(MK2.path, 15, [0]); // held: rec-stop after 1 s
    await d.advance(300);
    await raiseDialog(d);
    await d.until(() => d.bridge.session('streamdeck:CLMK2')?.currentPage.name === 'Dialog', 'the overlay');
    // Past the moment the 1 s hold was due (down 1.3 s and more before the release).
    await d.advance(1000);
    d.keys(MK2.path, 15, []);
    await d.advance(200);
    expect(d.writesSince(mark).filter((w) => w.includes('/channels/0/'))).toEqual([]);
    expect(d.fixture.sim.recorder().channels()[0]?.IsRecording).toBe(true);
  });
});

describe('a lost release never fires a hold', () => {
  it('a Stream Deck unplugged while a key is held: the hold action never fires', async () => {
    const d = await deckBridge('name: p\nmatch: { kind: streamdeck }\npages:\n  - name: Main\n    controls:\n      key0: { press: { action: rec-start, channel: 1 }, hold: { ms: 1000, do: { action: rec-stop, channel: 1 } } }\n', [MK2]);
    await d.until(() => d.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    await d.fixture.client.recStart(0);
    const mark = d.mark();
    d.keys(MK2.path, 15, [0]);
    await d.advance(400);
    d.backend.hidAt(MK2.path)?.fail(new Error('could not read from HID device'));
    expect(d.bridge.session('streamdeck:CLMK2')).toBeUndefined();
    // Half again past the hold's 1 s: a hold that outlived its deck would have fired by then.
    await d.advance(1500);
    expect(d.writesSince(mark)).toEqual([]);
    expect(d.fixture.sim.recorder().channels()[0]?.IsRecording).toBe(true);
  });
});

describe('overlay pages are not in the page cycle', () => {
  it('the shipped 15-key profile: the page key visits every page and never the Dialog overlay', async () => {
    const shipped = readFileSync(new URL('../../../profiles/streamdeck-15-keys.yaml', import.meta.url), 'utf8');
    const d = await deckBridge(shipped, [MK2]);
    const session = () => d.bridge.session('streamdeck:CLMK2');
    const visited: string[] = [session()?.currentPage.name ?? ''];
    for (let press = 0; press < 6; press++) {
      d.keys(MK2.path, 15, [14]);
      d.keys(MK2.path, 15, []);
      await d.advance(50);
      visited.push(session()?.currentPage.name ?? '');
    }
    expect(visited).toEqual(['4 channels', '9 channels', '16 channels, 1-8', '16 channels, 9-16', 'Setup', '4 channels', '9 channels']);
  });

  it('a page press whose down came before the dialog pages on; it does not confirm the dialog', async () => {
    const shipped = readFileSync(new URL('../../../profiles/streamdeck-15-keys.yaml', import.meta.url), 'utf8');
    const d = await deckBridge(shipped, [MK2]);
    await d.until(() => d.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    const mark = d.mark();
    d.keys(MK2.path, 15, [14]); // down on the page key
    await raiseDialog(d);
    await d.until(() => d.bridge.session('streamdeck:CLMK2')?.currentPage.name === 'Dialog', 'the overlay');
    d.keys(MK2.path, 15, []);
    await d.advance(200);
    expect(d.writesSince(mark).filter((w) => w.includes('dialog'))).toEqual([]);
    expect(d.fixture.sim.recorder().dialogState().IsDialog).toBe(true);
  });
});

describe('gain steps own the gain they write', () => {
  const PLUS = { path: '/dev/hidraw2', model: DeviceModelId.PLUS, serial: 'CLPLUS' };
  const PROFILE = `
name: plus
match: { kind: streamdeck, model: plus }
pages:
  - name: Main
    controls:
      dial0: { show: { meter: 1 }, turn: { action: gain-step, channel: 1, db: 0.5 } }
`;
  for (const latencyMs of [0, 30]) {
    it(`ten quick detents down (15 ms apart, recorder ${latencyMs} ms away) send monotonic gains that end exactly 5 dB lower`, async () => {
      const d = await deckBridge(PROFILE, [PLUS]);
      await d.fixture.client.updateSource(0, { AudioGain: 7 });
      d.requests.latencyMs = latencyMs;
      await d.until(() => d.bridge.session('streamdeck:CLPLUS')?.describeControls().find((c) => c.control.id === 'dial0')?.picture.kind === 'meter' && (d.bridge.session('streamdeck:CLPLUS')?.describeControls().find((c) => c.control.id === 'dial0')?.picture as { gainDb: number | null }).gainDb === 7, 'the gain read');
      const mark = d.mark();
      for (let detent = 0; detent < 10; detent++) {
        d.backend.hidAt(PLUS.path)?.input(dialTurn([-1, 0, 0, 0]));
        await d.advance(15); // meter reads keep going meanwhile, some answered after a step was written
      }
      await d.advance(1000);
      const gains = d.writesSince(mark).map((w) => Number(/"AudioGain":"(-?[\d.]+)"/.exec(w)?.[1]));
      expect(gains).toEqual([6.5, 6, 5.5, 5, 4.5, 4, 3.5, 3, 2.5, 2]);
      expect((await d.fixture.client.getSource(0)).AudioGain).toBe(2);
      expect(d.commands.filter((c) => c.control === 'dial0').map((c) => c.result)).toEqual(Array(10).fill('ok'));
    });
  }

  it('while the source cannot be read the dial refuses with the reason, never stepping from the old gain; once it can, it steps from the gain read at the press', async () => {
    const d = await deckBridge(PROFILE, [PLUS]);
    const dial0 = () => d.bridge.session('streamdeck:CLPLUS')?.describeControls().find((c) => c.control.id === 'dial0')?.picture;
    await d.fixture.client.updateSource(0, { AudioGain: 7 });
    await d.until(() => dial0()?.kind === 'meter' && (dial0() as { gainDb: number | null }).gainDb === 7, 'the gain read');
    expect(dial0()).toMatchObject({ freshness: 'live' });

    // The source's reads fail from now on; another operator sets +6 dB meanwhile.
    d.fixture.sim.faults.set([{ kind: 'status', method: 'GET', path: '/api/sources/0', status: 503, probability: 1, latencyMs: 0 }]);
    await d.fixture.client.updateSource(0, { AudioGain: 6 });
    await d.advance(2000);
    expect(dial0()).toMatchObject({ kind: 'meter', gainDb: 7, freshness: 'stale', levels: null, ageS: 2 });

    let mark = d.mark();
    d.backend.hidAt(PLUS.path)?.input(dialTurn([-1, 0, 0, 0]));
    await d.advance(100);
    expect(d.writesSince(mark)).toEqual([]);
    const refused = d.commands.filter((c) => c.control === 'dial0').at(-1);
    expect(refused).toMatchObject({ action: 'gain-step', result: 'refused', request: null });
    expect(refused?.message).toMatch(/^cannot read the gain of "Cam 1"; a step never starts from an old gain: .*503/);
    // The dial shows the whole reason (paged on the key when it is longer than one page).
    expect(dial0()?.overlay).toMatchObject({ flash: 'refused', reason: refused?.message });

    // Reads work again: the next detent reads the gain at the press (no meter read has come back yet).
    d.fixture.sim.faults.set([]);
    mark = d.mark();
    d.backend.hidAt(PLUS.path)?.input(dialTurn([-1, 0, 0, 0]));
    await d.advance(5);
    expect(d.writesSince(mark)).toEqual(['PUT /api/sources/0 {"AudioGain":"5.5"}']);
    expect(d.commands.filter((c) => c.control === 'dial0').at(-1)).toMatchObject({ result: 'ok' });
  });

  it('a gain step in a macro step and on a key\'s release has its gain fetched and is carried out', async () => {
    const d = await deckBridge(
      `
name: steps
match: { kind: streamdeck }
pages:
  - name: Main
    controls:
      key0: { show: { label: UP }, press: { action: macro, steps: [ { action: sync-on, channel: 2 }, { action: gain-step, channel: 2, db: 1 } ] } }
      key1: { show: { label: DOWN }, release: { action: gain-step, channel: 2, db: -3 } }
`,
      [MK2],
    );
    await d.fixture.client.updateSource(1, { AudioGain: 0 });
    await d.advance(600); // polls, the slow group and a meter round
    const mark = d.mark();
    d.keys(MK2.path, 15, [0]);
    d.keys(MK2.path, 15, []);
    await d.advance(100);
    d.keys(MK2.path, 15, [1]);
    d.keys(MK2.path, 15, []);
    await d.advance(100);
    expect(d.writesSince(mark)).toEqual(['PUT /api/channels/1/sync-on', 'PUT /api/sources/1 {"AudioGain":"1.0"}', 'PUT /api/sources/1 {"AudioGain":"-2.0"}']);
  });
});

describe('macros belong to their session', () => {
  it('a deck unplugged during a macro\'s wait: the steps after it are never sent', async () => {
    const d = await deckBridge('name: m\nmatch: { kind: streamdeck }\npages:\n  - name: Main\n    controls:\n      key0: { press: { action: macro, steps: [ { action: sync-on, channel: 1 }, { wait: 500 }, { action: sync-rec-start } ] } }\n', [MK2]);
    await d.advance(200);
    const mark = d.mark();
    d.keys(MK2.path, 15, [0]);
    d.keys(MK2.path, 15, []);
    await d.advance(100);
    d.backend.hidAt(MK2.path)?.fail(new Error('could not read from HID device'));
    // Twice past the end of the macro's 500 ms wait: the next step would have been sent by then.
    await d.advance(1000);
    expect(d.writesSince(mark)).toEqual(['PUT /api/channels/0/sync-on']);
    expect(d.fixture.sim.recorder().syncState().IsSyncRecording).toBe(false);
  });
});
