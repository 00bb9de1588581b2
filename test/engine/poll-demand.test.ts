// A bridge whose recorder is read on demand (as the Stream Deck plugin's and `recdeck run`'s are), on
// virtual time against the simulator over real HTTP: a deck of channel keys reads the channels and
// nothing else, and its presses still plan from live state and have their effect confirmed; a page that
// needs the dialog has it read at once; an overlay keeps the dialog read on every page; a surface gone
// leaves nothing read.
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { realClock } from '../../src/api/clock.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord, Logger } from '../../src/engine/log.js';
import { onDemandLink, pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { keyGrid } from '../../src/engine/surface.js';
import { realTime } from '../../src/engine/engine-time.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from '../support/bridge.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo } from '../support/virtual-time.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
let fixture: SimulatorFixture | undefined;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  await fixture?.close();
  stop = undefined;
  fixture = undefined;
});

const CHANNEL_KEYS = `
name: channels
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: rec-toggle, channel: 1 } }
      key1: { press: { action: rec-toggle, channel: 2 } }
      key2: { show: { channel: 3 } }
`;

async function onDemandBridge(profile: string) {
  const time = new VirtualTime();
  fixture = await startFixture({ clock: time, grid: 16 });
  const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: fixture.sim.token });
  const requests = new RequestCounter(client, time);
  const paths: Array<{ path: string; at: number }> = [];
  client.observe((record) => paths.push({ path: record.path, at: time.now() }));
  const link = pollingLink(new RecorderPoller('main', client, { pollMs: 100, slowMs: 500, time, reads: 'on-demand' }));
  const bridge = new Bridge({ recorders: [{ name: 'main', link }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail: () => Promise.reject(new Error('no previews here')), log: quiet, time });
  const commands: CommandRecord[] = [];
  bridge.commands$.subscribe((record) => commands.push(record));
  const surface = new MemorySurface({ time: realTime, id: 'memory:test', model: 'test-15', controls: keyGrid(3, 5, 96) });
  bridge.start();
  bridge.setProfiles([parseTestProfile(profile)]);
  stop = async () => {
    await bridge.stop();
    await client.close();
  };
  const settled = () => requests.quiet() && bridge.surfaceSessions().every((session) => session.idle);
  const advance = (ms: number) => advanceWithIo(time, ms, settled);
  /** The reads (GETs of the state) asked since `from`, by path. */
  const readsSince = (from: number) => new Set(paths.filter((p) => p.at >= from && !/rec-|sync-on|sync-off/.test(p.path)).map((p) => p.path));
  return { time, bridge, surface, commands, advance, paths, readsSince };
}

describe('reading on demand', () => {
  it('a deck of channel keys reads the channels alone, and a press plans from them live and sees its effect in them', async () => {
    const b = await onDemandBridge(CHANNEL_KEYS);
    await b.advance(1000);
    expect(b.paths).toEqual([]); // no surface: nothing asked
    b.bridge.addSurface(b.surface);
    await b.advance(1000);
    expect(b.readsSince(0)).toEqual(new Set(['/api/channels']));
    expect(b.paths.length).toBeGreaterThanOrEqual(10);

    b.surface.press('key0');
    await b.advance(500);
    expect(b.commands).toMatchObject([{ control: 'key0', action: 'rec-toggle', request: 'PUT /api/channels/0/rec-start', result: 'ok' }]);
    expect(b.bridge.recorderStates()[0]?.channels?.[0]?.IsRecording).toBe(true);
    expect(b.readsSince(0)).toEqual(new Set(['/api/channels']));
  });

  it('a page that needs the dialog has it read at once; the page gone, it is read no more; no surface, nothing is', async () => {
    const b = await onDemandBridge(CHANNEL_KEYS);
    b.bridge.addSurface(b.surface);
    await b.advance(500);
    const withDialog = CHANNEL_KEYS.replace('key2: { show: { channel: 3 } }', 'key2: { press: { action: dialog-ok } }');
    const turned = b.time.now();
    b.bridge.setProfiles([parseTestProfile(withDialog)]);
    await b.advance(0);
    expect(b.paths.filter((p) => p.path === '/api/app/dialog').map((p) => p.at)).toEqual([turned]);
    await b.advance(500);
    expect(b.readsSince(turned)).toEqual(new Set(['/api/channels', '/api/app/dialog']));

    const back = b.time.now();
    b.bridge.setProfiles([parseTestProfile(CHANNEL_KEYS)]);
    await b.advance(100); // a read under way when it went ends it
    const after = b.time.now();
    await b.advance(1000);
    expect(b.readsSince(after)).toEqual(new Set(['/api/channels']));
    expect(b.paths.filter((p) => p.path === '/api/app/dialog' && p.at > back).length).toBeLessThanOrEqual(1);

    b.bridge.removeSurface(b.surface.id);
    await b.advance(100);
    const gone = b.time.now();
    await b.advance(2000);
    expect(b.readsSince(gone)).toEqual(new Set());
  });

  it("a profile with a dialog overlay has the default recorder's dialog read on every page", async () => {
    const overlay = `${CHANNEL_KEYS.replace('pages:', 'overlays: { dialog: Dialog }\npages:')}
  - name: Dialog
    controls:
      key0: { press: { action: dialog-ok } }
`;
    const b = await onDemandBridge(overlay);
    b.bridge.addSurface(b.surface);
    await b.advance(1000);
    expect(b.readsSince(0)).toEqual(new Set(['/api/channels', '/api/app/dialog']));
  });
});

describe('onDemandLink', () => {
  it("reads what its standing owners need with no surface at all (recdeck run's web server), and its surfaces' needs beside", async () => {
    const time = new VirtualTime();
    fixture = await startFixture({ clock: time, grid: 16 });
    const client = new RecorderClient({ clock: realClock, url: fixture.sim.url, token: fixture.sim.token });
    const requests = new RequestCounter(client, time);
    const paths = new Set<string>();
    client.observe((record) => paths.add(record.path));
    const link = onDemandLink('main', client, { time, pollMs: 100, slowMs: 500, standing: new Map([['the web server', ['channels', 'resources'] as const]]) });
    stop = async () => {
      link.stop();
      await client.close();
    };
    link.start();
    await advanceWithIo(time, 1000, requests.quiet);
    expect(paths).toEqual(new Set(['/api/channels', '/api/app/resources']));
    link.want?.('memory:test', new Set(['sync']));
    await advanceWithIo(time, 200, requests.quiet);
    expect(paths).toEqual(new Set(['/api/channels', '/api/app/resources', '/api/app/sync']));
  });
});
