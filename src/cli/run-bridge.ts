// How `recdeck run` makes its bridge over the recorders it polls itself: each read on demand (what the
// surfaces in view need, and what its web server and alarm engine read at any moment), real time, the
// picture renderer and sharp's preview decode. One function, called by start-bridge.ts and by the
// benchmarks' bridge (src/bench/harness.ts), so that what the bench measures is the bridge run starts,
// not a copy that drifts from it (the bench's bridge read every part for a day after run stopped doing so).
// Kept apart from start-bridge.ts so that the bench's bridge process loads the bridge and nothing of the
// web server, the bus or the profile feed that start-bridge.ts imports.
import type { RecorderClient } from '../api/client.js';
import type { AlarmSettings } from '../engine/alarms/alarm-settings.js';
import { Bridge, type BridgeOptions } from '../engine/bridge.js';
import { realTime } from '../engine/engine-time.js';
import { standingParts } from '../engine/parts-needed.js';
import { onDemandLink, type RecorderLink } from '../engine/recorder-link.js';
import { pictureRenderer } from '../render/picture-renderer.js';
import { ThreadRenderer, type RenderThread } from '../render/render-thread.js';
import { decodeThumbnail } from '../render/thumbnail.js';

/** What `recdeck run` reads of every recorder whatever is in view. */
export interface StandingReads {
  pollMs: number;
  /** A web server runs (its /readyz, metrics and pages read the state polls, resources and sources). */
  web: boolean;
  /** The alarm engine's settings (the kinds turned off read nothing), or null for none. */
  alarms: Pick<AlarmSettings, 'off'> | null;
}

/** Recorders polled here, each read on demand: the surfaces' parts in view, and the standing reads. */
export function onDemandRecorders(clients: ReadonlyArray<{ name: string; client: RecorderClient }>, run: StandingReads): Array<{ name: string; link: RecorderLink }> {
  const standing = standingParts({ web: run.web, alarms: run.alarms });
  return clients.map(({ name, client }) => ({ name, link: onDemandLink(name, client, { time: realTime, pollMs: run.pollMs, standing }) }));
}

/**
 * The bridge of `recdeck run` over these recorders (polled here, or followed on a bus): real time, sharp's
 * renderer and decode, on the main thread, or on `renderThread` when one is given (--render-thread; its
 * owner closes it after the bridge stops).
 */
export function runBridge(recorders: BridgeOptions['recorders'], options: Omit<BridgeOptions, 'recorders' | 'time' | 'renderer' | 'decodeThumbnail'> & { renderThread?: RenderThread | null }): Bridge {
  const { renderThread, ...rest } = options;
  if (renderThread === undefined || renderThread === null) return new Bridge({ time: realTime, recorders, renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, ...rest });
  return new Bridge({ time: realTime, recorders, renderer: (thumbnails) => new ThreadRenderer(renderThread, { thumbnails }), decodeThumbnail: (png) => renderThread.decodeThumbnail(png), ...rest });
}
