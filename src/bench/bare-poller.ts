// The reads `recdeck run` makes, and nothing else: channels, sync and dialog every poll interval on
// their own connections, the slow group every slow interval. Run as a child by the idle benchmark, as
// the floor the bridge's cost is compared with.
import { RecorderClient } from '../api/client.js';

const [url, token, pollText = '250', slowText = '5000'] = process.argv.slice(2);
if (url === undefined || token === undefined) throw new Error('usage: bare-poller URL TOKEN [POLL_MS] [SLOW_MS]');
const pollMs = Number(pollText);
const client = new RecorderClient({ url, token });
const state = { lane: 'state' as const };

async function poll(): Promise<void> {
  const started = Date.now();
  await Promise.allSettled([client.listChannels(state), client.getSyncState(state), client.getDialog(state)]);
  setTimeout(() => void poll(), Math.max(0, started + pollMs - Date.now()));
}

void poll();
setInterval(() => void Promise.allSettled([client.listSources(), client.getResources(), client.getSchedule(), client.getConversionConfig()]), Number(slowText));
process.on('SIGTERM', () => process.exit(0));
