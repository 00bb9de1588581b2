// Facility panels in a process of their own (the facility bench runs a few of these): each a bridge that
// follows one recorder over the bus (BusRecorder, signed with its own key from the facility's files),
// drawing the bench's 32-key page on a memory surface. Prints one JSON line once every panel's recorder
// has been live, then a line each time a channel key's image (keys 0-15) shows another state, read from its band
// (key-frames.ts) and stamped as it is handed to the surface.
// `panels-child --broker URL --folder DIR --poll-ms N PANEL=RECORDER ...` (DIR holds facility.yaml and PANEL.pem).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mqtt, { type MqttClient } from 'mqtt';
import { BusRecorder, SharedChecks } from '../bus/bus-recorder.js';
import { busClientOptions, sendWithoutDelay } from '../bus/connection.js';
import { BusAuthority } from '../bus/facility.js';
import { readPrivateKeyFile } from '../cli/bus-keys.js';
import { loadFacility } from '../cli/facility-file.js';
import { Bridge } from '../engine/bridge.js';
import { realTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { freshnessOf } from '../engine/recorder-state.js';
import { keyGrid } from '../engine/surface.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
import { MemorySurface } from '../surfaces/memory/memory-surface.js';
import { benchProfile } from './harness.js';
import { channelKeyState, type ShownState } from './key-frames.js';
import { preciseNow, sleep } from './stats.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { broker: { type: 'string' }, folder: { type: 'string' }, 'poll-ms': { type: 'string', default: '250' } } });
const { broker, folder } = values;
const members = positionals.map((p) => p.split('=') as [string, string]);
if (broker === undefined || folder === undefined || members.some((m) => m.length !== 2)) throw new Error('usage: panels-child --broker URL --folder DIR [--poll-ms N] PANEL=RECORDER ...');
const pollMs = Number(values['poll-ms']);
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: (m) => process.stderr.write(`${m}\n`) };
const say = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
// Where a process's time goes before its panels are live (connecting, starting bridges, waiting), on stderr.
const startedAt = preciseNow();
const progress = (what: string) => process.stderr.write(`(j) panels' process ${process.pid}, ${((preciseNow() - startedAt) / 1000).toFixed(1)} s: ${what}\n`);

const baseRssMb = process.memoryUsage().rss / 2 ** 20;
const facility = await loadFacility(join(folder, 'facility.yaml'));
const connections: MqttClient[] = [];
const bridges: Bridge[] = [];
// Every panel connects before any starts drawing: connected one after another between the bridges'
// first pages, the last ones' answers from the broker waited past mqtt's 30 s limit at a load of 15-30.
connections.push(...(await Promise.all(members.map(async ([panel]) => sendWithoutDelay(await mqtt.connectAsync(broker, { ...busClientOptions(panel), connectTimeout: 120_000 }))))));
progress(`${connections.length} panels connected`);
// One set of signature checks for the process: the panels following one recorder get the same bytes.
const sharedChecks = new SharedChecks();
for (const [i, [panel, recorder]] of members.entries()) {
  const { privateKey } = readPrivateKeyFile(join(folder, `${panel}.pem`), 'the panel key');
  const connection = connections[i] as MqttClient;
  const bridge = new Bridge({ recorders: [{ name: recorder, link: new BusRecorder(recorder, connection, { authority: BusAuthority.signed(panel, privateKey, facility), pollMs, time: realTime, sharedChecks }) }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log: quiet, pollMs, time: realTime });
  const surface = new MemorySurface({ id: `memory:${panel}`, model: 'bench-32', controls: keyGrid(4, 8, 96), time: realTime });
  const shown = new Map<string, ShownState>();
  surface.output.drawn$.subscribe((item) => {
    if (item.type !== 'image' || !/^key(\d|1[0-5])$/.test(item.control)) return;
    const at = preciseNow();
    const state = channelKeyState(item.image);
    if (shown.get(item.control) === state) return;
    shown.set(item.control, state);
    say({ panel, recorder, control: item.control, state, at });
  });
  bridge.start();
  bridge.setProfiles([{ profile: benchProfile(false), file: 'bench.yaml', origin: 'operator' }]);
  bridge.addSurface(surface);
  bridges.push(bridge);
}
progress(`${bridges.length} bridges started`);
// Ready once every panel has been live (all of them live at one instant may not happen on a loaded
// machine: one stale panel among 20 at each look kept a run waiting 300 s at a load of 28; the
// measurement counts what is not shown in time).
const beenLive = new Set<Bridge>();
for (let look = 0; beenLive.size < bridges.length; look++) {
  for (const bridge of bridges) if (bridge.recorderStates().every((state) => freshnessOf(state, realTime.now()) === 'live')) beenLive.add(bridge);
  if (look % 100 === 99) process.stderr.write(`(j) panels' process ${process.pid}: ${beenLive.size} of ${bridges.length} panels have been live\n`);
  await sleep(100);
}
progress(`all ${bridges.length} panels have been live`);
say({ live: true, baseRssMb });

process.on('SIGTERM', () => {
  void (async () => {
    for (const bridge of bridges) await bridge.stop();
    await Promise.allSettled(connections.map((c) => c.endAsync(true)));
    process.exit(0);
  })();
});
