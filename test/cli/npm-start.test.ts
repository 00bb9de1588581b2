// e2e because the point is processes: npm's own, the bridge it starts, and a supervisor's SIGTERM to npm
// reaching the bridge.
// `npm start` under a supervisor: a SIGTERM to npm's process must reach the bridge, so that nothing is
// left holding the port (the next start would fail with "port in use").
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/until.js';

const root = join(import.meta.dirname, '../..');

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Whether a listener can take the port: nothing holds it. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Every process below `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

const commandLine = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};

/** Node running the CLI's run command (not a shell whose script names it). */
const isBridge = (args: string[]) => /(^|\/)node$/.test(args[0] ?? '') && args.includes('dist/cli/main.js') && args.includes('run');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('execs the bridge: SIGTERM to npm stops it, and the port is free', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--', '--web-port', String(port), '--log-format', 'json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(npm, 'exit');
    const pid = npm.pid as number;
    let bridge: number | undefined;
    try {
      // Building a stale dist/ first may take a while on this shared machine.
      await until(async () => !(await portIsFree(port)), `the bridge listening on ${port}:\n${output}`, 90_000, 100);
      bridge = descendants(pid).find((child) => isBridge(commandLine(child)));
      expect(bridge, `no bridge below npm: ${descendants(pid).map((child) => commandLine(child).join(' ')).join(' | ')}`).toBeDefined();
      // Exec'd: the bridge is npm's own child, not a shell's.
      expect(readFileSync(`/proc/${bridge}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]).toBe(String(pid));
      npm.kill('SIGTERM');
      await exited;
      await until(() => !alive(bridge as number), 'the bridge to exit', 15_000);
      await until(() => portIsFree(port), `port ${port} to be free`, 5_000);
    } finally {
      // On a failure, leave nothing running.
      if (bridge !== undefined && alive(bridge)) process.kill(bridge, 'SIGKILL');
      if (alive(pid)) npm.kill('SIGKILL');
    }
  }, 120_000);
});
