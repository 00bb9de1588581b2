// The poller's health on the bus, on virtual time: the real RecorderPoller reading the simulator over
// HTTP, the real BusPoller publishing it, and a panel's real BusRecorder reading what it publishes,
// joined by an in-memory broker (a fake at the transport: delivery by topic filter, retained copies).
// Health goes out when what it says changes and as a heartbeat, not with every read, and the panel still
// sees what the poller sees: its lastGoodAt, failures, last error and reachability, at every moment
// (every health a later time than the last: a panel ignores one no newer).
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { generatedFacility } from '../../src/bench/bus.js';
import { freePort } from '../../src/bench/broker.js';
import { BusPoller, recorderIdentity } from '../../src/bus/bus-poller.js';
import { BusRecorder } from '../../src/bus/bus-recorder.js';
import { HEALTH_HEARTBEAT_MS, topicsOf } from '../../src/bus/topics.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { freshnessOf, type RecorderState } from '../../src/engine/recorder-state.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { keptLog } from '../support/facility.js';
import { FakeBroker, FakeClient } from '../support/fake-broker.js';
import { RequestCounter, VirtualTime, advanceWithIo, untilWithIo } from '../support/virtual-time.js';

const TOKEN = 'perm:11111111-2222-4333-8444-555555555555';
const POLL_MS = 250;
const MAIN = topicsOf('main');

let sim: RunningSimulator | undefined;
let client: RecorderClient | undefined;
const stops: Array<() => void> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await client?.close();
  await sim?.close();
  sim = undefined;
  client = undefined;
});

/** A poller of the simulator on the fake broker, and a panel following it there. */
async function facility() {
  const time = new VirtualTime();
  const port = await freePort();
  sim = await startSimulator({ port, token: TOKEN, tickMs: 0, clock: time });
  // The client's time limits on virtual time too: a request under way never times out while the test waits for it (a busy machine).
  client = new RecorderClient({ clock: time, url: sim.url, token: TOKEN });
  const requests = new RequestCounter(client);
  const broker = new FakeBroker(time);
  const { authority } = generatedFacility('main', ['poller-main'], ['desk-1']);
  const polling = pollingLink(new RecorderPoller('main', client, { pollMs: POLL_MS, time }));
  const poller = new BusPoller('main', polling, new FakeClient(broker) as unknown as MqttClient, { authority: authority('poller-main'), identity: recorderIdentity(sim.url, TOKEN), pollMs: POLL_MS, instance: 'instance-0001', time, log: keptLog() });
  const panel = new BusRecorder('main', new FakeClient(broker) as unknown as MqttClient, { authority: authority('desk-1'), pollMs: POLL_MS, time, log: keptLog() });
  poller.start();
  panel.start();
  stops.push(() => panel.stop(), () => poller.stop());
  let holding = false;
  poller.holding$.subscribe((held) => (holding = held));
  const advance = (ms: number) => advanceWithIo(time, ms, requests.quiet);
  await untilWithIo(time, requests.quiet, () => holding && freshnessOf(panel.state, time.now()) === 'live', 'the poller holding the lease and the panel live');
  const healths = () => broker.log.filter((p) => p.topic === MAIN.health);
  const truth = (state: RecorderState) => ({ lastGoodAt: state.lastGoodAt, failures: state.failures, lastError: state.lastError, unreachable: state.unreachable });
  return { time, sim, poller, panel, broker, advance, healths, truth, port, quiet: requests.quiet };
}

describe("the poller's health on the bus", () => {
  it('goes out once while nothing it says changes, then as a heartbeat; the parts every read; the panel sees the same lastGoodAt throughout', async () => {
    const f = await facility();
    const first = f.healths();
    expect(first).toHaveLength(1);
    expect(first[0]?.body).toEqual({ online: true, instance: 'instance-0001', pollMs: POLL_MS, slowMs: 5000, failures: 0, lastError: null, unreachable: false });
    const since = f.time.now();
    const channelsBefore = f.broker.log.filter((p) => p.topic === MAIN.part('channels')).length;
    // Every 50 ms for the rest of the heartbeat's interval: the panel's word on the recorder is the poller's, 1 ms of transit apart.
    for (let at = 0; at < HEALTH_HEARTBEAT_MS - 300; at += 50) {
      await f.advance(50);
      const poller = f.truth(f.poller.state);
      const panel = f.truth(f.panel.state);
      // lastGoodAt moves with every read; the panel's, from the parts, is the poller's or one read behind (in transit).
      expect(panel.lastGoodAt).not.toBeNull();
      expect(panel.lastGoodAt as number).toBeLessThanOrEqual(poller.lastGoodAt as number);
      expect(poller.lastGoodAt as number).toBeLessThanOrEqual((panel.lastGoodAt as number) + POLL_MS);
      expect({ ...panel, lastGoodAt: null }).toEqual({ ...poller, lastGoodAt: null });
      expect(freshnessOf(f.panel.state, f.time.now())).toBe('live');
    }
    await f.advance(20);
    expect(f.truth(f.panel.state)).toEqual(f.truth(f.poller.state));
    // 3 state reads a poll, each published; no health beside them.
    expect(f.broker.log.filter((p) => p.topic === MAIN.part('channels')).length - channelsBefore).toBeGreaterThanOrEqual((HEALTH_HEARTBEAT_MS - 300) / POLL_MS - 1);
    expect(f.healths()).toHaveLength(1);
    // The heartbeat, HEALTH_HEARTBEAT_MS after the first, at the next read.
    await f.advance(300 + POLL_MS);
    expect(f.healths()).toHaveLength(2);
    expect((f.healths()[1]?.at as number) - since).toBeGreaterThanOrEqual(HEALTH_HEARTBEAT_MS - 300);
  });

  it('goes out at once when the recorder stops answering and when it is back, and the panel says what the poller says', async () => {
    const f = await facility();
    const before = f.healths().length;
    await f.sim.close();
    sim = undefined;
    await untilWithIo(f.time, f.quiet, () => f.poller.state.failures >= 3, 'three failed reads', 5000);
    await f.advance(5);
    const failing = f.healths().slice(before);
    // One health per change of what it says (a failure more, the error), none per read otherwise.
    expect(failing.length).toBeGreaterThanOrEqual(1);
    expect(failing.at(-1)?.body).toMatchObject({ failures: f.poller.state.failures, unreachable: true });
    expect(f.truth(f.panel.state)).toEqual(f.truth(f.poller.state));
    expect(freshnessOf(f.panel.state, f.time.now())).toBe(freshnessOf(f.poller.state, f.time.now()));
    expect(freshnessOf(f.panel.state, f.time.now())).toBe('offline');
    // Back at the same address: the health says so at the first good read, and the panel is live with it.
    sim = await startSimulator({ port: f.port, token: TOKEN, tickMs: 0, clock: f.time });
    await untilWithIo(f.time, f.quiet, () => freshnessOf(f.panel.state, f.time.now()) === 'live', 'the panel live again', 10_000);
    expect(f.healths().at(-1)?.body).toMatchObject({ failures: 0, lastError: null, unreachable: false });
    await f.advance(5);
    // Two reads answered in one millisecond (a failure, then the recovery) gave two healths of one time, the second ignored by the panel.
    const times = f.healths().map((h) => h.at);
    expect(times.every((at, i) => i === 0 || at > (times[i - 1] as number))).toBe(true);
    expect(f.truth(f.panel.state)).toEqual(f.truth(f.poller.state));
  });
});
