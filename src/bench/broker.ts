// A real Mosquitto broker for the benchmarks and tests: a generated config on a free loopback port
// (anonymous, no persistence, unless another is given), started as a child process in a folder of its
// own and stopped with it; it can be stopped and started again on the same port. Ready when it accepts
// a connection.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Broker {
  url: string;
  close: () => Promise<void>;
}

/** The mosquitto binary: on PATH, or where the Debian package puts it (/usr/sbin is not always on PATH). */
export function mosquittoBinary(): string {
  if (existsSync('/usr/sbin/mosquitto')) return '/usr/sbin/mosquitto';
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'mosquitto'))) return join(dir, 'mosquitto');
  throw new Error('mosquitto is not installed (Debian: apt-get install mosquitto)');
}

/** A loopback port nothing listens on now (for a server that cannot be told to take port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** What a broker's configuration is made from: its port and a folder of its own for files it names. */
export type BrokerConfig = (port: number, folder: string) => string | Promise<string>;

/** Anonymous, loopback only, nothing kept across a restart; small messages sent at once (as deploy/mosquitto/ has it). */
const anonymous: BrokerConfig = (port) => `set_tcp_nodelay true\nlistener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`;

export interface RestartableBroker extends Broker {
  port: number;
  /** Ends the broker (SIGTERM) and waits for it to exit; every client loses it. */
  stop: () => Promise<void>;
  /** Starts it again on the same port with the same configuration. */
  start: () => Promise<void>;
  /** What the broker said on stderr so far. */
  stderr: () => string;
  /** The broker's process id while it runs (for the bench's /proc readings). */
  pid: () => number | undefined;
}

export async function startBroker(config: BrokerConfig = anonymous): Promise<RestartableBroker> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-mqtt-'));
  const port = await freePort();
  const file = join(folder, 'mosquitto.conf');
  await writeFile(file, await config(port, folder));
  let child: ChildProcess | null = null;
  let stderr = '';
  const start = async () => {
    const started: ChildProcess = spawn(mosquittoBinary(), ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'], cwd: folder });
    child = started;
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 5000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start on port ${port}: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20)); // waiting for a process to listen, not for engine timing
    }
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    start,
    stop,
    stderr: () => stderr,
    pid: () => (child as ChildProcess | null)?.pid,
    close: async () => {
      await stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
