// Issue 34: a poller falling behind says so in /healthz before its lease lapses, not only in its log.
// A real poller on real Mosquitto, reached through a link the test freezes (its renewals stop coming
// back), under a real remote server given the bus's warnings as `recdeck run` gives them
// (src/cli/bus-setup.ts: pollerWarnings); /healthz read over HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { pollerWarnings } from '../../src/cli/bus-setup.js';
import { Bridge } from '../../src/engine/bridge.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { startRemoteServer } from '../../src/remote/server.js';
import { generatedFacility, keptLog, startPoller, startSimulator } from '../support/facility.js';
import { startBroker, startLinkProxy } from '../support/mosquitto.js';
import { until } from '../support/until.js';
import { realTime } from '../../src/engine/engine-time.js';

/** A renewal every 2 s and a TTL of 6 s: behind from 4 s without a renewal back, lapsed at 6 s: a window of 2 s to read /healthz in, on this busy machine. */
const POLL_MS = 2000;
const TTL_MS = 6000;
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Healthz {
  ok: boolean;
  recorders: Array<{ name: string; warnings?: string[] }>;
}

describe('/healthz on a bus poller', () => {
  it('says the poller is falling behind while its renewals do not come back, before the lease lapses, and no more once one does', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.close());
    const link = await startLinkProxy(broker.port);
    cleanups.push(() => link.close());
    const sim = await startSimulator();
    cleanups.push(() => sim.close());
    const members = generatedFacility('main', ['poller-a'], []);
    const p = await startPoller(broker, sim, POLL_MS, { authority: members.authority('poller-a'), ttlMs: TTL_MS, brokerUrl: link.url });
    cleanups.push(async () => {
      p.poller.stop();
      await p.mqtt.endAsync(true);
      await p.client.close();
    });
    const log = keptLog();
    const bridge = new Bridge({ recorders: [{ name: 'main', link: p.poller }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: POLL_MS, time: realTime });
    bridge.start();
    cleanups.push(() => bridge.stop());
    const server = await startRemoteServer({ time: realTime, bridge, log, port: 0, warnings: pollerWarnings([{ name: 'main', poller: p.poller }]) });
    cleanups.push(() => server.close());
    const healthz = async (): Promise<Healthz> => (await (await fetch(`${server.url}/healthz`)).json()) as Healthz;
    const warningsOf = (h: Healthz) => h.recorders.find((r) => r.name === 'main')?.warnings ?? [];

    // A fresh poller claims a TTL after it starts.
    await until(() => p.poller.state.lastGoodAt !== null, 'the poller holding the lease and polling', 4 * TTL_MS);
    expect(warningsOf(await healthz())).toEqual([]);

    link.freeze();
    let seen: Healthz | null = null;
    await until(
      async () => {
        if (!p.poller.fallingBehind) return false;
        seen = await healthz();
        return true;
      },
      'the poller falling behind',
      2 * TTL_MS,
    );
    const behind = seen as Healthz | null;
    // Still within its lease (the HTTP answer came before the lapse): said while it can still catch up.
    expect(p.poller.fallingBehind).toBe(true);
    expect(behind?.ok).toBe(true);
    expect(warningsOf(behind ?? { ok: false, recorders: [] })).toEqual(['the poller "poller-a" is falling behind: its lease renewals come back so late that it is one renewal from losing the lease']);

    link.thaw();
    await until(async () => warningsOf(await healthz()).length === 0 && !p.poller.fallingBehind, 'the poller caught up, /healthz quiet again', 2 * TTL_MS);
    expect(p.log.lines.some((line) => line.includes('"poller-a" is falling behind'))).toBe(true);
  });
});
