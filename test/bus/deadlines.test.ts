// e2e because Mosquitto is the part: what a press's outcome must say truly is decided by a real broker
// going away and coming back (its sessions, its QoS 1 re-sends) and by a real link to it freezing.
// Issue 25, item 3: a command runs within its deadline or never. Hundreds of presses while the broker
// restarts, or while a panel's or the poller's link is frozen: a press reported as not run never reaches
// the recorder, one reported without an answer never reaches it after that report, and none runs twice.
import { interval, takeWhile } from 'rxjs';
import { describe, expect, it, type TestContext } from 'vitest';
import type { BusCallError } from '../../src/bus/bus-recorder.js';
import { realClock } from '../../src/api/clock.js';
import { messageOf } from '../../src/api/errors.js';
import { RECORDER_REQUEST_LIMIT_MS, REPLY_MARGIN_MS } from '../../src/bus/limits.js';
import { commandSender } from '../../src/bus/topics.js';
import { facilityFor, until, type Panel, type PollerProcess, type Rig } from '../support/facility.js';
import { startBroker, startLinkProxy, type LinkProxy, type RestartableBroker } from '../support/mosquitto.js';

const POLL_MS = 250;
/**
 * A press every 50 ms from two panels in turn (each at half the poller's 20 writes a second): the load,
 * not a wait (nothing below depends on its timing). The three tests run side by side, so this machine
 * sees a press every 17 ms.
 */
const PRESS_EVERY_MS = 50;

/** The command pressed below changes a setting (admin): it names itself in its body. */
const ADMIN = { 'panel-a': ['read', 'control', 'admin'], 'panel-b': ['read', 'control', 'admin'] } as const;

/**
 * How long after it is sent a command may start (the panels' BusRecorder deadlineMs; COMMAND_DEADLINE_MS,
 * 2 s, by default): its length is not what these tests show, and a short one keeps their faults short.
 */
const DEADLINE_MS = 1000;

/** How long a link stays frozen: longer than a command's deadline and the wait for its answer after it (3.5 s). */
const FROZEN_MS = 4500;

/** Presses before a fault strikes, and after it ends, at the pace above (ms). */
const BEFORE_MS = 600;
const AFTER_MS = 1000;

interface Outcome {
  n: number;
  kind: 'ok' | 'not-run' | 'no-answer' | 'failed';
  /**
   * When the panel reported it, on the clock the recorder's request log stamps arrivals with
   * (realClock.precise: performance's, fractional). Date.now() here was a second clock: read at the same
   * instant it was 0.02-2.2 ms behind precise() (200,000 pairs in a fresh node, 2026-11-29), and paired
   * run 119 failed on a press whose arrival was 1.6 ms "after" its report.
   */
  at: number;
  message: string;
}

/** A command that names itself in its body, so the recorder's request log tells which press ran and when. */
const folderOf = (n: number) => `/tmp/recdeck-press-${n}`;

function press(panel: Panel, n: number): Promise<Outcome> {
  return panel.link.call({ method: 'updateSettings', args: [{ LogFolder: folderOf(n) }] }).then(
    () => ({ n, kind: 'ok', at: realClock.precise(), message: '' }),
    (error: BusCallError) => ({ n, kind: error.notRun ? 'not-run' : error.message.startsWith('no answer by its deadline') ? 'no-answer' : 'failed', at: realClock.precise(), message: error.message }),
  );
}

/** Something done to the facility at a moment of the presses (ms after the first). */
interface Fault {
  atMs: number;
  strike: () => void;
}

/**
 * Presses at the pace above for `ms`, the faults struck on the way (each before the first press at or
 * after its moment: by the clock, however late this busy machine runs the presses), then waits for every
 * outcome and for one more command to go through: whatever was sent before it has reached the poller by
 * then. The outcomes include those last presses (the tries until one went through), so that they too are
 * checked against the recorder's log, and at least one is ok.
 */
