// What a bridge's cost is compared with: simulators that count the reads they answer (simulators-child.ts,
// in a process of its own), and bare pollers making a bridge's reads and nothing else (bare-poller.ts,
// with the bridge's Node flags). Shared by the idle bench (f) and the steady-load bench (d).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import type { StatePart } from '../engine/recorder-state.js';

const BARE = fileURLToPath(new URL('./bare-poller.js', import.meta.url));
const SIMULATORS = fileURLToPath(new URL('./simulators-child.js', import.meta.url));

/** The simulators' child: their URLs, and the reads each has answered since the last ask, by operation. */
export async function startSimulators(count: number, token: string, mode: 'recording' | 'idle' = 'recording'): Promise<{ child: ChildProcess; urls: string[]; readsSince: () => Promise<Array<Record<string, number>>> }> {
  const child = spawn(process.execPath, [SIMULATORS, String(count), token, mode], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the simulators stopped');
    return JSON.parse(value as string);
  };
  const { urls } = (await next()) as { urls: string[] };
  return {
    child,
    urls,
    readsSince: async () => {
      child.stdin?.write('count\n');
      return ((await next()) as { counts: Array<Record<string, number>> }).counts;
    },
  };
}

export interface BareReads {
  /** Through node:http and JSON.parse (the floor), else through recdeck's own client. */
  lean: boolean;
  /** The parts of the state read (default every part, as a poller reading everything). */
  parts?: readonly StatePart[];
  /** Channels (0-based) whose previews are read, once a second each. */
  previews?: readonly number[];
  /** Channels (0-based) whose source is read for its meter, four times a second each. */
  meters?: readonly number[];
}

/** A bare poller (bare-poller.ts) in a child process with the bridge's Node flags. */
export function startBare(url: string, token: string, reads: BareReads): ChildProcess {
  const list = (flag: string, items: readonly (number | string)[] | undefined) => (items === undefined || items.length === 0 ? [] : [flag, items.join(',')]);
  const args = [BARE, '--url', url, '--token', token, ...(reads.lean ? ['--lean'] : []), ...list('--parts', reads.parts), ...list('--previews', reads.previews), ...list('--meters', reads.meters)];
  return spawn(process.execPath, [...BRIDGE_NODE_FLAGS, ...args], { stdio: 'ignore' });
}
