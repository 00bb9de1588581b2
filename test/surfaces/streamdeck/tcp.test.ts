// Stream Decks over the network: the REAL @elgato-stream-deck/tcp (and its own core) connected to a fake
// Stream Deck Studio and a fake Network Dock on 127.0.0.1 (test/support/fake-dock.ts), under the real
// bridge against the simulator, bound to the shipped profiles as USB decks are. Keys are drawn, a press
// reaches the recorder, and a deck that restarts or falls silent comes back by itself.
//
// Real time, bounded: the library reconnects on its own timers (a closed socket is retried every 5 s, a
// silent one counted lost after 5 s), which live in node_modules and cannot be put on virtual time; the
// bridge and simulator run on the real clock beside them, and every wait is an until() with a bound.
// The lengths of those timers are not what is shown here (that the library's own timers bring a deck
// back, with nobody asking, is): they are the library's module constants, which it reads at each use,
// and this file shortens them for its run (retry 250 ms, silence 2.5 s: still 10 of the fake's 250 ms
// keepalives) and puts them back after. 19.5 s of waiting on 5 s timers became ~5 s.
import { createRequire } from 'node:module';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/api/clock.js';
import { RecorderClient } from '../../../src/api/client.js';
import { Bridge } from '../../../src/engine/bridge.js';
import { realTime } from '../../../src/engine/engine-time.js';
import type { Logger } from '../../../src/engine/log.js';
import { pictureRenderer } from '../../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../../src/render/thumbnail.js';
import { StreamDeckTcpSource, type FoundTcpDeck, type TcpDiscovery, loadTcpDeckLibrary } from '../../../src/surfaces/streamdeck/tcp-source.js';
import { parseTcpDeckAddress, type TcpDeckAddress } from '../../../src/surfaces/streamdeck/tcp-address.js';
import { startFakeDock, startFakeStudio, type FakeDeckPort } from '../../support/fake-dock.js';
import { shippedProfile } from '../../support/shipped-profiles.js';
import { lastSeq, startFixture, writesSince } from '../../support/simulator.js';
import { TEST_MS, until } from '../../support/until.js';
import { gen2KeyImages } from './reports.js';
import { EventEmitter } from 'node:events';

