// e2e because Mosquitto is the part: what makes a poller fall behind is its lease renewals not coming
// back from a real broker, reached through a link the test freezes. Issue 34: a poller falling behind
// says so in /healthz before its lease lapses, not only in its log. A real poller on real Mosquitto,
// under a real remote server given the bus's warnings as `recdeck run` gives them (src/cli/bus-setup.ts:
// pollerWarnings); /healthz read over HTTP.
import type { IPublishPacket, Packet } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { topicsOf } from '../../src/bus/topics.js';
import { pollerWarnings } from '../../src/cli/bus-setup.js';
import { Bridge } from '../../src/engine/bridge.js';
import { realTime } from '../../src/engine/engine-time.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { startRemoteServer } from '../../src/remote/server.js';
import { facilityFor, keptLog, type PollerProcess } from '../support/facility.js';
import { startBroker, startLinkProxy } from '../support/mosquitto.js';
import { until } from '../support/until.js';

/**
 * A renewal every 2 s and a TTL of 3 renewals (6 s): a holder is behind once its last renewal back was
 * sent 4 s ago, which it sees at a renewal, and has lapsed at 6 s: a window of a renewal, 2 s, to read
 * /healthz in, on this busy machine.
 */
const POLL_MS = 2000;
const TTL_MS = 6000;

interface Healthz {
  ok: boolean;
  recorders: Array<{ name: string; warnings?: string[] }>;
}

describe('/healthz on a bus poller', () => {
  it('says the poller is falling behind while its renewals do not come back, before the lease lapses, and no more once one does', async (test) => {
    const broker = await startBroker();
    const link = await startLinkProxy(broker.port);
    // The rig hands the lease to the poller as it starts (a fresh poller would wait out a TTL first).
    const f = await facilityFor(test, { pollMs: POLL_MS, broker, pollers: ['poller-a'], panels: [], poller: () => ({ ttlMs: TTL_MS, brokerUrl: link.url }) });
    f.defer(() => link.close());
    const p = f.pollers[0] as PollerProcess;
    const log = keptLog();
    const bridge = new Bridge({ recorders: [{ name: 'main', link: p.poller }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: POLL_MS, time: realTime });
    bridge.start();
    f.defer(() => bridge.stop());
    const server = await startRemoteServer({ time: realTime, bridge, log, port: 0, warnings: pollerWarnings([{ name: 'main', poller: p.poller }]) });
    f.defer(() => server.close());
    const healthz = async (): Promise<Healthz> => (await (await fetch(`${server.url}/healthz`)).json()) as Healthz;
    const warningsOf = (h: Healthz) => h.recorders.find((r) => r.name === 'main')?.warnings ?? [];
    expect(warningsOf(await healthz())).toEqual([]);

    // Frozen as a renewal leaves (it is held with everything after it): the last renewal back was sent a
    // poll before, so the poller is behind at the next renewal, a poll from now, and lapses a poll later.
    const lease = topicsOf('main').lease;
    const freezeAtRenewal = (packet: Packet) => {
      if (packet.cmd !== 'publish' || (packet as IPublishPacket).topic !== lease) return;
      p.mqtt.off('packetsend', freezeAtRenewal);
      link.freeze();
    };
    p.mqtt.on('packetsend', freezeAtRenewal);
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
