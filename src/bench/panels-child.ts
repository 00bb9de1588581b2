// Facility panels in a process of their own (the facility bench runs a few of these): each a bridge that
// follows one recorder over the bus (BusRecorder, signed with its own key from the facility's files),
// drawing the bench's 32-key page on a memory surface. Prints one JSON line once every panel's recorder
// has been live, then a line each time a channel key's image (keys 0-15) shows another state, read from its band
// (key-frames.ts) and stamped as it is handed to the surface, with the hops of the change that made it
// (hops below: the poller's read and publication, this process's receipt, the link's belief, the render).
// Every few seconds a line of this process's event-loop delay and garbage-collection pauses.
// `panels-child --broker URL --folder DIR --poll-ms N PANEL=RECORDER ...` (DIR holds facility.yaml and PANEL.pem).
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
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
import type { ChannelPicture } from '../engine/picture.js';
import { freshnessOf } from '../engine/recorder-state.js';
import { topicsOf } from '../bus/topics.js';
import { keyGrid } from '../engine/surface.js';
import { pictureRenderer, type KeyRendererOptions } from '../render/picture-renderer.js';
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
/** Each channels payload's signed send time, read once for the process (the panels on a recorder get the same bytes). */
const sentOf = new Map<string, { payload: Buffer; at: number }>();
const sentAt = (topic: string, payload: Buffer): number => {
  const known = sentOf.get(topic);
  if (known !== undefined && known.payload.equals(payload)) return known.at;
  const at = (JSON.parse(payload.toString()) as { at: number }).at;
  sentOf.set(topic, { payload: Buffer.from(payload), at });
  return at;
};
for (const [i, [panel, recorder]] of members.entries()) {
  const { privateKey } = readPrivateKeyFile(join(folder, `${panel}.pem`), 'the panel key');
  const connection = connections[i] as MqttClient;
  // The hops of the last change of each channel (0-based) this panel saw: when the poller read it (its
  // readAt) and published it (the envelope's time), when this panel's connection handed it over, when the
  // link believed it (checked and parsed), when the key's picture went to the renderer and came back.
  const hops = new Map<number, Hops>();
  const channelsTopic = topicsOf(recorder).part('channels');
  let arrival: { arrived: number; sent: number } | null = null;
  connection.prependListener('message', (topic: string, payload: Buffer) => {
    if (topic === channelsTopic) arrival = { arrived: preciseNow(), sent: sentAt(topic, payload) };
  });
  const link = new BusRecorder(recorder, connection, { authority: BusAuthority.signed(panel, privateKey, facility), pollMs, time: realTime, sharedChecks });
  // Subscribed before the bridge: told of a new state before the bridge derives anything from it.
  let recording: boolean[] = [];
  link.state$.subscribe((state) => {
    const next = (state.channels ?? []).map((c) => c.IsRecording);
    next.forEach((r, c) => {
      const read = state.readAt.channels;
      if (recording[c] !== undefined && recording[c] !== r && arrival !== null && read !== null) hops.set(c, { read, readNumber: state.readNumber.channels, ...arrival, believed: preciseNow() });
    });
    recording = next;
  });
  const renderer = (thumbnails: KeyRendererOptions['thumbnails']) => {
    const inner = pictureRenderer({ thumbnails });
    const render = inner.render.bind(inner);
    inner.render = (picture, size) => {
      const made = render(picture, size);
      const hop = picture.kind === 'channel' ? hops.get((picture as ChannelPicture).channel - 1) : undefined;
      if (hop !== undefined && hop.renderCalled === undefined) {
        hop.renderCalled = preciseNow();
        const before = inner.stats.renders;
        void made.then(
          () => {
            hop.rendered ??= preciseNow();
            hop.sharpCalls ??= inner.stats.renders - before;
          },
          () => undefined,
        );
      }
      return made;
    };
    return inner;
  };
  const bridge = new Bridge({ recorders: [{ name: recorder, link }], renderer: (thumbnails) => renderer(thumbnails), decodeThumbnail, log: quiet, pollMs, time: realTime });
  const surface = new MemorySurface({ id: `memory:${panel}`, model: 'bench-32', controls: keyGrid(4, 8, 96), time: realTime });
  const shown = new Map<string, ShownState>();
  surface.output.drawn$.subscribe((item) => {
    if (item.type !== 'image' || !/^key(\d|1[0-5])$/.test(item.control)) return;
    const at = preciseNow();
    const state = channelKeyState(item.image);
    if (shown.get(item.control) === state) return;
    shown.set(item.control, state);
    say({ panel, recorder, control: item.control, state, at, pid: process.pid, hops: hops.get(Number(item.control.slice(3))) });
  });
  bridge.start();
  bridge.setProfiles([{ profile: benchProfile(false), file: 'bench.yaml', origin: 'operator' }]);
  bridge.addSurface(surface);
  bridges.push(bridge);
}
progress(`${bridges.length} bridges started`);
// This process's event-loop delay and garbage-collection pauses, a line every 5 s.
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
let gcMs = 0;
let gcMaxMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcMaxMs = Math.max(gcMaxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });
let looking = true;
void (async () => {
  for (let windowStart = preciseNow(); looking; ) {
    await sleep(5000);
    const now = preciseNow();
    say({ loop: { pid: process.pid, from: windowStart, to: now, delayP99Ms: loop.percentile(99) / 1e6, delayMaxMs: loop.max / 1e6, gcMs, gcMaxMs } });
    loop.reset();
    gcMs = 0;
    gcMaxMs = 0;
    windowStart = now;
  }
})();
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
  looking = false;
  void (async () => {
    for (const bridge of bridges) await bridge.stop();
    await Promise.allSettled(connections.map((c) => c.endAsync(true)));
    process.exit(0);
  })();
});

/** Timestamps (ms, this machine's clock) of one channel's change on its way to one panel's key. */
export interface Hops {
  /** The poller's read that saw it answered (the part's readAt), and that read's number. */
  read: number;
  readNumber: number;
  /** The poller signed and published it (the envelope's time). */
  sent: number;
  /** This panel's connection handed it over (mqtt.js's message event). */
  arrived: number;
  /** The link believed it (signature checked, body parsed): the new state out of the link. */
  believed: number;
  /** The key's new picture handed to the renderer, and its image back. */
  renderCalled?: number;
  rendered?: number;
  /** sharp calls this panel's renderer made meanwhile (a tile base or glyph atlas not yet cached), 0 for a cached or painted image. */
  sharpCalls?: number;
}
