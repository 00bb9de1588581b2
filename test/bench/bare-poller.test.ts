// The benchmark's floors make the reads `recdeck run` makes (or the parts given), and nothing else, whichever client they go
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

/** A simulator and the built bare poller reading it with `flags`, both stopped after the test. */
async function startBare(flags: string[]): Promise<RunningSimulator> {
  const sim = await startSimulator({ clock: realClock, port: 0, grid: 16 });
  const poller = spawn(process.execPath, [BARE, '--url', sim.url, '--token', sim.token, ...flags], { stdio: 'ignore' });
  cleanup.push(async () => {
    if (poller.exitCode === null && poller.signalCode === null) {
      poller.kill('SIGTERM');
      await once(poller, 'exit');
    }
    await sim.close();
  });
  return sim;
}

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
    const sim = await startBare([...(lean ? ['--lean'] : []), '--poll-ms', '50', '--slow-ms', '200', '--previews', '0,1', '--meters', '0']);
    const made = (operation: string) => readsOf(sim).counts[operation] ?? 0;
    // Every kind waited for, the slow group's three each: they are read one after another, so the resources
    // came before the conversion config once, beside a second suite (paired run 52, 2026-11-29), and a
    // wait on the resources alone saw the group half read.
    const kinds = ['getChannelPreview', 'getConversionConfig', 'getDialog', 'getResources', 'getSchedule', 'getSource', 'getSyncState', 'listChannels', 'listSources'];
    await until(() => made('getSyncState') >= 3 && made('getChannelPreview') >= 2 && kinds.every((kind) => made(kind) >= 1), 'the poller to read each kind', 15_000);
    const { counts, allOk } = readsOf(sim);
    expect(Object.keys(counts).sort()).toEqual(kinds);
    expect(allOk).toBe(true);
  });

  it.each([
    ['the floor (node:http)', true],
    ["recdeck's client", false],
  ])("%s given --parts reads only those parts, as a bridge reading on demand does (the (d) bench's deck: the channel list)", async (_, lean) => {
    const sim = await startBare([...(lean ? ['--lean'] : []), '--poll-ms', '50', '--slow-ms', '100', '--parts', 'channels,resources']);
    const made = (operation: string) => readsOf(sim).counts[operation] ?? 0;
    // Past several polls and slow intervals: any other part would have been read by then.
    await until(() => made('listChannels') >= 10 && made('getResources') >= 3, 'the poller to read its parts', 15_000);
    const { counts, allOk } = readsOf(sim);
    expect(Object.keys(counts).sort()).toEqual(['getResources', 'listChannels']);
    expect(allOk).toBe(true);
  });

  it('refuses a part that does not exist, naming it', async () => {
    const poller = spawn(process.execPath, [BARE, '--url', 'http://127.0.0.1:9', '--token', 't', '--parts', 'channels,chanels'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    poller.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(poller, 'exit')) as [number | null];
    expect(code).not.toBe(0);
    expect(stderr).toContain('--parts: expected some of channels, sync, dialog, sources, resources, schedule, conversion, got chanels');
  });
});
