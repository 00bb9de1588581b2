// A bridge with an in-memory 32-key surface (4 x 8 keys of 96 px, like an XL) for benchmarks: the real
// engine, renderer and HTTP client, against a simulator given by URL, made by the same function as
// `recdeck run`'s bridge (cli/run-bridge.ts) and reading on demand as it does.
import { RecorderClient } from '../api/client.js';
import type { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import { pageParts } from '../engine/parts-needed.js';
import type { StatePart } from '../engine/recorder-state.js';
import { Profile, type Page } from '../profiles/schema.js';
import { onDemandRecorders, runBridge } from '../cli/run-bridge.js';
import { MemorySurface } from '../surfaces/memory/memory-surface.js';
import { keyGrid } from '../engine/surface.js';
import { realClock } from '../api/clock.js';
import { realTime } from '../engine/engine-time.js';

export interface BenchBridge {
  bridge: Bridge;
  surface: MemorySurface;
  client: RecorderClient;
  stop: () => Promise<void>;
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: (m) => process.stderr.write(`${m}\n`) };

/** Keys 0–15 show channels 1–16; keys 16–31 start and stop them (rec-start on 16–23, rec-stop on 24–31 for channels 1–8). */
export function benchProfile(thumbnails: boolean): Profile {
  const controls: Record<string, unknown> = {};
  for (let i = 0; i < 16; i++) controls[`key${i}`] = { show: { channel: i + 1, thumbnail: thumbnails } };
  for (let i = 0; i < 8; i++) {
    controls[`key${16 + i}`] = { press: { action: 'rec-start', channel: i + 1 } };
    controls[`key${24 + i}`] = { press: { action: 'rec-stop', channel: i + 1 } };
  }
  return Profile.parse({ name: 'bench', match: { kind: 'memory' }, pages: [{ name: 'main', controls }] });
}

/** What the bench page needs read of its recorder (parts-needed.ts: its keys' pictures and actions): the channel list. */
export function benchParts(thumbnails: boolean): StatePart[] {
  const page = benchProfile(thumbnails).pages[0] as Page;
  return [...(pageParts(page, { defaultRecorder: 'main', groups: new Map(), dialogOverlay: false }).get('main') ?? [])];
}

export interface BenchBridgeOptions {
  thumbnails: boolean;
  pollMs?: number;
  thumbnailMs?: number;
  surface?: boolean;
  /**
   * 'on-demand' (the default): wired as `recdeck run` wires a recorder it polls (cli/run-bridge.ts), with
   * no web server or alarms (this bridge has neither): only the parts the keys in view need (here the
   * channel list). 'everything': every part, always, as a facility's poller reads for panels it cannot
   * see; the facility benches compare their pollers' load on a recorder with this.
   */
  reads?: 'on-demand' | 'everything';
}

/** The owner of the no-surface bridge's demand: what the surface would need, read with nothing to draw. */
const POLLING_ALONE = 'the bench: polling what its surface would need, with no surface';

/**
 * `surface: false` polls as the bridge does with nothing to draw (the steady-load bench's reference):
 * read on demand, a bridge with no surface would read nothing, so its recorder is told to read what the
 * bench surface's page needs (parts-needed.ts), as if the surface were in view.
 */
export function startBenchBridge(url: string, token: string, options: BenchBridgeOptions): BenchBridge {
  const pollMs = options.pollMs ?? 250;
  const client = new RecorderClient({ clock: realClock, url, token });
  const onDemand = options.reads === 'everything' ? null : onDemandRecorders([{ name: 'main', client }], { pollMs, web: false, alarms: null });
  const bridge = runBridge(onDemand ?? [{ name: 'main', client }], { log: quiet, pollMs, thumbnailMs: options.thumbnailMs ?? 1000 });
  const surface = new MemorySurface({ time: realTime, id: 'memory:bench', model: 'bench-32', controls: keyGrid(4, 8, 96) });
  const profile = benchProfile(options.thumbnails);
  bridge.start();
  bridge.setProfiles([{ profile, file: 'bench.yaml', origin: 'operator' }]);
  if (options.surface !== false) bridge.addSurface(surface);
  else onDemand?.[0]?.link.want?.(POLLING_ALONE, new Set(benchParts(options.thumbnails)));
  return {
    bridge,
    surface,
    client,
    stop: async () => {
      await bridge.stop();
      await client.close();
    },
  };
}
