import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { RecorderClient } from '../../src/api/client.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { VirtualTime } from './virtual-time.js';
import { realClock } from '../../src/api/clock.js';

export interface SimulatorFixture {
  sim: RunningSimulator;
  client: RecorderClient;
  /** The simulator's clock: nothing moves until the test moves it. */
  clock: VirtualTime;
  /** A scratch folder for project files and recordings, removed on close. */
  folder: string;
  /** Sends a raw request (for bodies and paths the typed client would never produce). */
  raw: (method: string, path: string, init?: { body?: string; authorization?: string | null }) => Promise<{ status: number; json: unknown; text: string }>;
  close: () => Promise<void>;
}

/** The sequence number of the last request the simulator logged: a mark to look for writes after. */
export const lastSeq = (sim: RunningSimulator): number => sim.log.list().at(-1)?.seq ?? 0;

/** The writes the simulator received on /api after a mark, as "METHOD path body", without the reads. */
export const writesSince = (sim: RunningSimulator, mark: number): string[] =>
  sim.log
    .list()
    .filter((r) => r.seq > mark && r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ''}`);

/** An answer's body as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A simulator on a free loopback port on virtual time (nothing moves until the test moves it) with no background ticks. */
export async function startFixture(options: Partial<SimulatorOptions> = {}): Promise<SimulatorFixture> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-test-'));
  const clock = new VirtualTime();
  const sim = await startSimulator({ port: 0, tickMs: 0, clock, recordingsFolder: join(folder, 'recordings'), ...options });
  const client = new RecorderClient({ clock: realClock, url: sim.url, token: sim.token });
  const raw: SimulatorFixture['raw'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.authorization !== null) headers.authorization = init.authorization ?? `Bearer ${sim.token}`;
    const answer = await request(`${sim.url}${path}`, { method: method as 'GET', headers, body: init.body });
    const text = await answer.body.text();
    return { status: answer.statusCode, json: jsonOrUndefined(text), text };
  };
  return {
    sim,
    client,
    clock,
    folder,
    raw,
    close: async () => {
      await client.close();
      await sim.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
