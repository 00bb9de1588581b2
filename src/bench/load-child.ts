// (d)'s bridge in a process of its own, started with the bridge's Node flags by main.ts: it loads the
// bridge and nothing else of the benchmark (the Stream Deck, bus, page and chromium parts the other
// sections import would be heap the bridge does not have, marked at every full collection).
// `load-child KIND [--quick] [--curve N] [--cpu-prof DIR]` prints one JSON line: the steady-load
// figures, or with --curve the CPU % of N windows of 30 s from the start (how long the warm-up lasts).
// With --cpu-prof, a CPU profile of the steady state alone (from the end of the warm-up to the end of
// the run) is written to DIR/<kind>.cpuprofile: `node --cpu-prof` would profile the start-up and V8's
// compiling with it, which are not what the bridge costs by the hour.
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LOAD_KINDS, STEADY_WARM_UP_MS, measureSteadyLoad, measureWarmUpCurve } from './load.js';
import { cancellableSleep } from './stats.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false }, curve: { type: 'string' }, 'cpu-prof': { type: 'string' } } });
const kind = LOAD_KINDS.find((k) => k === positionals[0]);
if (kind === undefined) throw new Error(`usage: load-child ${LOAD_KINDS.map((k) => `"${k}"`).join('|')} [--quick] [--curve N] [--cpu-prof DIR]`);
// A minute measured: /proc counts CPU in 10 ms ticks, so 2 % of a core over 20 s is 40 of them, and five
// runs of 20 s with thumbnails off gave 1.2 to 2.2 %.
const MEASURED_S = 60;
const warmUpMs = values.quick ? 3000 : STEADY_WARM_UP_MS;
/**
 * One sample every 250 µs: at 2 % of a core a minute is 1.2 s busy, about 5000 samples. The inspector
 * in the process costs CPU of its own, so a profiled run's figures are not the bench's.
 */
const SAMPLING_US = 250;

/** Starts the V8 profiler once the warm-up is over; `stop` writes what it sampled since. */
async function profileSteadyState(dir: string, name: string): Promise<{ stop: () => Promise<string> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
  const wait = cancellableSleep(warmUpMs);
  const started = wait.done.then(() => session.post('Profiler.start'));
  return {
    stop: async () => {
      await started;
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${name.replaceAll(' ', '-')}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      return file;
    },
  };
}

const profiling = values['cpu-prof'] === undefined ? null : await profileSteadyState(values['cpu-prof'], kind);
const result = values.curve === undefined ? await measureSteadyLoad(kind, values.quick ? 3 : MEASURED_S, warmUpMs) : await measureWarmUpCurve(kind, Number(values.curve), 30);
const profileFile = await profiling?.stop();
process.stdout.write(`${JSON.stringify(profileFile === undefined ? result : { ...result, profile: profileFile })}\n`);
