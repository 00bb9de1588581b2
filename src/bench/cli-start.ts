// `npm run bench:cli`: how long a CLI call takes from exec to exit, the cost every script and CLI test
// pays per call. Each figure is the median of RUNS fresh processes of the built CLI (dist/), with bare
// Node beside it as the floor; `recdeck call` talks to a simulator started here on loopback. Beside the
// wall time, the CPU time the process used (user + system, reported by a preload at its exit): on a
// machine shared with other work the wall time grows with the load, the CPU time much less.
//
// Two commands do not exit: `recdeck simulate` is measured to its listening line and `recdeck run` (given
// the simulator, the shipped profiles, the web deck on a free port, JSON logs: what the tests spawn) to
// its ready line ("web deck and remote API: open"); `recdeck run --no-web` (a bus poller's or a panel
// machine's bridge, most of the suite's spawns) to its line of the surfaces found ("surfaces: none found"
// here). Their CPU is read from /proc/PID/stat at that line (Linux: this machine and a Raspberry Pi), then
// they are stopped with SIGINT, as Ctrl+C stops them.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { startSimulator } from '../simulator/server.js';
import { percentile, preciseNow } from './stats.js';
import { realClock } from '../api/clock.js';

const MAIN = fileURLToPath(new URL('../cli/main.js', import.meta.url));
// The overview (`recdeck --help`, also printed after an unknown command) loads no command's module, so
// it is held to --version's target.
const TARGETS_S = { version: 0.3, overview: 0.3, call: 0.6 };
// Held on CPU, not wall (the wall time of a start is mostly the load of a shared machine). simulate: the
// HTTP server and the operation table's schemas, nothing drawn before the first preview. run: 2.4 s of
// CPU before the cuts of 2026-11-28 (docs/performance.md, "Start-up CPU"); the target is what is left
// once the shipped profiles' parse (0.5-0.7 s of it) is not paid at every start: not met yet. run
// --no-web: 1.8-1.9 s before the drawing libraries were left to the first picture (2026-11-28 21:30, load 23-25).
const CPU_TARGETS_S = { simulate: 0.5, run: 1.5, runNoWeb: 1.2 };
/** Bound on a start to its ready line: past it the start is reported as hung. */
const READY_WITHIN_MS = 120_000;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, json: { type: 'boolean', default: false } } });
const runs = Number(values.runs);

/** Written by the measured process at its exit, on stderr: its CPU seconds. */
const CPU_REPORT = `data:text/javascript,process.on('exit',()=>{const c=process.cpuUsage();process.stderr.write('\\ncpu-seconds '+(c.user+c.system)/1e6+'\\n')})`;

interface Timing {
  wall: number;
  cpu: number;
}

/** Median seconds from spawn to exit of `node ARGS`, and of CPU, over runs made one after another. */
async function timed(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timing> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = preciseNow();
    const { stderr } = await promisify(execFile)(process.execPath, [`--import=${CPU_REPORT}`, ...args], { env });
    walls.push((preciseNow() - start) / 1000);
    const cpu = /cpu-seconds (\S+)/.exec(stderr)?.[1];
    if (cpu === undefined) throw new Error(`node ${args.join(' ')} reported no CPU time: ${stderr}`);
    cpus.push(Number(cpu));
  }
  return { wall: percentile(walls, 50), cpu: percentile(cpus, 50) };
}

