// (h) A facility on one broker: one recorder, one poller publishing it and 20 panel bridges following
// it on the bus, beside one bridge polling it alone. Requests per second at the recorder (the panels
// must add none), and a change in the recorder to the new key image on every panel, through the bus.
import { generateKeyPairSync } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import mqtt, { type MqttClient } from 'mqtt';
import { filter, firstValueFrom } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { BusPoller, newInstance, pollerWill, recorderIdentity } from '../bus/bus-poller.js';
import { BusRecorder } from '../bus/bus-recorder.js';
import { busClientOptions, sendWithoutDelay } from '../bus/connection.js';
import { BusAuthority, type Facility, type FacilityPanel, type FacilityPoller } from '../bus/facility.js';
import { operationsIn, type OperationGroup } from '../bus/operation-groups.js';
import { Bridge } from '../engine/bridge.js';
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { pollingLink } from '../engine/recorder-link.js';
import { RecorderPoller } from '../engine/recorder-poller.js';
import { keyGrid } from '../engine/surface.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { startSimulator, type RunningSimulator } from '../simulator/server.js';
import { MemorySurface } from '../surfaces/memory/memory-surface.js';
import { startBroker } from './broker.js';
import { benchProfile, startBenchBridge } from './harness.js';
import { percentile, preciseNow, sleep } from './stats.js';

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

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: (m) => process.stderr.write(`${m}\n`) };

/**
 * A facility made in memory, with a fresh key pair per member: pollers that may poll `recorder`, and
 * panels that may read and control it (or call the groups given for them). Each member's authority signs
 * with its own key.
 */
export function generatedFacility(recorder: string, pollerIds: readonly string[], panelIds: readonly string[], groups: Readonly<Record<string, readonly OperationGroup[]>> = {}): { facility: Facility; authority: (id: string) => BusAuthority } {
  const keys = new Map([...pollerIds, ...panelIds].map((id) => [id, generateKeyPairSync('ed25519')]));
  const pairOf = (id: string) => {
    const pair = keys.get(id);
    if (!pair) throw new Error(`no member "${id}"`);
    return pair;
  };
  const publicKey = (id: string) => pairOf(id).publicKey;
  const may = (id: string) => new Map([[recorder, new Set((groups[id] ?? ['read', 'control']).flatMap(operationsIn))]]);
  const facility: Facility = {
    pollers: new Map<string, FacilityPoller>(pollerIds.map((id) => [id, { publicKey: publicKey(id), recorders: new Set([recorder]) }])),
    panels: new Map<string, FacilityPanel>(panelIds.map((id) => [id, { publicKey: publicKey(id), may: may(id) }])),
  };
  return {
    facility,
    authority: (id) => BusAuthority.signed(id, pairOf(id).privateKey, facility),
  };
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
  const sim = await startSimulator({ port: 0, grid: 16 });
  const connections: MqttClient[] = [];
  const bridges: Bridge[] = [];
  try {
    // One bridge alone, polling: the load a single panel puts on the recorder today.
    const alone = startBenchBridge(sim.url, sim.token, { thumbnails: false, pollMs });
    await sleep(1000);
    const oneBridgeRps = await requestsPerSecond(sim, seconds);
    await alone.stop();

    const client = new RecorderClient({ url: sim.url, token: sim.token });
    const panelIds = Array.from({ length: panelCount }, (_, i) => `panel-${i}`);
    const { authority } = generatedFacility('main', ['poller-main'], panelIds);
    const instance = newInstance();
    const pollerAuthority = authority('poller-main');
    const pollerConnection = sendWithoutDelay(await mqtt.connectAsync(broker.url, { ...busClientOptions('poller-main'), ...pollerWill(pollerAuthority, 'main', instance, realTime.now()) }));
    connections.push(pollerConnection);
    const poller = new BusPoller('main', pollingLink(new RecorderPoller('main', client, { pollMs })), pollerConnection, { authority: pollerAuthority, identity: recorderIdentity(sim.url, sim.token), instance, pollMs });
    poller.start();
    const surfaces: MemorySurface[] = [];
    for (const [i, panelId] of panelIds.entries()) {
      const connection = sendWithoutDelay(await mqtt.connectAsync(broker.url, busClientOptions(panelId)));
      connections.push(connection);
      const bridge = new Bridge({ recorders: [{ name: 'main', link: new BusRecorder('main', connection, { authority: authority(panelId), pollMs }) }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs });
      const surface = new MemorySurface({ id: `memory:panel${i}`, model: 'bench-32', controls: keyGrid(4, 8, 96) });
      bridge.start();
      bridge.setProfiles([{ profile: benchProfile(false), file: 'bench.yaml', origin: 'operator' }]);
      bridge.addSurface(surface);
      bridges.push(bridge);
      surfaces.push(surface);
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
    poller.stop();
    await client.close();
    return { panels: panelCount, pollMs, seconds, oneBridgeRps, facilityRps, changeP50: percentile(times, 50), changeP99: percentile(times, 99), firstPanelP99: percentile(firsts, 99), eventLoopP99Ms: loop.percentile(99) / 1e6, samples: times.length };
  } finally {
    for (const bridge of bridges) await bridge.stop();
    await Promise.allSettled(connections.map((c) => c.endAsync(true)));
    await sim.close();
    await broker.close();
  }
}
