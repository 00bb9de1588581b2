// The metrics of a running bridge: recorder requests, commands, press-to-request latency and rendering.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Bridge } from '../engine/bridge.js';
import { freshnessOf } from '../engine/recorder-state.js';
import { exposition } from './metrics.js';
import { answering } from './readiness.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Starts counting; returns the scrape function and the function that stops counting. */
export function bridgeMetrics(bridge: Bridge): { text: () => Promise<string>; stop: () => void } {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Histogram({
    name: 'recdeck_recorder_request_seconds',
    help: 'Requests to the recorder, by recorder, method and outcome',
    labelNames: ['recorder', 'method', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const commands = new Counter({ name: 'recdeck_commands_total', help: 'Commands by action and result (ok, failed, refused)', labelNames: ['action', 'result'] as const, registers });
  const pressToRequest = new Histogram({ name: 'recdeck_press_to_request_seconds', help: 'From the input event to the command request leaving the bridge', buckets: LATENCY_BUCKETS, registers });
  const pressToAnswer = new Histogram({ name: 'recdeck_press_to_answer_seconds', help: "From the input event to the recorder's answer", buckets: LATENCY_BUCKETS, registers });
  const stopRequests = bridge.observeRequests((recorder, record) => {
    const outcome = record.error ? record.error.kind : 'ok';
    requests.observe({ recorder, method: record.method, outcome }, record.durationMs / 1000);
  });
  const subscription = bridge.commands$.subscribe((record) => {
    commands.inc({ action: record.action, result: record.result });
    if (record.requestAfterMs !== null) pressToRequest.observe(record.requestAfterMs / 1000);
    if (record.result !== 'refused') pressToAnswer.observe(record.latencyMs / 1000);
  });

  // Figures the bridge and renderer keep themselves, read when scraped.
  new Gauge({
    name: 'recdeck_recorder_live',
    help: "1 when the recorder's data (channels, sync, dialog) is live: each read within 3 of the intervals it was read at (sync and dialog every other poll while the bridge is held); 0 when stale or offline",
    labelNames: ['recorder'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of bridge.recorderStates()) this.set({ recorder: s.name }, freshnessOf(s, bridge.time.now()) === 'live' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'recdeck_recorder_up',
    help: "1 when the recorder's last reads of channels, sync and dialog all answered well; 0 when any failed (not reachable, token refused, an error status, an answer recdeck cannot read) or none was answered yet",
    labelNames: ['recorder'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of bridge.recorderStates()) this.set({ recorder: s.name }, answering(s) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'recdeck_recorder_data_age_seconds',
    help: 'Seconds since the recorder last answered well',
    labelNames: ['recorder'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of bridge.recorderStates()) this.set({ recorder: s.name }, s.lastGoodAt === null ? -1 : (bridge.time.now() - s.lastGoodAt) / 1000);
    },
  });
  const stats = () => bridge.renderer.stats ?? { renders: 0, cacheHits: 0, fastPaths: 0 };
  const renderCounter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  renderCounter('recdeck_renders_total', 'Images made through sharp (tile backgrounds and glyph sets)', () => stats().renders);
  renderCounter('recdeck_render_cache_hits_total', 'Pictures answered with an image already made', () => stats().cacheHits);
  renderCounter('recdeck_render_fast_paths_total', 'Images repainted in JS over a cached background', () => stats().fastPaths);
  new Gauge({
    name: 'recdeck_surfaces',
    help: 'Surfaces bound to a profile',
    registers,
    collect() {
      this.set(bridge.surfaceSessions().length);
    },
  });

  return {
    text: () => exposition(registry),
    stop: () => {
      stopRequests();
      subscription.unsubscribe();
    },
  };
}
