// The plugin's engine side (PluginDeck) in the test's own process, for what does not need the app's
// WebSocket: the real deck, engine, SVG renderer and RecorderClient against the simulator over real HTTP,
// with a fake of the app's commands (what PluginDeck calls: setImage, setFeedback, showOk, showAlert).
// Time is virtual and shared with the simulator: moving it runs the polls, fetches and timers due and
// waits for the HTTP they start (every client's requests are counted), so nothing sleeps.
import { RecorderClient } from '../../src/api/client.js';
import { realClock } from '../../src/api/clock.js';
import type { Logger } from '../../src/engine/log.js';
import { PluginDeck, type AppFeedback, type AppInstance } from '../../src/plugin/plugin-deck.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { startFixture, type SimulatorFixture } from '../support/simulator.js';
import { RequestCounter, VirtualTime, advanceWithIo, settle, untilWithIo } from '../support/virtual-time.js';
import { decodeImage, titleOf } from './fake-streamdeck-app.js';

export const PLUGIN_UUID = 'com.recdeck.recorder';
export const uuidOf = (name: string): string => `${PLUGIN_UUID}.${name}`;

/** What the deck asked of the app, in order. */
export interface AppCall {
  call: 'setImage' | 'setFeedback' | 'showOk' | 'showAlert';
  context: string;
  /** setImage's image (a data URL, or undefined: back to the manifest's), setFeedback's payload. */
  image?: string | undefined;
  payload?: Record<string, string>;
}

export interface InProcessDeck {
  fixture: SimulatorFixture;
  deck: PluginDeck;
  time: VirtualTime;
  calls: AppCall[];
  logs: string[];
  /** An instance appears (defaults: a key at 0,0 on DEV1). */
  appear(instance: Partial<AppInstance> & { context: string; uuid: string; settings: unknown }): void;
  /** Moves virtual time on by `ms`, waiting for the I/O each moment starts. */
  advance(ms: number): Promise<void>;
  /** Moves virtual time on until `check` holds, at most `ms` of it. */
  until(check: () => boolean, what: string, ms?: number): Promise<void>;
  /** The SVG of each image set on a context since a mark (an index into calls). */
  images(context: string, since?: number): string[];
  /** The title (what it shows, in words) of the last image set on a context. */
  lastTitle(context: string): string;
  close(): Promise<void>;
}

export async function startInProcessDeck(options: { simulator?: Partial<SimulatorOptions>; pollMs?: number } = {}): Promise<InProcessDeck> {
  const time = new VirtualTime();
  const fixture = await startFixture({ clock: time, ...options.simulator });
  const calls: AppCall[] = [];
  const logs: string[] = [];
  const counters: RequestCounter[] = [];
  const quiet = () => counters.every((counter) => counter.quiet());
  const app: AppFeedback = {
    setImage: async (context, image) => void calls.push({ call: 'setImage', context, image }),
    setFeedback: async (context, payload) => void calls.push({ call: 'setFeedback', context, payload }),
    showOk: async (context) => void calls.push({ call: 'showOk', context }),
    showAlert: async (context) => void calls.push({ call: 'showAlert', context }),
  };
  const log: Logger = {
    info: (message) => logs.push(`info: ${message}`),
    warn: (message) => logs.push(`warn: ${message}`),
    error: (message) => logs.push(`error: ${message}`),
  };
  const deck = new PluginDeck({
    app,
    log,
    time,
    pollMs: options.pollMs ?? 250,
    clientOf: (entry) => {
      const client = new RecorderClient({ url: entry.url, token: entry.token, clock: realClock });
      counters.push(new RequestCounter(client, time));
      return client;
    },
  });
  const images = (context: string, since = 0) =>
    calls
      .slice(since)
      .filter((c) => c.call === 'setImage' && c.context === context)
      .map((c) => decodeImage(c.image ?? ''));
  return {
    fixture,
    deck,
    time,
    calls,
    logs,
    appear: (instance) => deck.appear({ device: 'DEV1', controller: 'Keypad', row: 0, column: 0, ...instance }),
    advance: (ms) => advanceWithIo(time, ms, quiet),
    until: (check, what, ms) => untilWithIo(time, quiet, check, what, ms),
    images,
    lastTitle: (context) => titleOf(images(context).at(-1) ?? ''),
    close: async () => {
      await deck.stop();
      await settle(quiet);
      await fixture.close();
    },
  };
}
