// A real Mosquitto broker for the benchmarks and tests: a generated config on a free loopback port
// (anonymous, no persistence, unless another is given), started as a child process in a folder of its
// own and stopped with it; it can be stopped and started again on the same port. Ready when the
// Mosquitto it started holds a socket listening on that port (Linux's /proc says whose a socket is).
//
// Not when the port merely accepts a connection: the port is free when picked (freePort) but not held
// until Mosquitto binds it, and in between any other server asking for "any port" may be given it (on
// this machine, 2 in 5,000 listen(0) right after a close got the port just closed). Mosquitto then exits
// ("Address already in use") while the port still accepts, and every client of "this broker" talks to
// someone else: paired run 14's recorder-group failed on "Invalid header flag bits, must be 0x0 for
// puback packet", which is mqtt.js reading an HTTP server's "HTTP/1.1 400" ('H' is 0x48: a PUBACK with
// flags 8) in answer to its CONNECT; another suite's Mosquitto would have been worse (a broker shared
// with strangers, silently). A port taken before Mosquitto binds it is left for another one.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
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

/** /proc/net/tcp's LISTEN state (include/net/tcp_states.h: TCP_LISTEN). */
const TCP_LISTEN = '0A';

/**
 * Whether process `pid` holds a socket listening on 127.0.0.1:`port`: the inodes /proc/net/tcp lists
 * listening there (address as the kernel stores it: 127.0.0.1 is 0100007F, the port in hex), among the
 * sockets the process has open (/proc/PID/fd links to "socket:[INODE]").
 */
async function holdsListener(pid: number, port: number): Promise<boolean> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // Fields: sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, inode.
  const rows = (await readFile('/proc/net/tcp', 'utf8')).split('\n').map((line) => line.trim().split(/\s+/));
  const inodes = new Set(rows.filter((row) => row[1] === local && row[3] === TCP_LISTEN).map((row) => `socket:[${row[9]}]`));
  if (inodes.size === 0) return false;
  // The process may have exited meanwhile: then it holds nothing.
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.some((target) => inodes.has(target));
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** What a broker's configuration is made from: its port and a folder of its own for files it names. Its listener is on 127.0.0.1 (the broker's URL; what holdsListener looks for). */
export type BrokerConfig = (port: number, folder: string) => string | Promise<string>;

/** Anonymous, loopback only, nothing kept across a restart; small messages sent at once (as deploy/mosquitto/ has it). */
export const anonymousConfig: BrokerConfig = (port) => `set_tcp_nodelay true\nlistener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`;

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

/** How many ports a broker is tried on before giving up (each taken by another server before Mosquitto bound it). */
const PORT_ATTEMPTS = 5;
/**
 * How long Mosquitto may take to listen, or to exit, on this busy machine: test/support/until.ts's long wait.
 * 5 s was too short beside a second suite (paired runs 83 and 84: deadlines' restart, load 8-10).
 */
const START_MS = 15_000;

export async function startBroker(config: BrokerConfig = anonymousConfig): Promise<RestartableBroker> {
  const folder = await mkdtemp(join(tmpdir(), 'recdeck-mqtt-'));
  const file = join(folder, 'mosquitto.conf');
  let port = 0;
  let child: ChildProcess | null = null;
  let stderr = '';
  /** Starts Mosquitto on `port`: 'listening' once it holds the port, 'taken' when it exited because another holds it. */
  const launch = async (): Promise<'listening' | 'taken'> => {
    const started: ChildProcess = spawn(mosquittoBinary(), ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'], cwd: folder });
    child = started;
    let said = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      stderr += chunk.toString();
    });
    const deadline = Date.now() + START_MS;
    for (;;) {
      // Read the clock before the look: a look takes a while on a loaded machine (/proc reads, one per open
      // file), and one that began before the deadline has the last word. A look begun before Mosquitto
      // bound its port and ended after the deadline once threw "did not listen" over a log of clients it had
      // already accepted (paired runs 83, 84).
      const late = Date.now() > deadline;
      if (started.pid !== undefined && (await holdsListener(started.pid, port))) return 'listening';
      if (started.exitCode !== null) {
        // Its own log says so when it goes to stderr (the deployed config's does); a port that accepts says so either way.
        if (/Address already in use/.test(said) || (await accepts(port))) return 'taken';
        throw new Error(`mosquitto exited (${started.exitCode}) before listening on port ${port}: ${said}`);
      }
      if (late) {
        started.kill('SIGTERM');
        throw new Error(`mosquitto did not listen on port ${port} within ${START_MS} ms: ${said}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20)); // waiting for a process to listen, not for engine timing
    }
  };
  /** Again on the same port (a restart): the clients know only this one, so a port taken meanwhile is an error. */
  const start = async () => {
    if ((await launch()) === 'taken') throw new Error(`mosquitto could not start again on port ${port}: another server took it while the broker was stopped`);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    await writeFile(file, await config(port, folder));
    if ((await launch()) === 'listening') break;
    if (attempt === PORT_ATTEMPTS) throw new Error(`mosquitto could not hold a port: ${PORT_ATTEMPTS} free ports picked were each taken by another server before it bound them (the last ${port})`);
  }
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
