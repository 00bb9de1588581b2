// The benchmark's floors make the reads `recdeck run` makes, and nothing else, whichever client they go
// through: the leanest one there is (node:http, JSON.parse: the floor) or recdeck's own. A floor that
// read less would make the bridge look dearer than it is; one that read more, cheaper. Runs the built
// poller (npm run build) against the simulator, waited on with the bounded condition poll.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { until } from '../support/until.js';
import { realClock } from '../../src/api/clock.js';

const BARE = fileURLToPath(new URL('../../dist/bench/bare-poller.js', import.meta.url));
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The reads the simulator answered, by operation, and whether every one was answered well. */
function readsOf(sim: RunningSimulator): { counts: Record<string, number>; allOk: boolean } {
  const counts: Record<string, number> = {};
  let allOk = true;
  for (const record of sim.log.list()) {
    counts[record.operation ?? record.path] = (counts[record.operation ?? record.path] ?? 0) + 1;
    allOk &&= record.method === 'GET' && record.status === 200;
  }
  return { counts, allOk };
}

describe('the bare pollers of the benchmark', () => {
  it.each([
    ['the floor (node:http)', true],
    ["recdeck's client", false],
  ])('%s reads the state, the slow group, and a page\'s previews and meters', async (_, lean) => {
    const sim = await startSimulator({ clock: realClock, port: 0, grid: 16 });
    const poller = spawn(process.execPath, [BARE, '--url', sim.url, '--token', sim.token, ...(lean ? ['--lean'] : []), '--poll-ms', '50', '--slow-ms', '200', '--previews', '0,1', '--meters', '0'], { stdio: 'ignore' });
    cleanup.push(async () => {
      if (poller.exitCode === null && poller.signalCode === null) {
        poller.kill('SIGTERM');
        await once(poller, 'exit');
      }
      await sim.close();
    });
    const made = (operation: string) => readsOf(sim).counts[operation] ?? 0;
    await until(() => made('getSyncState') >= 3 && made('getResources') >= 1 && made('getChannelPreview') >= 2 && made('getSource') >= 1, 'the poller to read each kind', 15_000);
    const { counts, allOk } = readsOf(sim);
    expect(Object.keys(counts).sort()).toEqual(['getChannelPreview', 'getConversionConfig', 'getDialog', 'getResources', 'getSchedule', 'getSource', 'getSyncState', 'listChannels', 'listSources']);
    expect(allOk).toBe(true);
  });
});
