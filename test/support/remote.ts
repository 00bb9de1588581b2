// The whole bridge as `recdeck run` starts it (shipped web profiles, web deck, remote API), against a
// simulator the test controls (it can be stopped and started again on the same port).
import { once } from 'node:events';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { realClock } from '../../src/api/clock.js';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import type { Logger } from '../../src/engine/log.js';
import { startFixture, type SimulatorFixture } from './simulator.js';

export interface RemoteFixture {
  sim: SimulatorFixture;
  running: RunningBridge;
  base: string;
  logs: string[];
  call: (method: string, path: string, headers?: Record<string, string>) => Promise<{ status: number; type: string; text: string; body: Buffer; json: unknown }>;
  /** Opens the page's WebSocket as a browser would (web decks are drawn only while a page is open); closed with the fixture. */
  openPage: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startRemoteFixture(options: { password?: string; pollMs?: number } = {}): Promise<RemoteFixture> {
  const sim = await startFixture({ clock: realClock, grid: 16, tickMs: 1000 });
  const logs: string[] = [];
  const log: Logger = { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) };
  const running = await startBridge(
    {
      recorderFlags: [sim.sim.url],
      tokenFlags: [sim.sim.token],
      profilePaths: [new URL('../../profiles', import.meta.url).pathname],
      pollMs: options.pollMs ?? 100,
      env: {},
      web: { host: '127.0.0.1', port: 0, password: options.password ?? null },
      surfaces: [],
      sources: [],
    },
    log,
  );
  const base = running.remote?.url as string;
  const call: RemoteFixture['call'] = async (method, path, headers = {}) => {
    const answer = await request(`${base}${path}`, { method: method as 'GET', headers });
    const body = Buffer.from(await answer.body.arrayBuffer());
    const text = body.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: answer.statusCode, type: String(answer.headers['content-type'] ?? ''), text, body, json };
  };
  const pages: WebSocket[] = [];
  const openPage = async () => {
    const page = new WebSocket(`${base.replace('http', 'ws')}/ws`, options.password ? { headers: { authorization: `Bearer ${options.password}` } } : {});
    pages.push(page);
    await once(page, 'open');
  };
  return {
    sim,
    running,
    base,
    logs,
    call,
    openPage,
    close: async () => {
      for (const page of pages) page.close();
      await running.stop();
      await sim.close();
    },
  };
}

