// e2e because Mosquitto is the part: pollers and panels find each other only through a real broker (its
// retained state, QoS 1 re-deliveries, last wills), which is what is shown here.
// One recorder, pollers and panel bridges on a real Mosquitto: the panels show what the poller reads,
// a press on any panel reaches the recorder once (also when the broker delivers the command twice),
// panels go stale then offline when the poller dies, and a standby takes over.
import type { MqttClient } from 'mqtt';
import { beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { topicsOf } from '../../src/bus/topics.js';
import { channelState, clientFor, facilityFor, idleRecorder, isHolding as holding, sharedFacility, timersLate, until, type FacilityOptions, type Panel, type PollerProcess, type Rig } from '../support/facility.js';

/** The default poll: a facility polled faster costs this busy machine more than it saves the tests. */
const POLL_MS = 250;

/**
 * One poller with a lease TTL of 2 s (8 polls): on a machine this busy, a test process stalls for
 * longer than the default 3 polls now and then, and these tests are not about the lease.
 */
const ONE_POLLER: FacilityOptions = { pollMs: POLL_MS, pollers: ['poller-0'], poller: () => ({ ttlMs: 2000 }) };

const press = (panel: Panel, control: string) => {
  panel.surface.down(control);
  panel.surface.up(control);
};

/** A bare MQTT client on the broker that records what is published on `topic` during the test. */
async function listener(test: TestContext, f: Rig, topic: string): Promise<{ raw: MqttClient; seen: Buffer[] }> {
  const raw: MqttClient = await clientFor(test, f);
  const seen: Buffer[] = [];
  raw.on('message', (t, payload) => t.startsWith(topic.replace(/[+#].*$/, '')) && seen.push(payload));
  await raw.subscribeAsync(topic, { qos: 1 });
  return { raw, seen };
}

// The tests that leave the facility as they found it share one (each from a mark in the recorder's
// log, with every take ended); the others have their own, and the first of them runs beside them.
describe.concurrent('a facility on the state bus', () => {
  describe('one facility for the tests that leave it as they found it', () => {
    const shared = sharedFacility(ONE_POLLER);
    beforeEach(() => idleRecorder(shared()));

    it.sequential('a change at the recorder shows on both panels, read by the one poller', async () => {
      const f = shared();
      await f.sim.client.recStart(0);
      await until(() => f.panels.every((panel) => channelState(panel, 'key0') === 'recording'), 'channel 1 recording on both panels');
      // Only the poller holds the token: the panels have no URL, so every request came from it.
      expect(f.panels.every((panel) => panel.bridge.recorderAddresses()[0]?.url === 'mqtt recdeck/main/#')).toBe(true);
    });

    it.sequential('a press on either panel reaches the recorder exactly once, and both panels show its effect', async () => {
      const f = shared();
      const mark = f.mark();
      const audited = f.pollers[0]?.audit.length ?? 0;
      const [a, b] = f.panels as [Panel, Panel];
      const first = a.nextCommand('key0');
      press(a, 'key0');
      expect(await first).toMatchObject({ result: 'ok', request: 'PUT /api/channels/0/rec-start' });
      const second = b.nextCommand('key1');
      press(b, 'key1');
      expect(await second).toMatchObject({ result: 'ok', request: 'PUT /api/channels/1/rec-start' });
      expect(f.writes(mark)).toEqual(['PUT /api/channels/0/rec-start', 'PUT /api/channels/1/rec-start']);
      await until(() => [a, b].every((panel) => channelState(panel, 'key0') === 'recording' && channelState(panel, 'key1') === 'recording'), 'both channels recording on both panels');
      // Each panel said what it sent before the outcome, and the poller audited who ran what.
      expect(a.log.lines.some((line) => /sent PUT \/api\/channels\/0\/rec-start on "main"/.test(line))).toBe(true);
      expect(f.pollers[0]?.audit.slice(audited).map((r) => [r.surface, r.action, r.request, r.result])).toEqual([
        ['bus:panel-a', 'recStart', 'PUT /api/channels/0/rec-start', 'ok'],
        ['bus:panel-b', 'recStart', 'PUT /api/channels/1/rec-start', 'ok'],
      ]);
    });

    it.sequential('a command the broker delivers twice runs once; the duplicate gets the same answer', async (test) => {
      const f = shared();
      const mark = f.mark();
      const commands = await listener(test, f, topicsOf('main').cmds);
      const replies = await listener(test, f, topicsOf('main').reply('panel-a'));
      await f.panels[0]?.link.call({ method: 'recStart', args: [2] });
      await until(() => commands.seen.length === 1 && replies.seen.length === 1, 'the command and its reply');
      // The same signed command again, as a QoS 1 re-delivery would bring it.
      await commands.raw.publishAsync(topicsOf('main').cmd('panel-a'), commands.seen[0] as Buffer, { qos: 1 });
      await until(() => replies.seen.length === 2, 'the second reply');
      const bodies = replies.seen.map((payload) => (JSON.parse(payload.toString()) as { body: unknown }).body);
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[0]).toMatchObject({ ok: true });
      expect(f.writes(mark)).toEqual(['PUT /api/channels/2/rec-start']);
    });

    it.sequential('a bad command is answered with what is wrong and not run', async () => {
      const f = shared();
      const mark = f.mark();
      // The panel checks a call's arguments against the operation before sending it (the poller checks
      // them again: test/bus/admission.test.ts), so a bad call never leaves the panel.
      await expect(f.panels[0]?.link.call({ method: 'recStart', args: [] } as never)).rejects.toMatchObject({ notRun: true, message: expect.stringContaining('not sent: recStart takes index') });
      expect(f.writes(mark)).toEqual([]);
    });
  });

  it('the poller killed: its last will makes the panels stale, then offline', async (test) => {
    // Polls of 500 ms: the panels show stale for one to two polls before offline (the last read's 3 polls
    // run out; the third interval without a poller passes), long enough for this busy machine to draw it.
    const pollMs = 500;
    const f = await facilityFor(test, { ...ONE_POLLER, pollMs });
    // Every state a panel's key goes through, sampled as it is drawn.
    const seen: string[][] = [[], []];
    const sample = () =>
      f.panels.forEach((panel, i) => {
        const state = channelState(panel, 'key0');
        const list = seen[i] as string[];
        if (state !== undefined && list.at(-1) !== state) list.push(state);
      });
    sample();
    for (const panel of f.panels) {
      const drawn = panel.surface.output.drawn$.subscribe(sample);
      f.defer(() => drawn.unsubscribe());
    }
    const late = timersLate();
    f.pollers[0]?.kill();
    await until(() => f.panels.every((panel) => channelState(panel, 'key0') === 'offline'), 'both panels offline', 10 * pollMs + 3000);
    sample();
    // The panels run in this process: stalled for longer than the stale stretch (a poll or two), they
    // drew nothing in it and go from idle to offline. Shorter stalls must show it.
    const stallsMs = late.stop();
    const drawable = stallsMs < pollMs;
    for (const states of seen) expect(drawable ? states : states.filter((state) => state !== 'stale')).toEqual(drawable ? ['idle', 'stale', 'offline'] : ['idle', 'offline']);
    expect(f.panels[0]?.bridge.recorderStates()[0]?.lastError).toMatch(/poller "poller-0" is gone/);
  });

  // After the others, alone: it holds the lease to its own TTL of 3 polls, which a process busy with
  // other facilities beside it could miss.
  it.sequential("a standby poller takes over within 3 polls of the active one's last renewal", async (test) => {
    // The lease's own TTL, 3 polls of 250 ms.
    const f = await facilityFor(test, { pollMs: 250, pollers: ['poller-0', 'poller-1'] });
    const [active, standby] = f.pollers as [PollerProcess, PollerProcess];
    expect([holding(active), holding(standby)]).toEqual([true, false]);
    const leases = await listener(test, f, topicsOf('main').lease);
    // Each lease as it arrives here: who sent it, and when (the sender's clock is this machine's).
    const arrivals: Array<{ at: number; holder: string; sentAt: number }> = [];
    leases.raw.on('message', (_, payload) => {
      const { from, body } = JSON.parse(payload.toString()) as { from: string; body: { renewedAt: number } };
      arrivals.push({ at: Date.now(), holder: from, sentAt: body.renewedAt });
    });
    const takenOver = new Promise<number>((resolve) => standby.poller.holding$.subscribe((h) => h && resolve(Date.now())));
    // From before the last renewal the standby sees: how late the timers ran from there on.
    const late = timersLate();
    // A renewal of the active one's: the first lease here may be the standby's losing claim of the start
    // (both claim the first epoch; the higher term holds), retained by the broker when this listener came.
    await until(() => arrivals.some((a) => a.holder === 'poller-0'), "a renewal of the active poller's");
    const getsBefore = f.gets();
    active.kill();
    const takenAt = await takenOver;
    const lateMs = late.stop();
    await until(() => arrivals.some((a) => a.holder === 'poller-1'), "the standby's claim");
    const lastRenewal = arrivals.filter((a) => a.holder === 'poller-0').at(-1)?.at ?? 0;
    const claim = arrivals.find((a) => a.holder === 'poller-1');
    const trip = takenAt - (claim?.sentAt ?? Number.NaN);
    // The lease's TTL is 3 polls after the last renewal reached the standby (and this listener, 50 ms apart
    // at most here); the claim's trip through the broker and back (measured), and however late this busy
    // machine ran the timers in all, on top.
    expect(takenAt - lastRenewal, `the claim's trip ${trip} ms, timers ${lateMs} ms late in all`).toBeLessThanOrEqual(3 * 250 + 50 + trip + lateMs);
    expect(standby.log.lines.some((line) => /"poller-1" claims the lease \(epoch \d+\): no renewal from "poller-0"/.test(line))).toBe(true);
    // The standby polls now: the panels see a change at the recorder again, and press through it.
    await f.sim.client.recStart(3);
    await until(() => f.panels.every((panel) => channelState(panel, 'key0') === 'idle'), 'the panels live again');
    const pressed = f.panels[1]?.nextCommand('key1');
    press(f.panels[1] as Panel, 'key1');
    expect(await pressed).toMatchObject({ result: 'ok' });
    expect(f.writes()).toEqual(['PUT /api/channels/3/rec-start', 'PUT /api/channels/1/rec-start']);
    expect(f.gets()).toBeGreaterThan(getsBefore);
  });
});
