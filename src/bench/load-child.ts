// (d)'s bridge in a process of its own, started with the bridge's Node flags by main.ts: it loads the
// bridge and nothing else of the benchmark (the Stream Deck, bus, page and chromium parts the other
// sections import would be heap the bridge does not have, marked at every full collection).
// `load-child KIND [--quick] [--curve N]` prints one JSON line: the steady-load figures, or with --curve
// the CPU % of N windows of 30 s from the start (how long the warm-up lasts).
import { parseArgs } from 'node:util';
import { LOAD_KINDS, STEADY_WARM_UP_MS, measureSteadyLoad, measureWarmUpCurve } from './load.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false }, curve: { type: 'string' } } });
const kind = LOAD_KINDS.find((k) => k === positionals[0]);
if (kind === undefined) throw new Error(`usage: load-child ${LOAD_KINDS.map((k) => `"${k}"`).join('|')} [--quick] [--curve N]`);
// A minute measured: /proc counts CPU in 10 ms ticks, so 2 % of a core over 20 s is 40 of them, and five
// runs of 20 s with thumbnails off gave 1.2 to 2.2 %.
const MEASURED_S = 60;
const result =
  values.curve === undefined
    ? await measureSteadyLoad(kind, values.quick ? 3 : MEASURED_S, values.quick ? 3000 : STEADY_WARM_UP_MS)
    : await measureWarmUpCurve(kind, Number(values.curve), 30);
process.stdout.write(`${JSON.stringify(result)}\n`);
