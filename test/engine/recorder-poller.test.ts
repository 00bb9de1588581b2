// The poller against a recorder that is not there, then appears: polls back off (doubling up to the
// cap) and the first good answer brings the normal pace back; a command's refresh reads at once.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { freshnessOf } from '../../src/engine/recorder-state.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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

const until = async (check: () => boolean, what: string, ms = 4000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('RecorderPoller', () => {
  it('backs off while the recorder cannot be reached and comes back at the first good answer', async () => {
    const port = await freePort();
    client = new RecorderClient({ url: `http://127.0.0.1:${port}`, token: TOKEN });
    const attempts: number[] = [];
    client.observe((record) => {
      if (record.path === '/api/channels') attempts.push(record.startedAt);
    });
    poller = new RecorderPoller('main', client, { pollMs: 50, maxBackoffMs: 400 });
    poller.start();
    await until(() => attempts.length >= 6, 'six attempts');
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] as number));
    // 100, 200, 400, 400, … (each failure doubles the wait, up to the cap)
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(390);
    expect(gaps[3]).toBeGreaterThanOrEqual(390);
    expect(gaps[3]).toBeLessThan(600);
    const current = poller;
    expect(freshnessOf(current.state, Date.now())).toBe('offline');
    expect(current.state.lastError).toMatch(/127\.0\.0\.1|ECONNREFUSED|connect/i);

    sim = await startSimulator({ port, token: TOKEN, tickMs: 0 });
    const backAt = Date.now();
    await until(() => current.state.lastGoodAt !== null, 'the first good answer');
    expect(Date.now() - backAt).toBeLessThan(600);
    expect(current.state.failures).toBe(0);
    expect(freshnessOf(current.state, Date.now())).toBe('live');
    const count = attempts.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts.length - count).toBeGreaterThanOrEqual(4); // back to every 50 ms
  });

  it('a refresh after a command reads the state at once, not at the next tick', async () => {
    sim = await startSimulator({ port: 0, tickMs: 0 });
    client = new RecorderClient({ url: sim.url, token: sim.token });
    poller = new RecorderPoller('main', client, { pollMs: 5000 });
    const current = poller;
    current.start();
    await until(() => current.state.lastGoodAt !== null, 'the first poll');
    await client.recStart(0);
    const asked = Date.now();
    current.refresh();
    await until(() => current.state.channels?.[0]?.IsRecording === true, 'the re-read');
    expect(Date.now() - asked).toBeLessThan(500);
  });
});

describe('RecorderPoller slow group', () => {
  it('reads sources, resources, schedule and conversion right after the first good answer, not at the slow tick', async () => {
    const local = await startSimulator({ port: 0, tickMs: 0 });
    const localClient = new RecorderClient({ url: local.url, token: local.token });
    const localPoller = new RecorderPoller('main', localClient, { pollMs: 100, slowMs: 60_000 });
    try {
      localPoller.start();
      await until(() => localPoller.state.sources !== null && localPoller.state.schedule !== null, 'the slow group', 2000);
      expect(localPoller.state.sources?.length).toBeGreaterThan(0);
    } finally {
      localPoller.stop();
      await localClient.close();
      await local.close();
    }
  });
});
