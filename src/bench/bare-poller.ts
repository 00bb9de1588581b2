// The reads `recdeck run` makes, and nothing else: channels, sync and dialog every poll interval on
// their own connections, the slow group every slow interval (or only the parts given by --parts); with a page open, also the previews and
// meters its deck shows (each preview once a second, each meter's source four times a second, two under
// way at most per kind, as the bridge fetches them). Run as a child by the idle benchmark, as the floor
// the bridge's cost is compared with: with --lean through the leanest client there is (node:http and
// JSON.parse, lean-http.ts), else through recdeck's own client (its pools, schema checks and masking).
import { parseArgs } from 'node:util';
import { RecorderClient } from '../api/client.js';
import { expandPath, operations } from '../api/operations.js';
import { LeanHttp } from './lean-http.js';
import { realClock } from '../api/clock.js';
import { FAST_PARTS, SLOW_PARTS } from '../engine/recorder-state.js';

type FastPart = (typeof FAST_PARTS)[number];
type SlowPart = (typeof SLOW_PARTS)[number];

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    lean: { type: 'boolean', default: false },
    'poll-ms': { type: 'string', default: '250' },
    'slow-ms': { type: 'string', default: '5000' },
    /** Channels (0-based) whose previews are read, comma-separated. */
    previews: { type: 'string', default: '' },
    /** Channels (0-based) whose source is read for its meter, comma-separated. */
    meters: { type: 'string', default: '' },
    /**
     * The parts of the state read, comma-separated (recorder-state.ts's names): the fast ones every poll,
     * each on a connection of its own, the slow ones every slow interval. Default every part; a bridge
     * reading on demand reads fewer (the (d) bench's deck: channels alone), and its floor the same.
     */
    parts: { type: 'string', default: [...FAST_PARTS, ...SLOW_PARTS].join(',') },
  },
});
const { url, token } = values;
if (url === undefined || token === undefined) throw new Error('usage: bare-poller --url URL --token TOKEN [--lean] [--poll-ms N] [--slow-ms N] [--parts channels,sync,…] [--previews 0,1,…] [--meters 0,1,…]');
const pollMs = Number(values['poll-ms']);
const list = (text: string) => (text === '' ? [] : text.split(',').map(Number));
const parts = values.parts.split(',').filter((part) => part !== '');
const unknown = parts.filter((part) => !(FAST_PARTS as readonly string[]).includes(part) && !(SLOW_PARTS as readonly string[]).includes(part));
if (unknown.length > 0) throw new Error(`--parts: expected some of ${[...FAST_PARTS, ...SLOW_PARTS].join(', ')}, got ${unknown.join(', ')}`);
const fastParts = FAST_PARTS.filter((part) => parts.includes(part));
const slowParts = SLOW_PARTS.filter((part) => parts.includes(part));

/** The reads a poller makes, each resolving when its answer has been read whole. */
interface FloorReads {
  /** A fast part (channels, sync, dialog), on a connection of its own. */
  state(part: FastPart): Promise<unknown>;
  /** A slow part (sources, resources, schedule, conversion). */
  slow(part: SlowPart): Promise<unknown>;
  preview(index: number): Promise<unknown>;
  source(index: number): Promise<unknown>;
  channels(): Promise<ReadonlyArray<{ SourceName: string | null }>>;
  sources(): Promise<ReadonlyArray<{ Name: string }>>;
}

function clientReads(): FloorReads {
  const client = new RecorderClient({ clock: realClock, url: url as string, token: token as string });
  const state = { lane: 'state' as const };
  const fast: Record<FastPart, () => Promise<unknown>> = { channels: () => client.listChannels(state), sync: () => client.getSyncState(state), dialog: () => client.getDialog(state) };
  const slow: Record<SlowPart, () => Promise<unknown>> = { sources: () => client.listSources(), resources: () => client.getResources(), schedule: () => client.getSchedule(), conversion: () => client.getConversionConfig() };
  return {
    state: (part) => fast[part](),
    slow: (part) => slow[part](),
    preview: (index) => client.getChannelPreview(index),
    source: (index) => client.getSource(index),
    channels: () => client.listChannels(),
    sources: () => client.listSources(),
  };
}

/** The same reads by the operations' own paths, through node:http: as many connections as the client keeps. */
function leanReads(): FloorReads {
  const stateReads = new LeanHttp(url as string, token as string, 3);
  const reads = new LeanHttp(url as string, token as string, 4);
  const get = (http: LeanHttp, path: string) => http.send('GET', path);
  const { listChannels, getSyncState, getDialog, listSources, getResources, getSchedule, getConversionConfig, getChannelPreview, getSource } = operations;
  const fast: Record<FastPart, { path: string }> = { channels: listChannels, sync: getSyncState, dialog: getDialog };
  const slow: Record<SlowPart, { path: string }> = { sources: listSources, resources: getResources, schedule: getSchedule, conversion: getConversionConfig };
  return {
    state: (part) => get(stateReads, fast[part].path),
    slow: (part) => get(reads, slow[part].path),
    preview: (index) => get(reads, expandPath(getChannelPreview.path, { index })),
    source: (index) => get(reads, expandPath(getSource.path, { index })),
    channels: () => get(reads, listChannels.path) as Promise<Array<{ SourceName: string | null }>>,
    sources: () => get(reads, listSources.path) as Promise<Array<{ Name: string }>>,
  };
}

const reads = values.lean ? leanReads() : clientReads();

async function poll(): Promise<void> {
  const started = Date.now();
  await Promise.allSettled(fastParts.map((part) => reads.state(part)));
  setTimeout(() => void poll(), Math.max(0, started + pollMs - Date.now()));
}

/** Reads every item once each `everyMs`, two at a time. */
function repeat<T>(items: readonly T[], everyMs: number, read: (item: T) => Promise<unknown>): void {
  if (items.length === 0) return;
  const round = async () => {
    const started = Date.now();
    const queue = [...items];
    const worker = async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await read(item).catch(() => undefined);
    };
    await Promise.all([worker(), worker()]);
    setTimeout(() => void round(), Math.max(0, started + everyMs - Date.now()));
  };
  void round();
}

if (fastParts.length > 0) void poll();
if (slowParts.length > 0) setInterval(() => void Promise.allSettled(slowParts.map((part) => reads.slow(part))), Number(values['slow-ms']));
repeat(list(values.previews), 1000, (index) => reads.preview(index));
// A meter is its channel's source, read whole (the interface has no lighter read of the levels), found
// once by name (with no meters, nothing is read for them: the floor of a bridge with none makes no such read).
const meters = list(values.meters);
if (meters.length > 0) {
  const channels = await reads.channels();
  const sources = await reads.sources();
  const meterSources = meters.map((channel) => sources.findIndex((s) => s.Name === channels[channel]?.SourceName));
  repeat(
    meterSources.filter((index) => index >= 0),
    250,
    (index) => reads.source(index),
  );
}
process.on('SIGTERM', () => process.exit(0));
