// The poller on virtual time against a real HTTP peer: a recorder that is not there, then appears (polls
// back off, doubling up to the cap, and the first good answer brings the normal pace back); a command's
// refresh reads at once; the slow group is read right after the first answer; on demand, only the parts
// wanted are read, a part newly wanted at once, and a part no longer wanted ages as it is.
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { freePort } from '../../src/bench/broker.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { freshnessOf, type StatePart } from '../../src/engine/recorder-state.js';
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
function virtualPoller(url: string, options: { pollMs: number; slowMs?: number; maxBackoffMs?: number; reads?: 'everything' | 'on-demand' }) {
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

describe('RecorderPoller on demand', () => {
  /** The paths the poller asked, each with when (ms from `start`). */
  function asked(v: ReturnType<typeof virtualPoller>, start: number) {
    const paths: Array<{ path: string; at: number }> = [];
    v.client.observe((record) => paths.push({ path: record.path, at: v.time.now() - start }));
    return { paths, of: (path: string) => paths.filter((p) => p.path === path).map((p) => p.at) };
  }
  const parts = (...list: StatePart[]) => new Set(list);

  it('asks nothing while nothing is wanted; a part wanted is read at once and then at its pace, and nothing else is', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 100, slowMs: 1000, reads: 'on-demand' });
    const start = v.time.now();
    const log = asked(v, start);
    v.poller.start();
    await v.advance(2000);
    expect(log.paths).toEqual([]);
    expect(freshnessOf(v.poller.state, v.time.now(), ['channels'])).toBe('offline'); // never read: not shown as live

    v.poller.want('deck', parts('channels'));
    await v.advance(0);
    expect(log.of('/api/channels')).toEqual([2000]); // at once, not at a tick
    expect(freshnessOf(v.poller.state, v.time.now(), ['channels'])).toBe('live');
    await v.advance(1000);
    expect(log.of('/api/channels')).toEqual([2000, 2100, 2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900, 3000]);
    expect(new Set(log.paths.map((p) => p.path))).toEqual(new Set(['/api/channels'])); // no sync, dialog or slow group
    // How the recorder answers is judged over what is read: the channels.
    expect(v.poller.state.lastGoodAt).toBe(start + 3000);
    expect(v.poller.state.failures).toBe(0);
  });

  it('a part no longer wanted is not read again and ages as it is; wanted again, it is read at once and shown stale until then', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 100, slowMs: 60_000, reads: 'on-demand' });
    const start = v.time.now();
    const log = asked(v, start);
    v.poller.start();
    v.poller.want('deck', parts('channels', 'dialog'));
    v.poller.want('alarms', parts('dialog'));
    await v.advance(250);
    expect(log.of('/api/app/dialog')).toEqual([0, 100, 200]);

    v.poller.want('deck', parts('channels'));
    await v.advance(300);
    expect(log.of('/api/app/dialog')).toEqual([0, 100, 200, 300, 400, 500]); // the alarms still want it
    v.poller.want('alarms', null);
    await v.advance(1000);
    expect(log.of('/api/app/dialog')).toEqual([0, 100, 200, 300, 400, 500]); // the read under way ended it
    expect(log.of('/api/channels').at(-1)).toBe(1500);
    // Its last value stays, as old as its read: stale, never live; the channels read are live.
    expect(v.poller.state.dialog).not.toBeNull();
    expect(freshnessOf(v.poller.state, v.time.now(), ['dialog'])).toBe('stale');
    expect(freshnessOf(v.poller.state, v.time.now(), ['channels'])).toBe('live');

    v.poller.want('overlay', parts('dialog'));
    expect(freshnessOf(v.poller.state, v.time.now(), ['dialog'])).toBe('stale'); // asked, not yet answered
    await v.advance(0);
    expect(log.of('/api/app/dialog').at(-1)).toBe(1550);
    expect(freshnessOf(v.poller.state, v.time.now(), ['dialog'])).toBe('live');
    v.poller.want('deck', null);
    v.poller.want('overlay', null);
    const count = log.paths.length;
    await v.advance(1000);
    expect(log.paths.length - count).toBeLessThanOrEqual(2); // the reads under way when the last want ended, and nothing after
  });

  it('slow parts are read as wanted: at once, then at the slow pace, each alone', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 100, slowMs: 1000, reads: 'on-demand' });
    const start = v.time.now();
    const log = asked(v, start);
    v.poller.start();
    await v.advance(300);
    v.poller.want('deck', parts('schedule'));
    await v.advance(0);
    expect(log.of('/api/app/schedule')).toEqual([300]);
    expect(v.poller.state.schedule).not.toBeNull();
    await v.advance(2000);
    expect(log.of('/api/app/schedule')).toEqual([300, 1000, 2000]);
    expect(new Set(log.paths.map((p) => p.path))).toEqual(new Set(['/api/app/schedule']));
  });

  it('a refresh after a command reads again the parts wanted, and no other', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 5000, slowMs: 60_000, reads: 'on-demand' });
    const start = v.time.now();
    const log = asked(v, start);
    v.poller.start();
    v.poller.want('deck', parts('channels'));
    await v.settle();
    await v.client.recStart(0);
    v.poller.refresh(true);
    await v.settle();
    expect(v.poller.state.channels?.[0]?.IsRecording).toBe(true);
    expect(log.of('/api/channels')).toEqual([0, 0]);
    expect(log.paths.filter((p) => p.path !== '/api/channels' && !p.path.includes('rec-start'))).toEqual([]);
  });

  it('reading everything (the default) reads every part, whatever is wanted', async () => {
    sim = await startSimulator({ clock: realClock, port: 0, token: TOKEN, tickMs: 0 });
    const v = virtualPoller(sim.url, { pollMs: 100, slowMs: 60_000 });
    const log = asked(v, v.time.now());
    v.poller.start();
    v.poller.want('deck', parts('channels'));
    v.poller.want('deck', null);
    await v.advance(250);
    for (const path of ['/api/channels', '/api/app/sync', '/api/app/dialog']) expect(log.of(path), path).toEqual([0, 100, 200]);
    // The slow group too, at the start (its first tick and the first good answers both ask, at 0).
    expect(log.of('/api/app/schedule').length).toBeGreaterThan(0);
    expect(log.of('/api/app/schedule').every((at) => at === 0)).toBe(true);
  });
});
