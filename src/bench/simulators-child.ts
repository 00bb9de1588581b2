// Simulators for the idle benchmark, in a process of their own so that neither their work nor the
// benchmark's lands on the processes being measured, or beside them in one process: one per client
// measured (the bridge, each bare poller), each recording on all 16 channels (or none, with a third
// argument "idle": the facility bench starts and stops them itself). Prints their URLs as a
// JSON line; then each "count" line on stdin is answered with a JSON line of the reads each one has
// answered since the last count, by operation.
import { createInterface } from 'node:readline';
import { RecorderClient } from '../api/client.js';
import { startSimulator } from '../simulator/server.js';
import { realClock } from '../api/clock.js';

const [countText = '2', token, mode = 'recording'] = process.argv.slice(2);
if (token === undefined || (mode !== 'recording' && mode !== 'idle')) throw new Error('usage: simulators-child COUNT TOKEN [recording|idle]');
const sims = [];
for (let i = 0; i < Number(countText); i++) sims.push(await startSimulator({ clock: realClock, port: 0, grid: 16, token }));
for (const sim of mode === 'recording' ? sims : []) {
  const client = new RecorderClient({ clock: realClock, url: sim.url, token });
  for (let channel = 0; channel < 16; channel++) await client.recStart(channel);
  await client.close();
}
const marks = sims.map((sim) => sim.log.list().at(-1)?.seq ?? 0);
process.stdout.write(`${JSON.stringify({ urls: sims.map((s) => s.url) })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'count') continue;
  const counts = sims.map((sim, i) => {
    const byOperation: Record<string, number> = {};
    for (const r of sim.log.list()) if (r.seq > (marks[i] as number) && r.operation !== null) byOperation[r.operation] = (byOperation[r.operation] ?? 0) + 1;
    marks[i] = sim.log.list().at(-1)?.seq ?? marks[i] as number;
    return byOperation;
  });
  process.stdout.write(`${JSON.stringify({ counts })}\n`);
}
for (const sim of sims) await sim.close();
