// The whole bridge as `recdeck run` starts it (shipped web profiles, web deck, remote API), against a
// simulator the test controls (it can be stopped and started again on the same port).
import { once } from 'node:events';
import { request } from 'undici';
import { WebSocket } from 'ws';
import { realClock } from '../../src/api/clock.js';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import type { Logger } from '../../src/engine/log.js';
import type { Surface } from '../../src/engine/surface.js';
import { startFixture, type SimulatorFixture } from './simulator.js';

/** The real-time bounds, where tests of the remote API have always taken them from. */
export { TEST_MS, WAIT_MS } from './until.js';

export interface RemoteFixture {
  sim: SimulatorFixture;
  running: RunningBridge;
  base: string;
  logs: string[];
  call: (method: string, path: string, headers?: Record<string, string>, payload?: string) => Promise<{ status: number; type: string; text: string; body: Buffer; json: unknown }>;
  /** Opens the page's WebSocket as a browser would (web decks are drawn only while a page is open); closed with the fixture. */
  openPage: () => Promise<void>;
  close: () => Promise<void>;
}

export interface RemoteFixtureOptions {
  password?: string;
  pollMs?: number;
  /** The operator's profile folder (bound beside the shipped ones; "make my own" writes there). */
  ownProfiles?: string;
  /** --allow-edit. */
  allowEdit?: boolean;
  trustProxies?: string[];
  /** --audit-file. */
  auditFile?: string;
  /** Hardware surfaces attached from the start (a fake-HID Stream Deck). */
  surfaces?: Surface[];
  /**
   * The simulator's previews are still pictures (default: moving, as a camera's). A test that is not
   * about previews sets it: a moving preview is fetched, decoded, drawn on its key and sent to the page
   * every second for each of the 16 preview keys of the 32-key deck while a page views it.
   */
  stillPreviews?: boolean;
}

export async function startRemoteFixture(options: RemoteFixtureOptions = {}): Promise<RemoteFixture> {
  const sim = await startFixture({ clock: realClock, grid: 16, tickMs: 1000, stillPreviews: options.stillPreviews ?? false });
  const logs: string[] = [];
  const log: Logger = { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) };
  const running = await startBridge(
    {
      recorderFlags: [sim.sim.url],
      tokenFlags: [sim.sim.token],
      profilePaths: [new URL('../../profiles', import.meta.url).pathname, ...(options.ownProfiles === undefined ? [] : [options.ownProfiles])],
      pollMs: options.pollMs ?? 100,
      env: {},
      web: { host: '127.0.0.1', port: 0, password: options.password ?? null, trustProxies: options.trustProxies ?? [] },
      editing: { allowed: options.allowEdit ?? false, ownFolder: options.ownProfiles ?? null },
      audit: options.auditFile === undefined ? null : { file: options.auditFile, maxBytes: 10 * 1024 * 1024 },
      surfaces: options.surfaces ?? [],
      sources: [],
    },
    log,
  );
  const base = running.remote?.url as string;
  const call: RemoteFixture['call'] = async (method, path, headers = {}, payload) => {
    const answer = await request(`${base}${path}`, { method: method as 'GET', headers, ...(payload === undefined ? {} : { body: payload }) });
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
