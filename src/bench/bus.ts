// (h) A facility on one broker: one recorder, one poller publishing it and 20 panel bridges following
// it on the bus, beside one bridge polling it alone. Requests per second at the recorder (the panels
// must add none), and a change in the recorder to the new key image on every panel, through the bus.
// The poller is a `recdeck run` process of its own, as a facility runs it: in the panels' process its
// lease renewals waited behind 20 panels' drawing, and the lease flapped under load.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { filter, firstValueFrom } from 'rxjs';
import { BusRecorder, SharedChecks } from '../bus/bus-recorder.js';
import { busClientOptions, sendWithoutDelay } from '../bus/connection.js';
import { BRIDGE_NODE_FLAGS } from '../cli/node-flags.js';
import { Bridge } from '../engine/bridge.js';
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { freshnessOf } from '../engine/recorder-state.js';
import { keyGrid } from '../engine/surface.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { MemorySurface } from '../surfaces/memory/memory-surface.js';
import { startBroker } from './broker.js';
import { generatedFacility } from './generated-facility.js';
import { benchProfile, startBenchBridge } from './harness.js';
import { percentile, preciseNow, sleep } from './stats.js';
import { realClock } from '../api/clock.js';

export interface BusFacility {
  panels: number;
  pollMs: number;
  seconds: number;
  /** Requests per second at the recorder: one bridge polling it alone, and the poller with every panel on the bus. */
  oneBridgeRps: number;
  facilityRps: number;
  changeP50: number;
  changeP99: number;
  /** The first panel to show each change: the bus's own delay, without 20 panels rendering one after another in this one process. */
  firstPanelP99: number;
  /** The bench process's event-loop delay p99 while the changes were measured (20 panels and the simulator share it). */
  eventLoopP99Ms: number;
  samples: number;
}

// The in-memory facility lives in a module of its own, so that a test of the envelope need not load the
// bench's broker, bridge and simulator to make one; it is still offered here, where the bench's users find it.
export { generatedFacility, generatedFacilityOf, type GeneratedFacility } from './generated-facility.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: (m) => process.stderr.write(`${m}\n`) };

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));

/** `recdeck run` polling the recorder (named `recorder` on the bus) and publishing it as `id`, with the bridge's own Node flags. */
export function startPollerRun(brokerUrl: string, sim: { url: string; token: string }, pollMs: number, files: { facility: string; keyFile: string }, id: string, recorder = 'main'): ChildProcess {
  const args = ['run', '--recorder', `${recorder}=${sim.url}`, '--mqtt', brokerUrl, '--mqtt-facility', files.facility, '--mqtt-key-file', files.keyFile, '--mqtt-id', id, '--poll-ms', String(pollMs), '--no-web', '--log-format', 'json'];
  const child = spawn(process.execPath, [...BRIDGE_NODE_FLAGS, CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, RECDECK_TOKEN: sim.token, [`RECDECK_TOKEN_${recorder.toUpperCase().replace(/-/g, '_')}`]: sim.token } });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2000)));
  child.once('exit', (code, signal) => {
    if (!child.killed) process.stderr.write(`(h) the poller's recdeck run exited (${code ?? signal}) before the bench stopped it: ${said}\n`);
  });
  return child;
}


const lastSeq = (sim: RunningSimulator) => sim.log.list().at(-1)?.seq ?? 0;

async function requestsPerSecond(sim: RunningSimulator, seconds: number): Promise<number> {
  const from = lastSeq(sim);
  const t0 = preciseNow();
  await sleep(seconds * 1000);
  return (lastSeq(sim) - from) / ((preciseNow() - t0) / 1000);
}

export async function measureBusFacility(panelCount: number, seconds: number, samples: number, pollMs = 250): Promise<BusFacility> {
  const broker = await startBroker();
  const sim = await startSimulator({ clock: realClock, port: 0, grid: 16 });
  const connections: MqttClient[] = [];
  const bridges: Bridge[] = [];
  let stopPoller = async (): Promise<void> => undefined;
  try {
    // One bridge alone, polling: the load a single panel puts on the recorder today.
    const alone = startBenchBridge(sim.url, sim.token, { thumbnails: false, pollMs, reads: 'everything' }); // as the facility's poller reads
    await sleep(1000);
    const oneBridgeRps = await requestsPerSecond(sim, seconds);
    await alone.stop();

    const panelIds = Array.from({ length: panelCount }, (_, i) => `panel-${i}`);
    const { authority, writeFiles } = generatedFacility('main', ['poller-main'], panelIds);
    const folder = await mkdtemp(join(tmpdir(), 'recdeck-bench-bus-'));
    const poller = startPollerRun(broker.url, sim, pollMs, await writeFiles(folder, 'poller-main'), 'poller-main');
    stopPoller = async () => {
      if (poller.exitCode === null && poller.signalCode === null) {
        const exited = new Promise((resolve) => poller.once('exit', resolve));
        poller.kill('SIGTERM');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    };
    const surfaces: MemorySurface[] = [];
    // The 20 panels share this process, and so their signature checks (the same bytes reach each).
    const sharedChecks = new SharedChecks();
    for (const [i, panelId] of panelIds.entries()) {
      const connection = sendWithoutDelay(await mqtt.connectAsync(broker.url, busClientOptions(panelId)));
      connections.push(connection);
      const bridge = new Bridge({ time: realTime, recorders: [{ name: 'main', link: new BusRecorder('main', connection, { time: realTime, authority: authority(panelId), pollMs, sharedChecks }) }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs });
      const surface = new MemorySurface({ time: realTime, id: `memory:panel${i}`, model: 'bench-32', controls: keyGrid(4, 8, 96) });
      bridge.start();
      bridge.setProfiles([{ profile: benchProfile(false), file: 'bench.yaml', origin: 'operator' }]);
      bridge.addSurface(surface);
      bridges.push(bridge);
      surfaces.push(surface);
    }
    // Every panel live from the bus (the poller process started and claimed the lease), then a second more.
    const deadline = preciseNow() + 30_000;
    while (!bridges.every((bridge) => bridge.recorderStates().every((state) => freshnessOf(state, realTime.now()) === 'live'))) {
      if (preciseNow() > deadline) throw new Error('(h): the panels were not live from the bus within 30 s of the poller starting');
      await sleep(100);
    }
    await sleep(1000);
    const facilityRps = await requestsPerSecond(sim, seconds);

    const times: number[] = [];
    const firsts: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    for (let i = 0; i < samples; i++) {
      const index = i % 16;
      const control = `key${index}`;
      await sleep(Math.random() * pollMs); // any phase of the poll
      const drawn = surfaces.map((surface) => firstValueFrom(surface.output.drawn$.pipe(filter((item) => item.type === 'image' && item.control === control))).then(() => preciseNow()));
      const t0 = preciseNow();
      sim.recorder().recStart(index);
      const all = (await Promise.all(drawn)).map((at) => at - t0);
      times.push(...all);
      firsts.push(Math.min(...all));
      sim.recorder().recStop(index);
      await sleep(pollMs * 2); // the stop drawn on every panel before the next sample
    }
    loop.disable();
    return { panels: panelCount, pollMs, seconds, oneBridgeRps, facilityRps, changeP50: percentile(times, 50), changeP99: percentile(times, 99), firstPanelP99: percentile(firsts, 99), eventLoopP99Ms: loop.percentile(99) / 1e6, samples: times.length };
  } finally {
    await stopPoller();
    for (const bridge of bridges) await bridge.stop();
    await Promise.allSettled(connections.map((c) => c.endAsync(true)));
    await sim.close();
    await broker.close();
  }
}