/** Clock ticks a second of /proc/PID/stat's times. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU seconds (user + system, every thread) the process has used so far. */
function cpuSecondsOf(pid: number): number {
  // The command name, in parentheses, may hold spaces: the fields are counted after its closing one.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Seconds from spawn to the first line matching `ready` of `node ARGS` (stdout or stderr), and its CPU then; the process is then stopped with SIGINT. */
async function untilReady(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Timing> {
  const start = preciseNow();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  try {
    return await new Promise<Timing>((resolve, reject) => {
      const hung = realClock.scheduler.schedule(() => reject(new Error(`node ${args.join(' ')}: no line matching ${ready} within ${READY_WITHIN_MS} ms: ${output}`)), READY_WITHIN_MS);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (!ready.test(output) || child.pid === undefined) return;
        hung.unsubscribe();
        resolve({ wall: (preciseNow() - start) / 1000, cpu: cpuSecondsOf(child.pid) });
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then(() => {
        hung.unsubscribe();
        reject(new Error(`node ${args.join(' ')} exited before a line matching ${ready}: ${output}`));
      });
    });
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

/** Medians over runs made one after another. */
async function timedUntilReady(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Timing> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { wall, cpu } = await untilReady(args, env, ready);
    walls.push(wall);
    cpus.push(cpu);
  }
  return { wall: percentile(walls, 50), cpu: percentile(cpus, 50) };
}

const simulator = await startSimulator({ clock: realClock, port: 0 });
try {
  const env = { ...process.env, RECDECK_RECORDER: simulator.url, RECDECK_TOKEN: simulator.token };
  const bare = await timed(['-e', '']);
  const version = await timed([...BRIDGE_NODE_FLAGS, MAIN, '--version']);
  const overview = await timed([...BRIDGE_NODE_FLAGS, MAIN, '--help']);
  const call = await timed([...BRIDGE_NODE_FLAGS, MAIN, 'call', 'list-channels'], env);
  const simulate = await timedUntilReady([...BRIDGE_NODE_FLAGS, MAIN, 'simulate', '--port', '0'], process.env, /^Press Ctrl\+C to stop\.$/m);
  const bridge = await timedUntilReady([...BRIDGE_NODE_FLAGS, MAIN, 'run', '--recorder', simulator.url, '--web-port', '0', '--log-format', 'json'], env, /web deck and remote API: open/);
  const noWeb = await timedUntilReady([...BRIDGE_NODE_FLAGS, MAIN, 'run', '--recorder', simulator.url, '--no-web', '--log-format', 'json'], env, /"msg":"surface(s: none found| )/);
  const load = loadavg()[0] ?? 0;
  if (values.json) process.stdout.write(`${JSON.stringify({ node: process.version, runs, load, bare, version, overview, call, simulate, run: bridge, runNoWeb: noWeb })}\n`);
  else {
    const s = (n: number) => n.toFixed(2).padStart(5);
    const row = (name: string, t: Timing, target?: number) =>
      `    ${name.padEnd(40)} ${s(t.wall)} ${s(t.cpu).padStart(6)}${target === undefined ? '' : `   wall <= ${target}: ${t.wall <= target ? 'ok' : 'MISSED'}`}`;
    const cpuRow = (name: string, t: Timing, target: number) => `    ${name.padEnd(40)} ${s(t.wall)} ${s(t.cpu).padStart(6)}   cpu <= ${target}: ${t.cpu <= target ? 'ok' : 'MISSED'}`;
    process.stdout.write(
      [
        `recdeck CLI start (Node ${process.version}, ${cpus().length} cores, load ${load.toFixed(1)}, median of ${runs} runs)`,
        '    seconds from exec to exit                 wall    cpu',
        row("node -e ''", bare),
        row('recdeck --version', version, TARGETS_S.version),
        row('recdeck --help (the overview)', overview, TARGETS_S.overview),
        row('recdeck call list-channels (simulator)', call, TARGETS_S.call),
        '    seconds from exec to ready',
        cpuRow('recdeck simulate, to listening', simulate, CPU_TARGETS_S.simulate),
        cpuRow('recdeck run (simulator, web deck), ready', bridge, CPU_TARGETS_S.run),
        cpuRow('recdeck run --no-web, surfaces found', noWeb, CPU_TARGETS_S.runNoWeb),
        '',
      ].join('\n'),
    );
  }
} finally {
  await simulator.close();
}
