// The remote server (API, page, WebSocket) over a test bridge on virtual time (see bridge.ts): what the
// page, GET /state, /readyz and /metrics say is read at the engine's moment, beside what the keys show.
// The server's own transport timers (the page's pings, the pacing of its state pushes, login deadlines)
// run on real time here: the page is a real browser or socket that the test waits on with bounded polls,
// while every figure it shows comes from the bridge's virtual clock, which only the test moves.
import { request } from 'undici';
import { WebSocket } from 'ws';
import { realTime } from '../../src/engine/engine-time.js';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import type { StateView } from '../../src/remote/state-view.js';
import { startBridgeFixture, type BridgeFixture, type BridgeFixtureOptions } from './bridge.js';
import { jsonOrUndefined } from './simulator.js';

export interface VirtualRemote {
  f: BridgeFixture;
  server: RunningRemoteServer;
  get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; json: unknown; text: string }>;
  /** The state a page is sent when it connects. */
  pageState: () => Promise<StateView>;
  close: () => Promise<void>;
}

export async function startVirtualRemote(options: BridgeFixtureOptions & { password?: string }): Promise<VirtualRemote> {
  const f = await startBridgeFixture(options);
  const log = { info: () => undefined, warn: (message: string) => f.logs.push({ level: 'warn' as const, message }), error: (message: string) => f.logs.push({ level: 'error' as const, message }) };
  const server = await startRemoteServer({ bridge: f.bridge, log, port: 0, password: options.password ?? null, time: realTime });
  const get: VirtualRemote['get'] = async (path, headers = {}) => {
    const answer = await request(`${server.url}${path}`, { headers });
    const text = await answer.body.text();
    return { status: answer.statusCode, json: jsonOrUndefined(text), text };
  };
  const pageState = async () => {
    const page = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, options.password ? { headers: { authorization: `Bearer ${options.password}` } } : {});
    try {
      return await new Promise<StateView>((resolve, reject) => {
        page.on('error', reject);
        page.on('message', (data: Buffer, binary: boolean) => {
          if (binary) return; // key images
          const message = JSON.parse(data.toString()) as { type: string; state?: StateView };
          if (message.type === 'state' && message.state) resolve(message.state);
        });
      });
    } finally {
      page.close();
    }
  };
  return {
    f,
    server,
    get,
    pageState,
    close: async () => {
      await server.close();
      await f.close();
    },
  };
}
