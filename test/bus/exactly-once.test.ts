// e2e because Mosquitto is the part: the copies that could run twice are the broker's (a QoS 1 re-send,
// a retained or replayed message) reaching pollers across a real failover, restart or dropped link.
// Issue 25, item 4: a command runs at most once across pollers. Its copies (a QoS 1 re-send, a replay)
// reach a new holder after a failover, a restarted poller, or the same holder after a network blip:
// none runs a second time, and what the panel was told stays true.
import type { MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import type { BusCallError } from '../../src/bus/bus-recorder.js';
import { topicsOf } from '../../src/bus/topics.js';
import { facilityFor, isHolding as holding, stopPoller, until, type Panel, type PollerProcess, type Rig } from '../support/facility.js';
import { startBroker, startLinkProxy } from '../support/mosquitto.js';
import { WAIT_MS } from '../support/until.js';

const POLL_MS = 250;
/** A lease TTL of 3 s: failovers here are caused by the test, never by this busy machine stalling a process for a few polls. */
const poller = () => ({ ttlMs: 3000 });
const MAIN = topicsOf('main');

/** Every command panels publish, as the broker passed it on, to publish again later, and how many answers went back to panel-a. */
async function recordCommands(f: Rig): Promise<{ raw: MqttClient; sent: Array<{ topic: string; payload: Buffer }>; replies: () => number }> {
  const raw = await f.client();
  const sent: Array<{ topic: string; payload: Buffer }> = [];
  let replies = 0;
  raw.on('message', (topic, payload) => (topic === MAIN.reply('panel-a') ? replies++ : sent.push({ topic, payload })));
  await raw.subscribeAsync([MAIN.cmds, MAIN.reply('panel-a')], { qos: 1 });
  return { raw, sent, replies: () => replies };
}

const runsOf = (f: Rig, index: number) => f.writes().filter((w) => w === `PUT /api/channels/${index}/rec-start`).length;

/** Sends the recorded commands again, as a re-send would, and waits until each is answered. */
async function sendAgain({ raw, sent, replies: answered }: Awaited<ReturnType<typeof recordCommands>>): Promise<void> {
  const copies = sent.splice(0);
  const before = answered();
  for (const { topic, payload } of copies) await raw.publishAsync(topic, payload, { qos: 1 });
  // A real broker and poller answering: the long wait of a real process (paired run 67, load 11-12,
  // 2026-11-29: the 5 s default passed before five answers came).
  await until(() => answered() >= before + copies.length, 'the copies answered', WAIT_MS);
}

// Each test kills, restarts or cuts off a poller: each has its own facility, and they run side by side.
describe.concurrent('exactly once across pollers', () => {
  it('copies of commands sent again after a failover are refused by the new holder: 0 run twice', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a', 'poller-b'], panels: ['panel-a'], poller, panel: () => ({ deadlineMs: 8000 }) });
    const [a, b] = f.pollers as [PollerProcess, PollerProcess];
    const recorded = await recordCommands(f);
    const { sent } = recorded;
    const panel = f.panels[0] as Panel;
    for (const index of [0, 1, 2]) await panel.link.call({ method: 'recStart', args: [index] });
    await until(() => sent.length === 3, 'the three commands recorded');
    // Stopped as a process is on SIGTERM, handing the lease over (a killed holder's lease is waited out:
    // test/bus/lease-failover.test.ts): the new holder's lease has a term of its own all the same.
    await stopPoller(a);
    await until(() => holding(b), 'the standby holding the lease');
    await sendAgain(recorded);
    expect([0, 1, 2].map((index) => runsOf(f, index))).toEqual([1, 1, 1]);
    expect(b.audit.map((r) => `${r.result}: ${r.message}`)).toEqual(Array(3).fill(`refused: "poller-b" refused it: it was sent under another poller's lease term (the poller changed since)`));
  }, 60_000);

  it('copies of commands sent again after the poller restarts are refused: 0 run twice', async (test) => {
    const f = await facilityFor(test, { pollMs: POLL_MS, pollers: ['poller-a'], panels: ['panel-a'], poller, panel: () => ({ deadlineMs: 8000 }) });
    const recorded = await recordCommands(f);
    const { sent } = recorded;
    const panel = f.panels[0] as Panel;
    for (const index of [3, 4, 5]) await panel.link.call({ method: 'recStart', args: [index] });
    await until(() => sent.length === 3, 'the three commands recorded');
    // Stopped as on SIGTERM (the lease handed over, not waited out), then the same poller, id and key,
    // started again: a new instance, under a new term.
    await stopPoller(f.pollers[0] as PollerProcess);
    const again = await f.startPoller('poller-a');
    await until(() => holding(again), 'the restarted poller holding the lease');
    await sendAgain(recorded);
    expect([3, 4, 5].map((index) => runsOf(f, index))).toEqual([1, 1, 1]);
    expect(again.audit.every((r) => r.result === 'refused' && /another poller's lease term/.test(r.message ?? ''))).toBe(true);
  }, 60_000);

  it("a network blip on the holder's link (nobody killed) while commands are in flight: each runs at most once, and the panel's word holds", async (test) => {
    const broker = await startBroker();
    const link = await startLinkProxy(broker.port);
    // A short deadline (not 8 s): the copies below go after every answer or its expiry, either way past the
    // deadline; 1 s instead of the default 2 s, so that those cut off are given up on sooner.
    const f = await facilityFor(test, { pollMs: POLL_MS, broker, pollers: ['poller-a', 'poller-b'], panels: ['panel-a'], poller: (id) => ({ ...poller(), ...(id === 'poller-a' ? { brokerUrl: link.url } : {}) }), panel: () => ({ deadlineMs: 1000 }) });
    f.defer(() => link.close());
    const recorded = await recordCommands(f);
    const { sent } = recorded;
    const panel = f.panels[0] as Panel;
    // Five commands in flight, cut once the first has reached the recorder: the others, and the answers,
    // are on their way. With a 1 s deadline a batch can also expire whole before any of it runs, on a
    // machine so loaded that a command's way through the broker, the link and the poller takes longer
    // (paired run 125: none had reached the recorder after 5 s): there is then no blip in flight to
    // show, so a fresh batch is sent (three at most, and the failure says what the panel was told).
    let batch: { indexes: number[]; told: Promise<string[]> } | null = null;
    let made = 0;
    let lastTold: string[] = [];
    // Channels 7-11, then 12-16, then 2-6: a batch's commands are told apart from an earlier one's.
    for (const first of [6, 11, 1]) {
      made++;
      const indexes = [0, 1, 2, 3, 4].map((index) => index + first);
      let answered = 0;
      const told = Promise.all(
        indexes.map((index) =>
          panel.link
            .call({ method: 'recStart', args: [index] })
            .then(
              () => 'ok',
              (error: BusCallError) => (error.notRun ? 'not run' : `unknown (${error.message})`),
            )
            .finally(() => answered++),
        ),
      );
      const reached = () => indexes.some((index) => runsOf(f, index) > 0);
      await until(() => reached() || answered === indexes.length, 'the first command at the recorder, or every answer', WAIT_MS);
      if (reached()) {
        batch = { indexes, told };
        break;
      }
      lastTold = await told;
    }
    if (batch === null) throw new Error(`none of ${made} batches of five reached the recorder before all were answered; the last were told: ${lastTold.join('; ')}`);
    link.cut();
    const told = await batch.told;
    await until(() => sent.length === 5 * made, `the ${5 * made} commands recorded`);
    // Every copy again, to whichever poller holds now (those of a batch that ran nowhere too: past their deadline).
    await until(() => f.pollers.some(holding), 'a poller holding the lease');
    await sendAgain(recorded);
    const { indexes } = batch;
    const runs = indexes.map((index) => runsOf(f, index));
    expect(runs.every((n) => n <= 1)).toBe(true);
    told.forEach((word, i) => {
      if (word === 'ok') expect(runs[i]).toBe(1);
      if (word === 'not run') expect(runs[i]).toBe(0);
    });
  }, 60_000);
});
