// The reads `recdeck run` makes, and nothing else: channels, sync and dialog every poll interval on
// their own connections, the slow group every slow interval; with a page open, also the previews and
// meters its deck shows (each preview once a second, each meter's source four times a second, two under
// way at most per kind, as the bridge fetches them). Run as a child by the idle benchmark, as the floor
// the bridge's cost is compared with.
import { parseArgs } from 'node:util';
import { RecorderClient } from '../api/client.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    'poll-ms': { type: 'string', default: '250' },
    'slow-ms': { type: 'string', default: '5000' },
    /** Channels (0-based) whose previews are read, comma-separated. */
    previews: { type: 'string', default: '' },
    /** Channels (0-based) whose source is read for its meter, comma-separated. */
    meters: { type: 'string', default: '' },
  },
});
const { url, token } = values;
if (url === undefined || token === undefined) throw new Error('usage: bare-poller --url URL --token TOKEN [--poll-ms N] [--slow-ms N] [--previews 0,1,…] [--meters 0,1,…]');
const pollMs = Number(values['poll-ms']);
const client = new RecorderClient({ url, token });
const state = { lane: 'state' as const };
const list = (text: string) => (text === '' ? [] : text.split(',').map(Number));

async function poll(): Promise<void> {
  const started = Date.now();
  await Promise.allSettled([client.listChannels(state), client.getSyncState(state), client.getDialog(state)]);
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
setInterval(() => void Promise.allSettled([client.listSources(), client.getResources(), client.getSchedule(), client.getConversionConfig()]), Number(values['slow-ms']));
repeat(list(values.previews), 1000, (index) => client.getChannelPreview(index));
// A meter is its channel's source, read whole (the interface has no lighter read of the levels).
const channels = await client.listChannels();
const sources = await client.listSources();
const meterSources = list(values.meters).map((channel) => sources.findIndex((s) => s.Name === channels[channel]?.SourceName));
repeat(
  meterSources.filter((index) => index >= 0),
  250,
  (index) => client.getSource(index),
);
process.on('SIGTERM', () => process.exit(0));
