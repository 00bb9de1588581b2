// The metrics of a running bridge: recorder requests, commands, press-to-request latency and rendering.
import type { Bridge } from '../engine/bridge.js';
import { freshnessOf } from '../engine/recorder-state.js';
import { Counter, Gauge, Histogram, exposition } from './metrics.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Starts counting; returns the scrape function and the function that stops counting. */
export function bridgeMetrics(bridge: Bridge): { text: () => string; stop: () => void } {
  const requests = new Histogram('recdeck_recorder_request_seconds', 'Requests to the recorder, by recorder, method and outcome', LATENCY_BUCKETS);
  const commands = new Counter('recdeck_commands_total', 'Commands by action and result (ok, failed, refused)');
  const pressToRequest = new Histogram('recdeck_press_to_request_seconds', 'From the input event to the command request leaving the bridge', LATENCY_BUCKETS);
  const pressToAnswer = new Histogram('recdeck_press_to_answer_seconds', 'From the input event to the recorder\'s answer', LATENCY_BUCKETS);
  const stopRequests = bridge.observeRequests((recorder, record) => {
    const outcome = record.error ? record.error.kind : 'ok';
    requests.observe(record.durationMs / 1000, { recorder, method: record.method, outcome });
  });
  const subscription = bridge.commands$.subscribe((record) => {
    commands.inc({ action: record.action, result: record.result });
    if (record.requestAfterMs !== null) pressToRequest.observe(record.requestAfterMs / 1000);
    if (record.result !== 'refused') pressToAnswer.observe(record.latencyMs / 1000);
  });
  const stats = () => bridge.renderer.stats ?? { renders: 0, cacheHits: 0, fastPaths: 0 };
  const gauges = [
    new Gauge('recdeck_recorder_live', '1 when the recorder\'s data is live, 0 when stale or offline', () => bridge.recorderStates().map((s) => ({ labels: { recorder: s.name }, value: freshnessOf(s, Date.now()) === 'live' ? 1 : 0 }))),
    new Gauge('recdeck_recorder_data_age_seconds', 'Seconds since the recorder last answered well', () =>
      bridge.recorderStates().map((s) => ({ labels: { recorder: s.name }, value: s.lastGoodAt === null ? -1 : (Date.now() - s.lastGoodAt) / 1000 })),
    ),
    new Gauge('recdeck_renders_total', 'Images made through sharp (tile backgrounds and glyph sets)', () => [{ labels: {}, value: stats().renders }], 'counter'),
    new Gauge('recdeck_render_cache_hits_total', 'Pictures answered with an image already made', () => [{ labels: {}, value: stats().cacheHits }], 'counter'),
    new Gauge('recdeck_render_fast_paths_total', 'Images repainted in JS over a cached background', () => [{ labels: {}, value: stats().fastPaths }], 'counter'),
    new Gauge('recdeck_surfaces', 'Surfaces bound to a profile', () => [{ labels: {}, value: bridge.surfaceSessions().length }]),
  ];
  return {
    text: () => exposition([requests, commands, pressToRequest, pressToAnswer, ...gauges]),
    stop: () => {
      stopRequests();
      subscription.unsubscribe();
    },
  };
}
