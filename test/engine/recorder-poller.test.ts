// The poller on virtual time against a real HTTP peer: a recorder that is not there, then appears (polls
// back off, doubling up to the cap, and the first good answer brings the normal pace back); a command's
// refresh reads at once; the slow group is read right after the first answer.
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { freePort } from '../../src/bench/broker.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { freshnessOf } from '../../src/engine/recorder-state.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { RequestCounter, VirtualTime, advanceWithIo, settle } from '../support/virtual-time.js';
import { realClock } from '../../src/api/clock.js';

const TOKEN = 'perm:11111111-2222-4333-8444-555555555555';
let poller: RecorderPoller | undefined;
let client: RecorderClient | undefined;
let sim: RunningSimulator | undefined;
afterEach(async () => {
  poller?.stop();
  await client?.close();
  await sim?.close();
  poller = undefined;
  client = undefined;
  sim = undefined;
});

/** A poller on virtual time, with a way to move it that waits for the requests it makes. */
function virtualPoller(url: string, options: { pollMs: number; slowMs?: number; maxBackoffMs?: number }) {
  const time = new VirtualTime();
  const made = new RecorderClient({ clock: realClock, url, token: TOKEN });
  const requests = new RequestCounter(made);
  const madePoller = new RecorderPoller('main', made, { ...options, time });
  client = made;
  poller = madePoller;
  return { time, client: made, poller: madePoller, advance: (ms: number) => advanceWithIo(time, ms, requests.quiet), settle: () => settle(requests.quiet) };
}

describe('RecorderPoller', () => {
  it('backs off while the recorder cannot be reached and comes back at the first good answer', async () => {
    const port = await freePort();
    const v = virtualPoller(`http://127.0.0.1:${port}`, { pollMs: 50, maxBackoffMs: 400 });
    const attempts: number[] = [];
    v.client.observe((record) => {
      if (record.path === '/api/channels') attempts.push(v.time.now());
    });
    const start = v.time.now();
    v.poller.start();
    await v.advance(1200);
    // Each failure doubles the wait, up to the cap: 100, 200, 400, 400.
    expect(attempts.map((t) => t - start)).toEqual([0, 100, 300, 700, 1100]);
    expect(freshnessOf(v.poller.state, v.time.now())).toBe('offline');
    expect(v.poller.state.lastError).toMatch(/127\.0\.0\.1|ECONNREFUSED|connect/i);

    sim = await startSimulator({ port, token: TOKEN, tickMs: 0, clock: v.time });
    await v.advance(400); // the next attempt, within the cap
    // The attempt at 1500 answers; from it on, every 50 ms again.
    expect(attempts.slice(5).map((t) => t - start)).toEqual([1500, 1550, 1600]);
    expect(v.poller.state.lastGoodAt).toBe(start + 1600);
    expect(v.poller.state.failures).toBe(0);
    expect(freshnessOf(v.poller.state, v.time.now())).toBe('live');
    const count = attempts.length;
    await v.advance(300);
    expect(attempts.length - count).toBe(6); // back to every 50 ms
  });

  it('a refresh after a command reads the state at once, not at the next tick', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 5000 });
    v.poller.start();
    await v.settle();
    expect(v.poller.state.lastGoodAt).not.toBeNull();
    await v.client.recStart(0);
    const asked = v.time.now();
    v.poller.refresh();
    await v.settle();
    expect(v.poller.state.channels?.[0]?.IsRecording).toBe(true);
    expect(v.time.now()).toBe(asked); // no time passed: read at once
  });
});

describe('RecorderPoller slow group', () => {
  it('reads sources, resources, schedule and conversion right after the first good answer, not at the slow tick', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 100, slowMs: 60_000 });
    v.poller.start();
    await v.advance(0);
    expect(v.poller.state.sources?.length).toBeGreaterThan(0);
    expect(v.poller.state.schedule).not.toBeNull();
  });
});
