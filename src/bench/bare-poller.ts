// The reads `recdeck run` makes, and nothing else: channels, sync and dialog every poll interval on
// their own connections, the slow group every slow interval; with a page open, also the previews and
// meters its deck shows (each preview once a second, each meter's source four times a second, two under
// way at most per kind, as the bridge fetches them). Run as a child by the idle benchmark, as the floor
// the bridge's cost is compared with: with --lean through the leanest client there is (node:http and
// JSON.parse, lean-http.ts), else through recdeck's own client (its pools, schema checks and masking).
import { parseArgs } from 'node:util';
import { RecorderClient } from '../api/client.js';
import { expandPath, operations } from '../api/operations.js';
import { LeanHttp } from './lean-http.js';
import { realClock } from '../api/clock.js';

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
  },
});
const { url, token } = values;
if (url === undefined || token === undefined) throw new Error('usage: bare-poller --url URL --token TOKEN [--lean] [--poll-ms N] [--slow-ms N] [--previews 0,1,…] [--meters 0,1,…]');
const pollMs = Number(values['poll-ms']);
const list = (text: string) => (text === '' ? [] : text.split(',').map(Number));

/** The reads a poller makes, each resolving when its answer has been read whole. */
interface FloorReads {
  /** Channels, sync and dialog, each on a connection of its own. */
  state(): Array<Promise<unknown>>;
  /** Sources, resources, schedule and conversion. */
  slow(): Array<Promise<unknown>>;
  preview(index: number): Promise<unknown>;
  source(index: number): Promise<unknown>;
  channels(): Promise<ReadonlyArray<{ SourceName: string | null }>>;
  sources(): Promise<ReadonlyArray<{ Name: string }>>;
}

function clientReads(): FloorReads {
  const client = new RecorderClient({ clock: realClock, url: url as string, token: token as string });
  const state = { lane: 'state' as const };
  return {
    state: () => [client.listChannels(state), client.getSyncState(state), client.getDialog(state)],
    slow: () => [client.listSources(), client.getResources(), client.getSchedule(), client.getConversionConfig()],
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
  return {
    state: () => [listChannels, getSyncState, getDialog].map((operation) => get(stateReads, operation.path)),
    slow: () => [listSources, getResources, getSchedule, getConversionConfig].map((operation) => get(reads, operation.path)),
    preview: (index) => get(reads, expandPath(getChannelPreview.path, { index })),
    source: (index) => get(reads, expandPath(getSource.path, { index })),
    channels: () => get(reads, listChannels.path) as Promise<Array<{ SourceName: string | null }>>,
    sources: () => get(reads, listSources.path) as Promise<Array<{ Name: string }>>,
  };
}

const reads = values.lean ? leanReads() : clientReads();

async function poll(): Promise<void> {
  const started = Date.now();
  await Promise.allSettled(reads.state());
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

void poll();
setInterval(() => void Promise.allSettled(reads.slow()), Number(values['slow-ms']));
repeat(list(values.previews), 1000, (index) => reads.preview(index));
// A meter is its channel's source, read whole (the interface has no lighter read of the levels).
const channels = await reads.channels();
const sources = await reads.sources();
const meterSources = list(values.meters).map((channel) => sources.findIndex((s) => s.Name === channels[channel]?.SourceName));
repeat(
  meterSources.filter((index) => index >= 0),
  250,
  (index) => reads.source(index),
);
process.on('SIGTERM', () => process.exit(0));
