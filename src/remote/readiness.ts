// Whether the bridge is ready: every recorder its bound profiles use is live. GET /readyz answers from
// this (200 or 503 with the reasons), and recdeck_recorder_up reads `answering` from it: a supervisor or
// monitor sees what the keys see, on the engine's clock.
import type { Bridge } from '../engine/bridge.js';
import type { Freshness } from '../engine/picture.js';
import { ageSeconds, freshnessOf, type RecorderState } from '../engine/recorder-state.js';

export interface RecorderReadiness {
  name: string;
  /** null for a name a binding uses that no recorder is configured by. */
  freshness: Freshness | null;
  /** Seconds since the state reads' oldest good answer; null if there was none. */
  ageS: number | null;
  /** Why it is not live; null when it is. */
  reason: string | null;
}

export interface Readiness {
  ready: boolean;
  recorders: RecorderReadiness[];
}

/**
 * The recorder's last reads of channels, sync and dialog all answered well. Not so while any of them
 * failed (not reachable, token refused, an error status, an answer recdeck cannot read) or none has been
 * answered yet. Data can be live while one read just failed, and old while every read answers (a stalled
 * poller): this says how the recorder answers, freshness how old what the keys show is.
 */
export function answering(state: RecorderState): boolean {
  return state.failures === 0 && state.lastGoodAt !== null;
}

export function readiness(bridge: Bridge): Readiness {
  const now = bridge.time.now();
  const states = new Map(bridge.recorderStates().map((state) => [state.name, state]));
  const recorders = bridge.recordersInUse().map((name): RecorderReadiness => {
    const state = states.get(name);
    if (state === undefined) return { name, freshness: null, ageS: null, reason: 'no recorder is configured by this name, which a binding names (give it with --recorder NAME=URL)' };
    const freshness = freshnessOf(state, now);
    const ageS = ageSeconds(state, now);
    return { name, freshness, ageS, reason: freshness === 'live' ? null : notLiveReason(state, freshness, ageS) };
  });
  return { ready: recorders.every((r) => r.freshness === 'live'), recorders };
}

function notLiveReason(state: RecorderState, freshness: Freshness, ageS: number | null): string {
  const error = state.lastError === null ? '' : `: ${state.lastError}`;
  if (freshness === 'offline') {
    // Offline is either unreachable for 3 reads, or never read well: not asked yet, or refused (a token the recorder does not take).
    if (state.lastError === null) return 'offline: not read yet';
    return state.unreachable ? `offline: not reachable${error}` : `offline: never answered well${error}`;
  }
  return `stale: ${ageS === null ? 'not all of channels, sync and dialog read yet' : `data ${ageS} s old`}${error}`;
}
