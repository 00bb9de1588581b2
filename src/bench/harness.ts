// A bridge with an in-memory 32-key surface (4 x 8 keys of 96 px, like an XL) for benchmarks: the real
// engine, renderer and HTTP client, against a simulator given by URL.
import { RecorderClient } from '../api/client.js';
import { Bridge } from '../engine/bridge.js';
import type { Logger } from '../engine/log.js';
import { Profile } from '../profiles/schema.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { decodeThumbnail } from '../render/thumbnail.js';
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

/** `surface: false` polls as the bridge does with nothing to draw (the steady-load bench's reference). */
export function startBenchBridge(url: string, token: string, options: { thumbnails: boolean; pollMs?: number; thumbnailMs?: number; surface?: boolean }): BenchBridge {
  const client = new RecorderClient({ clock: realClock, url, token });
  const bridge = new Bridge({ time: realTime,
    recorders: [{ name: 'main', client }],
    renderer: (thumbnails) => pictureRenderer({ thumbnails }),
    decodeThumbnail,
    log: quiet,
    pollMs: options.pollMs ?? 250,
    thumbnailMs: options.thumbnailMs ?? 1000,
  });
  const surface = new MemorySurface({ time: realTime, id: 'memory:bench', model: 'bench-32', controls: keyGrid(4, 8, 96) });
  bridge.start();
  bridge.setProfiles([{ profile: benchProfile(options.thumbnails), file: 'bench.yaml', origin: 'operator' }]);
  if (options.surface !== false) bridge.addSurface(surface);
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
