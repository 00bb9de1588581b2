// Issue 25, item 3: a command runs within its deadline or never. Hundreds of presses while the broker
// restarts, or while a panel's or the poller's link is frozen: a press reported as not run never reaches
// the recorder, one reported without an answer never reaches it after that report, and none runs twice.
import { interval, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { BusCallError } from '../../src/bus/bus-recorder.js';
import { facilityPerTest, until, type Panel, type Rig } from '../support/facility.js';
import { startBroker, startLinkProxy, type LinkProxy } from '../support/mosquitto.js';

const POLL_MS = 250;
/** A press every 30 ms from two panels in turn (each under the poller's 20 writes a second): the load, not a wait (nothing below depends on its timing). */
const PRESS_EVERY_MS = 30;

/** The command pressed below changes a setting (admin): it names itself in its body. */
const ADMIN = { 'panel-a': ['read', 'control', 'admin'], 'panel-b': ['read', 'control', 'admin'] } as const;

const facility = facilityPerTest();

interface Outcome {
  n: number;
  kind: 'ok' | 'not-run' | 'no-answer' | 'failed';
  /** When the panel reported it (this machine's clock). */
  at: number;
  message: string;
}

/** A command that names itself in its body, so the recorder's request log tells which press ran and when. */
const folderOf = (n: number) => `/tmp/recdeck-press-${n}`;

function press(panel: Panel, n: number): Promise<Outcome> {
  return panel.link.call({ method: 'updateSettings', args: [{ LogFolder: folderOf(n) }] }).then(
    () => ({ n, kind: 'ok', at: Date.now(), message: '' }),
    (error: BusCallError) => ({ n, kind: error.notRun ? 'not-run' : error.message.startsWith('no answer by its deadline') ? 'no-answer' : 'failed', at: Date.now(), message: error.message }),
  );
}

/**
 * Presses `count` times at the pace above, calling `at(n)` before press n (the faults), then waits for
 * every outcome and for one more command to go through: whatever was sent before it has reached the
 * poller by then.
 */
async function pressMany(panels: Panel[], count: number, at: (n: number) => void): Promise<Outcome[]> {
  const panel = panels[0] as Panel;
  const outcomes: Array<Promise<Outcome>> = [];
  await new Promise<void>((resolve) =>
    interval(PRESS_EVERY_MS)
      .pipe(take(count))
      .subscribe({
        next: (n) => {
          at(n);
          outcomes.push(press(panels[n % panels.length] as Panel, n));
        },
        complete: resolve,
      }),
  );
  const settled = await Promise.all(outcomes);
  await until(() => panels.every((p) => p.mqtt.connected && p.link.state.unreachable === false), 'the panels following a poller again', 20_000);
  let sentinel: Outcome | null = null;
  await until(() => {
    if (sentinel === null || sentinel.kind !== 'ok') void press(panel, count).then((o) => (sentinel = o));
    return sentinel?.kind === 'ok';
  }, 'a command going through after the faults', 20_000);
  return settled;
}

/** Checks every outcome against the recorder's request log: each said truly whether and when it could have run. */
function checkAgainstRecorder(f: Rig, outcomes: Outcome[]): Record<Outcome['kind'], number> {
  const runs = (n: number) => f.sim.sim.log.list().filter((r) => r.path === '/api/app/settings' && r.method === 'PUT' && r.body.includes(`"${folderOf(n)}"`));
  const counts = { ok: 0, 'not-run': 0, 'no-answer': 0, failed: 0 };
  for (const outcome of outcomes) {
    counts[outcome.kind]++;
    const ran = runs(outcome.n);
    const where = `press ${outcome.n} (${outcome.kind}: ${outcome.message})`;
    expect(ran.length, `${where} ran ${ran.length} times`).toBeLessThanOrEqual(1);
    if (outcome.kind === 'ok') expect(ran, where).toHaveLength(1);
    if (outcome.kind === 'not-run') expect(ran, `${where} was said not to run`).toHaveLength(0);
    // No answer from the poller, or from the recorder to the poller: it may have run before, never after.
    if (outcome.kind === 'no-answer' || outcome.kind === 'failed') for (const run of ran) expect(run.receivedAt, `${where} reached the recorder after it was reported failed`).toBeLessThanOrEqual(outcome.at);
  }
  return counts;
}

describe('deadlines', () => {
  it('the broker restarted mid-stream: over 260 presses, none reported failed runs later, none runs twice', async () => {
    const broker = await startBroker();
    const f = await facility({ pollMs: POLL_MS, broker, panels: ['panel-a', 'panel-b'], groups: ADMIN, panel: () => ({ reconnectPeriod: 200 }) });
    let outage: Promise<void> = Promise.resolve();
    const outcomes = await pressMany(f.panels, 260, (n) => {
      if (n === 60) outage = broker.stop();
      if (n === 140) outage = outage.then(() => broker.start());
    });
    await outage;
    const counts = checkAgainstRecorder(f, outcomes);
    expect(outcomes).toHaveLength(260);
    // The fault happened: some presses could not run, and were said so.
    expect(counts['not-run'] + counts['no-answer']).toBeGreaterThan(20);
    expect(counts.ok).toBeGreaterThan(50);
    console.log('broker restart', counts, f.pollers[0]?.audit.filter((r) => r.result !== 'ok').map((r) => r.message));
    expect(f.pollers[0]?.audit.filter((r) => /rate|writes a second/.test(r.message ?? ''))).toEqual([]);
  }, 90_000);

  it("a panel's link, then the poller's, frozen longer than a command can wait: over 500 presses, none reported failed runs later", async () => {
    const broker = await startBroker();
    const panelLink: LinkProxy = await startLinkProxy(broker.port);
    const pollerLink: LinkProxy = await startLinkProxy(broker.port);
    const f = await facility({
      pollMs: POLL_MS,
      broker,
      panels: ['panel-a', 'panel-b'],
      groups: ADMIN,
      poller: () => ({ brokerUrl: pollerLink.url }),
      panel: () => ({ brokerUrl: panelLink.url, reconnectPeriod: 200 }),
    });
    f.defer(() => panelLink.close());
    f.defer(() => pollerLink.close());
    // Each frozen for 200 presses (5 s): longer than a command's deadline and the wait for its answer (4.5 s).
    const outcomes = await pressMany(f.panels, 500, (n) => {
      if (n === 20) panelLink.freeze();
      if (n === 220) panelLink.thaw();
      if (n === 260) pollerLink.freeze();
      if (n === 460) pollerLink.thaw();
    });
    const counts = checkAgainstRecorder(f, outcomes);
    expect(outcomes).toHaveLength(500);
    expect(counts['no-answer']).toBeGreaterThan(20);
    expect(counts.ok).toBeGreaterThan(20);
    console.log('freeze', counts, f.pollers[0]?.audit.filter((r) => r.result !== 'ok').map((r) => r.message));
    // What the freezes held back did reach the poller afterwards, and was refused there.
    expect(f.pollers[0]?.audit.filter((r) => r.result === 'refused' && /after its deadline|no longer holds the lease/.test(r.message ?? '')).length).toBeGreaterThan(10);
  }, 90_000);
});
