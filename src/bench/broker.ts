// A real Mosquitto broker for the benchmarks and tests: a generated config on a free loopback port
// (anonymous, no persistence), started as a child process and stopped with it. Ready when it accepts a connection.
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

export async function startBroker(): Promise<Broker> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-mqtt-'));
  const port = await freePort();
  const config = join(folder, 'mosquitto.conf');
  await writeFile(config, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const child: ChildProcess = spawn(mosquittoBinary(), ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 5000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start on port ${port}: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // waiting for a process to listen, not for engine timing
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}