async function pressFor(panels: Panel[], ms: number, faults: Fault[], said: () => string): Promise<Outcome[]> {
  const panel = panels[0] as Panel;
  const outcomes: Array<Promise<Outcome>> = [];
  const due = [...faults].sort((a, b) => a.atMs - b.atMs);
  const start = Date.now();
  await new Promise<void>((resolve) =>
    interval(PRESS_EVERY_MS)
      // Until `ms` have passed and every fault is struck (a stalled machine may run no press for a while).
      .pipe(takeWhile(() => Date.now() - start < ms || due.length > 0))
      .subscribe({
        next: (n) => {
          while (due[0] !== undefined && Date.now() - start >= due[0].atMs) due.shift()?.strike();
          outcomes.push(press(panels[n % panels.length] as Panel, n));
        },
        complete: resolve,
      }),
  );
  const settled = await Promise.all(outcomes);
  // Failing, it says where each panel stood and what the facility said (clean-clone CI of 20b41d0 failed
  // here once, the broker restarted, with nothing more to read).
  await until(() => panels.every((p) => p.mqtt.connected && p.link.state.unreachable === false), 'the panels following a poller again', 20_000).catch((error: unknown) => {
    const where = panels.map((p, i) => `panel ${i}: ${p.mqtt.connected ? 'connected' : 'not connected'}, ${p.link.state.unreachable ? `poller unreachable (${p.link.state.lastError})` : 'following'}`);
    throw new Error(`${messageOf(error)}; ${where.join('; ')}; ${said()}`);
  });
  // One press at a time until one goes through (each with a folder of its own).
  const after: Outcome[] = [];
  let pending = false;
  await until(() => {
    if (!pending && after.at(-1)?.kind !== 'ok') {
      pending = true;
      void press(panel, settled.length + after.length).then((o) => {
        after.push(o);
        pending = false;
      });
    }
    return after.at(-1)?.kind === 'ok';
  }, 'a command going through after the faults', 20_000);
  return [...settled, ...after];
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

// Each test has its own broker and facility, and they run side by side.
describe.concurrent('deadlines', () => {
  it('the broker restarted mid-stream: over 3.4 s of presses, none reported failed runs later, none runs twice', async (test) => {
    const broker = await startBroker();
    const f = await facilityFor(test, { pollMs: POLL_MS, broker, panels: ['panel-a', 'panel-b'], groups: ADMIN, panel: () => ({ reconnectPeriod: 200, deadlineMs: DEADLINE_MS }) });
    let outage: Promise<void> = Promise.resolve();
    let restart = 'not yet restarted';
    const outcomes = await pressFor(
      f.panels,
      BEFORE_MS + 1800 + AFTER_MS,
      [
        { atMs: BEFORE_MS, strike: () => (outage = broker.stop()) },
        {
          atMs: BEFORE_MS + 1800,
          strike: () =>
            (outage = outage
              .then(() => broker.start())
              .then(
                () => void (restart = 'restarted'),
                (error: unknown) => void (restart = `restart failed: ${messageOf(error)}`),
              )),
        },
      ],
      () => `the broker: ${restart}, its last words: ${broker.stderr().split('\n').slice(-6).join(' | ')}; the poller: ${f.pollers[0]?.mqtt.connected ? 'connected' : 'not connected'}, ${f.pollers[0]?.log.lines.slice(-4).join(' | ')}`,
    );
    await outage;
    expect(restart).toBe('restarted');
    const counts = checkAgainstRecorder(f, outcomes);
    // The fault happened: some presses could not run, and were said so. How many depends on how many
    // presses this machine gets to in the outage (a second suite beside it halves them): a few suffice,
    // each is checked above against the recorder's log.
    expect(counts['not-run'] + counts['no-answer']).toBeGreaterThanOrEqual(3);
    console.log('broker restart', counts, f.pollers[0]?.audit.filter((r) => r.result !== 'ok').map((r) => r.message));
    expect(f.pollers[0]?.audit.filter((r) => /rate|writes a second/.test(r.message ?? ''))).toEqual([]);
  }, 90_000);

  for (const frozen of ['panel', 'poller'] as const) {
    it(`the ${frozen}'s link frozen longer than a command can wait: over 6.1 s of presses, none reported failed runs later`, async (test) => {
      expect(FROZEN_MS).toBeGreaterThan(DEADLINE_MS + RECORDER_REQUEST_LIMIT_MS + REPLY_MARGIN_MS);
      const { f, link, broker } = await behindLink(test, frozen);
      const poller = f.pollers[0] as PollerProcess;
      const end = watchPollerEnd(poller);
      const outcomes = await pressFor(
        f.panels,
        BEFORE_MS + FROZEN_MS + AFTER_MS,
        [
          { atMs: BEFORE_MS, strike: () => link.freeze() },
          {
            atMs: BEFORE_MS + FROZEN_MS,
            strike: () => {
              link.thaw();
              end.thawed();
            },
          },
        ],
        () => `the poller: ${poller.mqtt.connected ? 'connected' : 'not connected'}, closes ${end.closes.join(', ') || 'none'}, ${poller.log.lines.slice(-4).join(' | ')}`,
      );
      const counts = checkAgainstRecorder(f, outcomes);
      // The fault happened with presses in flight (those until the panels saw the lease lapse), and more
      // were said not to run or got no answer. (A few suffice: how many depends on the presses this machine
      // gets to, see above; a paired run's panel link got 2 in flight, 17:15 UTC, the rest said not run.)
      // Presses go through after it (pressFor waits for one); around it, at load 7-8, none may have (the
      // panels still count the poller gone for a while after the thaw).
      expect(counts['no-answer']).toBeGreaterThanOrEqual(1);
      expect(counts['not-run'] + counts['no-answer']).toBeGreaterThanOrEqual(3);
      console.log(`${frozen} link frozen`, counts, poller.audit.filter((r) => r.result !== 'ok').map((r) => r.message));
      // What the freeze held back reached the poller afterwards (on the connection it had all along: one
      // replaced loses what its link held, as a network does, and the panels say so by their deadlines),
      // and was refused there. Told apart, so that a failure says which (paired run 11: none of 42 in
      // the audit, and no sign of which of the two it was).
      const lease = poller.log.lines.filter((line) => /lease|claims/.test(line));
      const brokerSaid = broker.stderr().split('\n').filter((line) => line.includes(poller.poller.id));
      expect(end.closes, `the poller's connection closed: what its link held was lost with it, not refused; its lease: ${lease.join(' | ')}; the broker: ${brokerSaid.join(' | ')}`).toEqual([]);
      expect(end.heldBack(), `commands sent before the thaw that reached the poller after it; its lease: ${lease.join(' | ')}`).toBeGreaterThanOrEqual(3);
      expect(poller.audit.filter((r) => r.result === 'refused' && /after its deadline|no longer holds the lease/.test(r.message ?? '')).length, `refusals audited; its lease: ${lease.join(' | ')}`).toBeGreaterThanOrEqual(3);
    }, 90_000);
  }
});

/**
 * What reaches the poller's end of its connection, read off the wire beside it (the poller checks
 * every command itself): the commands sent before the thaw that arrive after it, and every close of the
 * connection (with the error mqtt.js gave, if any).
 */
function watchPollerEnd(p: PollerProcess): { thawed: () => void; heldBack: () => number; closes: string[] } {
  let thawedAt: number | null = null;
  let heldBack = 0;
  const closes: string[] = [];
  let lastError = '';
  p.mqtt.on('message', (topic: string, payload: Buffer) => {
    if (thawedAt === null || commandSender('main', topic) === null) return;
    const sentAt = (JSON.parse(payload.toString('utf8')) as { body?: { sentAt?: unknown } }).body?.sentAt;
    if (typeof sentAt === 'number' && sentAt < thawedAt) heldBack++;
  });
  p.mqtt.on('error', (error: Error) => (lastError = error.message));
  p.mqtt.on('close', () => closes.push(`at ${new Date().toISOString()}${lastError === '' ? '' : ` after "${lastError}"`}`));
  return { thawed: () => (thawedAt = Date.now()), heldBack: () => heldBack, closes };
}

/**
 * A facility whose panels, or whose poller, reach the broker through a link the test can freeze. Its
 * lease's TTL is 3 s: the panels send for that long into a freeze before they count the poller gone, so
 * many presses are in flight when it ends (and this busy machine stalling causes no failover).
 */
async function behindLink(test: TestContext, behind: 'panel' | 'poller'): Promise<{ f: Rig; link: LinkProxy; broker: RestartableBroker }> {
  const broker = await startBroker();
  const link = await startLinkProxy(broker.port);
  const through = { brokerUrl: link.url };
  const f = await facilityFor(test, {
    pollMs: POLL_MS,
    broker,
    panels: ['panel-a', 'panel-b'],
    groups: ADMIN,
    poller: () => ({ ttlMs: 3000, ...(behind === 'poller' ? through : {}) }),
    panel: () => ({ ...(behind === 'panel' ? through : {}), reconnectPeriod: 200, deadlineMs: DEADLINE_MS }),
  });
  f.defer(() => link.close());
  return { f, link, broker };
}
