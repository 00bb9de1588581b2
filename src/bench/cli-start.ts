// `npm run bench:cli`: how long a CLI call takes from exec to exit, the cost every script and CLI test
// pays per call. Each figure is the median of RUNS fresh processes of the built CLI (dist/), with bare
// Node beside it as the floor; `recdeck call` talks to a simulator started here on loopback. Beside the
// wall time, the CPU time the process used (user + system, reported by a preload at its exit): on a
// machine shared with other work the wall time grows with the load, the CPU time much less.
import { execFile } from 'node:child_process';
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

const simulator = await startSimulator({ clock: realClock, port: 0 });
try {
  const env = { ...process.env, RECDECK_RECORDER: simulator.url, RECDECK_TOKEN: simulator.token };
  const bare = await timed(['-e', '']);
  const version = await timed([...BRIDGE_NODE_FLAGS, MAIN, '--version']);
  const overview = await timed([...BRIDGE_NODE_FLAGS, MAIN, '--help']);
  const call = await timed([...BRIDGE_NODE_FLAGS, MAIN, 'call', 'list-channels'], env);
  const load = loadavg()[0] ?? 0;
  if (values.json) process.stdout.write(`${JSON.stringify({ node: process.version, runs, load, bare, version, overview, call })}\n`);
  else {
    const s = (n: number) => n.toFixed(2).padStart(5);
    const row = (name: string, t: Timing, target?: number) =>
      `    ${name.padEnd(40)} ${s(t.wall)} ${s(t.cpu).padStart(6)}${target === undefined ? '' : `   wall <= ${target}: ${t.wall <= target ? 'ok' : 'MISSED'}`}`;
    process.stdout.write(
      [
        `recdeck CLI start (Node ${process.version}, ${cpus().length} cores, load ${load.toFixed(1)}, median of ${runs} runs)`,
        '    seconds from exec to exit                 wall    cpu',
        row("node -e ''", bare),
        row('recdeck --version', version, TARGETS_S.version),
        row('recdeck --help (the overview)', overview, TARGETS_S.overview),
        row('recdeck call list-channels (simulator)', call, TARGETS_S.call),
        '',
      ].join('\n'),
    );
  }
} finally {
  await simulator.close();
}
