// `recdeck run` as a child process of the bench, with the bridge's own Node flags (and any the bench adds,
// such as --cpu-prof), its web deck on a free loopback port; ready when it says where the page is.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export interface RunChild {
  child: ChildProcess;
  /** The web deck's address. */
  web: string;
}

/**
 * Starts `recdeck run --recorder URL --web-port 0` with the shipped profiles. `started` is called with the
 * process id at once, before the bridge has loaded (to put it in a cgroup before it does any work). `env`
 * adds variables for what the bench preloads (press-trace-preload.ts reads its file's path there). `cpus`:
 * the CPUs it may run on (a taskset list), from its first instruction.
 */
export async function startRunChild(url: string, token: string, options: { args?: string[]; nodeFlags?: string[]; env?: Record<string, string>; cpus?: string; started?: (pid: number) => Promise<void> } = {}): Promise<RunChild> {
  const command = [process.execPath, ...BRIDGE_NODE_FLAGS, ...(options.nodeFlags ?? []), CLI, 'run', '--recorder', url, '--web-port', '0', '--log-format', 'json', ...(options.args ?? [])];
  // `cpus`: started under taskset (cpu-pinning.ts), which execs the bridge in its place: the pid is the bridge's.
  const [file, ...args] = options.cpus === undefined ? command : ['taskset', '-c', options.cpus, ...command];
  const child = spawn(file as string, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, RECDECK_TOKEN: token, ...options.env },
  });
  const web = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text = (text + chunk.toString()).slice(-4000);
      const found = /open (http:\/\/[^\s"]+)/.exec(text);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`recdeck run exited (${code}) before serving: ${text.slice(-500)}`)));
  });
  try {
    if (child.pid === undefined) throw new Error('recdeck run did not start');
    await options.started?.(child.pid);
    return { child, web: await web };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