/** The library's timing constants (@elgato-stream-deck/tcp 7.3.2 dist/constants.js), as its socket reads them. */
const libraryTimers = createRequire(import.meta.url)('@elgato-stream-deck/tcp/dist/constants.js') as { RECONNECT_INTERVAL: number; TIMEOUT_DURATION: number };
const SHORT_TIMERS = { RECONNECT_INTERVAL: 250, TIMEOUT_DURATION: 2500 };
beforeAll(() => {
  // A library whose constants moved or changed fails here, by name, rather than running on other timers.
  expect({ RECONNECT_INTERVAL: libraryTimers.RECONNECT_INTERVAL, TIMEOUT_DURATION: libraryTimers.TIMEOUT_DURATION }).toEqual({ RECONNECT_INTERVAL: 5000, TIMEOUT_DURATION: 5000 });
  Object.assign(libraryTimers, SHORT_TIMERS);
});
afterAll(() => {
  Object.assign(libraryTimers, { RECONNECT_INTERVAL: 5000, TIMEOUT_DURATION: 5000 });
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * The bridge on the simulator with a shipped profile, and a network source for the given decks. Polled
 * every 500 ms, so a poll waits 2 s for its answer (4 polls' time): a loaded machine that answers a poll
 * late is not "something else wrong" here (the 100 ms polls' 1 s bound was missed at load 19). Meters
 * are read every 500 ms too, and previews every 30 s (the first at once): neither is looked at here, and
 * at 100 and 500 ms, in real time, they were most of the file's CPU (the Studio's 16 thumbnail keys
 * fetched, decoded, redrawn and sent to the deck twice a second).
 */
async function start(profileFile: string, options: { decks?: TcpDeckAddress[]; discovery?: TcpDiscovery } = {}) {
  const fixture = await startFixture({ clock: realClock, grid: 16 });
  cleanups.push(() => fixture.close());
  const lines: string[] = [];
  const log: Logger = { info: (m) => lines.push(m), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
  const client = new RecorderClient({ url: fixture.sim.url, token: fixture.sim.token, clock: realClock });
  const bridge = new Bridge({ recorders: [{ name: 'main', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: 500, slowMs: 500, meterMs: 500, thumbnailMs: 30_000, time: realTime });
  // Loaded once per worker by loadProfileFile (test/support/shipped-profiles.ts); this test's copy.
  const profile = await shippedProfile(profileFile);
  bridge.start();
  bridge.setProfiles([profile]);
  const discovery = options.discovery;
  const source = new StreamDeckTcpSource({
    decks: options.decks ?? [],
    mdns: discovery !== undefined,
    log,
    time: realTime,
    ...(discovery === undefined ? {} : { load: async () => ({ ...(await loadTcpDeckLibrary()), discovery: () => discovery }) }),
  });
  const events: string[] = [];
  source.surfaces$.subscribe((event) => {
    events.push(event.type === 'added' ? `added ${event.surface.id}` : `removed ${event.id}`);
    if (event.type === 'added') bridge.addSurface(event.surface);
    else bridge.removeSurface(event.id);
  });
  source.start();
  cleanups.push(async () => {
    await source.stop();
    await bridge.stop();
    await client.close();
  });
  const nextCommand = (control: string) => firstValueFrom(bridge.commands$.pipe(filter((r) => r.control === control), timeout(10_000)));
  return { fixture, bridge, lines, events, nextCommand, source };
}

/** Keys the deck was given a picture (an image) or a colour (a Studio fills a key with one report: 03 06 <key> r g b). */
const drawnKeys = (port: FakeDeckPort) =>
  new Set([...gen2KeyImages(port.writes).map((image) => image.hidIndex), ...port.featureReports.filter((r) => r[0] === 0x03 && r[1] === 0x06).map((r) => r[2] ?? -1)]);
/**
 * Warnings and errors other than a deck's loss: the library's 'disconnected' (" lost; it is reconnected
 * by itself"), or a write or socket error that came first (the surface closes itself "until the device
 * is seen again" and the source connects afresh). Which one comes first is the sockets' race.
 */
// What losing a deck may say, whichever comes first: the library's word that it is lost, a write that
// failed (which closes it), or a write already under way that failed once it was closing (beside a second
// suite: "drawing key1 failed while closing: sendCoraWrites can only be used in cora mode", the library's
// connection reset under the write).
const problems = (lines: readonly string[]) =>
  lines.filter((l) => /^(warn|error) /.test(l) && !/ lost; it is reconnected by itself|: (device error|drawing \w+ failed|lighting \w+ failed).*; closed until the device is seen again$|: (drawing|lighting) \w+ failed while closing: /.test(l));

/** Presses and releases key `key` on the fake, and returns the command it ran. */
async function tap(deck: FakeDeckPort, nextCommand: (control: string) => Promise<unknown>, key: number): Promise<unknown> {
  const command = nextCommand(`key${key}`);
  deck.press(key);
  deck.release(key);
  return command;
}

describe('a Stream Deck Studio on the network', () => {
  it('is drawn, drives the recorder, and comes back by itself after the deck restarts', { timeout: TEST_MS }, async () => {
    const studio = await startFakeStudio();
    cleanups.push(() => studio.stop());
    const { fixture, bridge, lines, events, nextCommand } = await start('streamdeck-studio.yaml', { decks: [{ host: '127.0.0.1', port: studio.port }] });

    await until(() => bridge.session('streamdeck:STUDIO0001') !== undefined, 'the Studio bound as a surface');
    expect(bridge.session('streamdeck:STUDIO0001')?.profileName).toBe('Stream Deck Studio');
    await until(() => drawnKeys(studio).size === 32, 'all 32 keys drawn');

    const mark = lastSeq(fixture.sim);
    expect(await tap(studio, nextCommand, 0)).toMatchObject({ surface: 'streamdeck:STUDIO0001', action: 'rec-start', result: 'ok', request: 'PUT /api/channels/0/rec-start' });
    expect(writesSince(fixture.sim, mark)).toEqual(['PUT /api/channels/0/rec-start']);

    // The deck loses power and comes back on the same port: nobody removes or re-adds anything.
    await studio.stop();
    await until(() => bridge.session('streamdeck:STUDIO0001') === undefined, 'the Studio gone');
    studio.writes.length = 0;
    await studio.start();
    await until(() => bridge.session('streamdeck:STUDIO0001') !== undefined, 'the Studio back by itself');
    await until(() => drawnKeys(studio).size === 32, 'all 32 keys drawn again');
    expect(await tap(studio, nextCommand, 1)).toMatchObject({ action: 'rec-start', result: 'ok', request: 'PUT /api/channels/1/rec-start' });

    expect(events).toEqual(['added streamdeck:STUDIO0001', 'removed streamdeck:STUDIO0001', 'added streamdeck:STUDIO0001']);
    expect(studio.protocolErrors).toEqual([]);
    expect(problems(lines)).toEqual([]);
  });

  it('comes back by itself after its network falls silent (no FIN: only its keepalives stop)', { timeout: TEST_MS }, async () => {
    const studio = await startFakeStudio();
    cleanups.push(() => studio.stop());
    const { bridge, lines, nextCommand } = await start('streamdeck-studio.yaml', { decks: [{ host: '127.0.0.1', port: studio.port }] });
    await until(() => bridge.session('streamdeck:STUDIO0001') !== undefined, 'the Studio bound as a surface');

    studio.alive = false;
    await until(() => bridge.session('streamdeck:STUDIO0001') === undefined, 'the silent Studio counted lost');
    studio.alive = true;
    await until(() => bridge.session('streamdeck:STUDIO0001') !== undefined, 'the Studio back by itself');
    expect(await tap(studio, nextCommand, 2)).toMatchObject({ action: 'rec-start', result: 'ok', request: 'PUT /api/channels/2/rec-start' });
    // Lost either way: the library's silence bound without a keepalive, or a write that failed first. It is said,
    // and nothing else is wrong.
    expect(lines.some((l) => /^(warn|error) .*streamdeck:STUDIO0001/.test(l))).toBe(true);
    expect(problems(lines)).toEqual([]);
  });
});

describe('a Stream Deck on a Network Dock', () => {
  it('is found through the dock (mDNS here), bound like a USB 15-key deck, and back by itself after the dock restarts', { timeout: TEST_MS }, async () => {
    const fake = await startFakeDock();
    cleanups.push(() => fake.stop());
    // mDNS itself is the library's: here its discovery is an emitter that reports the dock.
    const discovery = Object.assign(new EventEmitter(), { destroy: () => undefined });
    const { bridge, lines, nextCommand } = await start('streamdeck-15-keys.yaml', { discovery });
    await until(() => discovery.listenerCount('up') > 0, 'the source listening to mDNS');
    discovery.emit('up', { address: '127.0.0.1', port: fake.dock.port, name: 'Stream Deck Network Dock' } satisfies FoundTcpDeck);

    await until(() => bridge.session('streamdeck:CL15K0001') !== undefined, 'the dock\'s deck bound as a surface');
    expect(bridge.surfaceSessions().map((s) => s.surface.id)).toEqual(['streamdeck:CL15K0001']); // the dock itself has no controls
    await until(() => drawnKeys(fake.deck).size === 15, 'all 15 keys drawn');
    expect(await tap(fake.deck, nextCommand, 0)).toMatchObject({ surface: 'streamdeck:CL15K0001', action: 'rec-start', result: 'ok' });

    await fake.restart();
    fake.deck.writes.length = 0;
    await until(() => fake.dock.connections >= 2 && fake.deck.connections >= 2, 'the dock and its deck connected again');
    await until(() => bridge.session('streamdeck:CL15K0001') !== undefined && drawnKeys(fake.deck).size === 15, 'the deck back and drawn again');
    expect(fake.dock.protocolErrors.concat(fake.deck.protocolErrors)).toEqual([]);
    expect(problems(lines)).toEqual([]);
  });
});

describe('--streamdeck-tcp HOST[:PORT]', () => {
  it('takes a host, a port, and IPv6 in brackets; refuses the rest by name', () => {
    expect(parseTcpDeckAddress('studio.local')).toEqual({ ok: true, address: { host: 'studio.local', port: 5343 } });
    expect(parseTcpDeckAddress('10.0.0.5:6000')).toEqual({ ok: true, address: { host: '10.0.0.5', port: 6000 } });
    expect(parseTcpDeckAddress('[fe80::1]:5343')).toEqual({ ok: true, address: { host: 'fe80::1', port: 5343 } });
    expect(parseTcpDeckAddress('[::1]')).toEqual({ ok: true, address: { host: '::1', port: 5343 } });
    expect(parseTcpDeckAddress('fe80::1')).toMatchObject({ ok: false, problem: expect.stringMatching(/needs its brackets/) });
    expect(parseTcpDeckAddress('dock:0')).toMatchObject({ ok: false, problem: expect.stringMatching(/"0" is not a number from 1 to 65535/) });
    expect(parseTcpDeckAddress('dock:http')).toMatchObject({ ok: false, problem: expect.stringMatching(/"http"/) });
    expect(parseTcpDeckAddress('')).toMatchObject({ ok: false });
    expect(parseTcpDeckAddress('a b')).toMatchObject({ ok: false });
  });
});
