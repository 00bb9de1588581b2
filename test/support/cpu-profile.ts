// A CPU profile of each test file as the vitest worker runs it (issue 31): where the workers' CPU goes,
// by function, with the file that paid it. A measuring tool run by hand, not part of the suite:
//   SUITE_CPU_PROFILE=/tmp/prof npx vitest run
//   node scripts/suite-profile.mjs /tmp/prof
// vitest.config.ts adds this setup file only when SUITE_CPU_PROFILE names a folder. Why not `--cpu-prof`
// in the workers' execArgv: vitest 4.1 stops a forks worker with SIGTERM, which ends node before it
// writes the profile, and one profile per worker would not say which file paid. A setup file runs before
// each file's imports (also in a shared worker, isolate: false), and its afterAll after the file's own
// (hooks stack), so the file's imports, hooks and tests are in its profile; vitest's own work between
// files is not.
//
// V8's profiler samples the JS thread on a wall-clock timer: a sample in a function is time the thread
// was in it, running or waiting for a core. Beside each profile goes what the file cost in CPU (the
// worker's main thread from /proc, and the whole process with libvips's and V8's threads), so that the
// sum can be weighted by CPU on a loaded machine.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { afterAll } from 'vitest';

const dir = process.env.SUITE_CPU_PROFILE;
if (dir === undefined || dir === '') throw new Error('cpu-profile.ts: SUITE_CPU_PROFILE names no folder');
mkdirSync(dir, { recursive: true });

/** The main thread's user + system CPU in ms (/proc counts in ticks of 10 ms, USER_HZ 100 on Linux). */
function mainThreadMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
/** CPU in ms and name of each thread (V8's helpers and libuv's pool are all "node", libvips's its own), by thread id. */
function threadsMs(): Map<string, { name: string; ms: number }> {
  const threads = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, 'N');
      threads.set(tid, { name, ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}
/** What each kind of thread spent between two readings; a thread that ended in between is not counted. */
function threadsSince(before: Map<string, { name: string; ms: number }>): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [tid, { name, ms }] of threadsMs()) byName[name] = (byName[name] ?? 0) + ms - (before.get(tid)?.ms ?? 0);
  return byName;
}
const processMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// SUITE_CPU_PROFILE_COST_ONLY=1: the costs alone, without the profiler (which costs the workers about half
// as much CPU again: 221 s against 150 s over a whole run), for the split between threads.
const session = process.env.SUITE_CPU_PROFILE_COST_ONLY === '1' ? null : new Session();
session?.connect();
await session?.post('Profiler.enable');
const start = { main: mainThreadMs(), process: processMs(), wall: performance.now(), threads: threadsMs() };
await session?.post('Profiler.start');

// SUITE_CPU_PROFILE_SHARP=1: sharp's calls by the src/ or test/ line that made them, with the time each
// took to answer, per file (its .sharp.json). sharp works on libuv's pool and libvips's threads, which the
// profile does not see. Both of sharp's builds are counted: the simulator imports its ES module build, the
// renderer requires its CommonJS one, and each has its own prototype.
interface SharpSite {
  calls: number;
  ms: number;
}
declare global {
  var cpuProfileSharpSites: Map<string, SharpSite> | undefined;
}
const sharpSites = process.env.SUITE_CPU_PROFILE_SHARP === '1' ? await countedSharp() : null;
sharpSites?.clear();

async function countedSharp(): Promise<Map<string, SharpSite>> {
  // Set up once per worker: the setup file runs again for each file in a shared worker.
  if (globalThis.cpuProfileSharpSites) return globalThis.cpuProfileSharpSites;
  const sites = new Map<string, SharpSite>();
  globalThis.cpuProfileSharpSites = sites;
  const { default: esm } = await import('sharp');
  const cjs: unknown = createRequire(import.meta.url)('sharp');
  for (const [build, sharp] of [['esm', esm], ['cjs', cjs]] as const) {
    if (typeof sharp !== 'function') throw new Error(`sharp's ${build} build is not a function`);
    const proto: unknown = sharp.prototype;
    if (typeof proto !== 'object' || proto === null || !('toBuffer' in proto) || typeof proto.toBuffer !== 'function') throw new Error(`sharp's ${build} build has no toBuffer`);
    const toBuffer = proto.toBuffer;
    Reflect.set(proto, 'toBuffer', function (this: unknown, ...args: unknown[]): unknown {
      const line = (new Error().stack ?? '').split('\n').slice(2).find((l) => /\/(src|test)\//.test(l)) ?? '';
      const site = `${build} ${line.replace(/^.*\/((?:src|test)\/[^:]+):(\d+).*$/, '$1:$2')}`;
      const startMs = performance.now();
      const answer: unknown = Reflect.apply(toBuffer, this, args);
      const count = () => {
        const row = sites.get(site) ?? { calls: 0, ms: 0 };
        row.calls++;
        row.ms += performance.now() - startMs;
        sites.set(site, row);
      };
      if (answer instanceof Promise) answer.then(count, count);
      return answer;
    });
  }
  return sites;
}

afterAll(async ({}, suite) => {
  const cost = { mainMs: mainThreadMs() - start.main, processMs: processMs() - start.process, wallMs: performance.now() - start.wall, threadsMs: threadsSince(start.threads) };
  const file = basename(relative(process.cwd(), suite.file.filepath).replaceAll('/', '__'), '.ts');
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(join(dir, `${file}.${process.pid}.cpuprofile`), JSON.stringify(profile));
  }
  writeFileSync(join(dir, `${file}.${process.pid}.cost.json`), JSON.stringify(cost));
  if (sharpSites) writeFileSync(join(dir, `${file}.${process.pid}.sharp.json`), JSON.stringify(Object.fromEntries(sharpSites)));
});
