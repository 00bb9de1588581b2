// `recdeck watch`: the recorder's state changes as JSON lines on stdout, for scripts and logs. It reads
// through the same RecorderPoller as the bridge and prints what changed between two of its states.
import { pairwise, type Subscription } from 'rxjs';
import { RecorderClient } from '../api/client.js';
import { realTime, type EngineTime } from '../engine/engine-time.js';
import { RecorderPoller } from '../engine/recorder-poller.js';
import { FAST_PARTS, type RecorderState } from '../engine/recorder-state.js';
import { RECORDER_FLAGS, oneRecorder } from './call.js';
import { HELP_FLAG, parseFlags, wholeNumber, type CommandSpec } from './flags.js';
import { COMMAND_OVERVIEW } from './command-overview.js';
import { interrupted } from './interrupted.js';
import { realClock } from '../api/clock.js';

export const watchCommand = {
  ...COMMAND_OVERVIEW.watch,
  flags: {
    ...RECORDER_FLAGS,
    'poll-ms': { type: 'string', default: '250', value: 'N', description: 'poll every N ms (50 to 60000)' },
    counters: { type: 'boolean', default: false, description: 'include durations, frame rates, drop counters and resources, which move every second' },
    ...HELP_FLAG,
  },
} satisfies CommandSpec;

/** One line of output: what changed, on which recorder, when. */
export type WatchEvent = { at: string; recorder: string; event: string } & Record<string, unknown>;

/** Live figures that move every second while recording: left out unless asked for. */
const COUNTERS: ReadonlySet<string> = new Set(['RecordingDuration', 'RecordingFPS', 'RecordingBreaks', 'RecordingDrops', 'RecordingBuffered']);

type Fields = Readonly<Record<string, unknown>>;

/** Fields of `next` that differ from `previous` (all of them when there was none). */
function changedFields(previous: Fields | null | undefined, next: Fields, skip: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (skip.has(key)) continue;
    if (!previous || JSON.stringify(previous[key]) !== JSON.stringify(value)) changed[key] = value;
  }
  return changed;
}

const nonEmpty = (fields: Record<string, unknown>) => Object.keys(fields).length > 0;

/** What changed from one poller state to the next, as events without time and recorder. */
export function stateChanges(previous: RecorderState, next: RecorderState, options: { counters: boolean }): Array<{ event: string } & Record<string, unknown>> {
  const events: Array<{ event: string } & Record<string, unknown>> = [];
  // Answering: some state read came back and none is failing (the three are read each on their own).
  const answering = (state: RecorderState) => state.failures === 0 && FAST_PARTS.some((part) => state.readAt[part] !== null);
  if (answering(next) && !answering(previous)) events.push({ event: 'connected' });
  if (next.failures > 0 && (previous.failures === 0 || previous.lastError !== next.lastError)) {
    events.push({ event: 'error', error: next.lastError, unreachable: next.unreachable });
  }

  const skip = options.counters ? new Set<string>() : COUNTERS;
  if (next.channels && next.channels !== previous.channels) {
    if (!previous.channels || previous.channels.length !== next.channels.length) {
      events.push({ event: 'channels', channels: next.channels });
    } else {
      next.channels.forEach((channel, i) => {
        const changed = changedFields(previous.channels?.[i], channel, skip);
        if (nonEmpty(changed)) events.push({ event: 'channel', index: channel.Index, changed });
      });
    }
  }
  for (const part of ['sync', 'dialog', 'schedule', 'conversion'] as const) {
    const value = next[part];
    if (!value || value === previous[part]) continue;
    const changed = changedFields(previous[part], value);
    if (nonEmpty(changed)) events.push({ event: part, changed });
  }
  if (next.sources && next.sources !== previous.sources && JSON.stringify(next.sources) !== JSON.stringify(previous.sources)) {
    events.push({ event: 'sources', sources: next.sources });
  }
  if (options.counters && next.resources && next.resources !== previous.resources) events.push({ event: 'resources', resources: next.resources });
  return events;
}

export interface WatchOptions {
  name: string;
  client: RecorderClient;
  pollMs: number;
  counters: boolean;
  write: (line: string) => void;
  /** The poller's clock and scheduler; real time by default. */
  time?: EngineTime;
}

/** Starts polling and writing lines; returns the function that stops it. */
export function startWatch(options: WatchOptions): () => void {
  const time = options.time ?? realTime;
  const poller = new RecorderPoller(options.name, options.client, { pollMs: options.pollMs, time });
  const subscription: Subscription = poller.state$.pipe(pairwise()).subscribe(([previous, next]) => {
    for (const change of stateChanges(previous, next, { counters: options.counters })) {
      const event: WatchEvent = { at: new Date(time.now()).toISOString(), recorder: options.name, ...change };
      options.write(`${JSON.stringify(event)}\n`);
    }
  });
  poller.start();
  return () => {
    poller.stop();
    subscription.unsubscribe();
  };
}

export async function watch(args: string[], env: NodeJS.ProcessEnv = process.env, stdout: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { values } = parseFlags(watchCommand, args);
  const pollMs = wholeNumber('--poll-ms', values['poll-ms'], 50, 60_000, 'ms');
  const recorder = oneRecorder(values.recorder, values.token, env, values['token-file']);
  const client = new RecorderClient({ clock: realClock, url: recorder.url, token: recorder.token });
  const stopped = interrupted();
  const stop = startWatch({ name: recorder.name, client, pollMs, counters: values.counters, write: (line) => stdout.write(line) });
  await stopped;
  stop();
  await client.close();
}
