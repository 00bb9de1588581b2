// GET /metrics read as Prometheus would: every line parses, each family has one type, the bridge's
// names are those it always had, and the process figures (process_*, nodejs_*) stand beside them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteFixture, type RemoteFixture } from '../support/remote.js';
import { until } from '../support/until.js';

/** The bridge's own families and their types: those it had before prom-client, and recdeck_recorder_up. */
const BRIDGE_FAMILIES: Record<string, string> = {
  recdeck_recorder_request_seconds: 'histogram',
  recdeck_commands_total: 'counter',
  recdeck_press_to_request_seconds: 'histogram',
  recdeck_press_to_answer_seconds: 'histogram',
  recdeck_recorder_live: 'gauge',
  recdeck_recorder_up: 'gauge',
  recdeck_recorder_data_age_seconds: 'gauge',
  recdeck_renders_total: 'counter',
  recdeck_render_cache_hits_total: 'counter',
  recdeck_render_fast_paths_total: 'counter',
  recdeck_surfaces: 'gauge',
};

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: \\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

/** The text format 0.0.4, strictly: a line that is not a comment, a blank or a sample fails. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      expect(types.has(type[1] as string), `line ${i + 1}: a second TYPE for ${type[1]}`).toBe(false);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('# HELP ') || line.startsWith('# ')) continue;
    const sample = SAMPLE.exec(line);
    expect(sample, `line ${i + 1} is not a sample: ${line}`).not.toBeNull();
    const [, name, labelText = '', valueText] = sample as RegExpExecArray;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      expect(label, `line ${i + 1}: bad labels ${labelText}`).not.toBeNull();
      labels[(label as RegExpExecArray)[1] as string] = (label as RegExpExecArray)[2] as string;
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    // Prometheus reads NaN in any case; prom-client writes "Nan" for a lag gauge with no sample since the last scrape.
    expect(/^nan$/i.test(valueText as string) || !Number.isNaN(value), `line ${i + 1}: value ${valueText}`).toBe(true);
    samples.push({ name: name as string, labels, value });
  }
  return { types, samples };
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.get(base) === 'histogram' || types.get(base) === 'summary' ? base : undefined;
}

describe('GET /metrics', () => {
  let f: RemoteFixture;
  beforeAll(async () => {
    f = await startRemoteFixture();
    await f.openPage(); // web decks are drawn (and counted) only while a page is open
    await f.call('POST', '/surfaces/web:web-15/keys/0/press');
    await until(async () => /^recdeck_commands_total\{/m.test((await f.call('GET', '/metrics')).text), 'a command counted');
  });
  afterAll(() => f?.close());

  it('parses, with the bridge\'s names as before plus the process figures', async () => {
    const answer = await f.call('GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { types, samples } = parseExposition(answer.text);

    const bridge = [...types].filter(([name]) => !name.startsWith('process_') && !name.startsWith('nodejs_'));
    expect(Object.fromEntries(bridge)).toEqual(BRIDGE_FAMILIES);
    for (const name of ['process_cpu_user_seconds_total', 'process_cpu_system_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds']) {
      expect(types.has(name), name).toBe(true);
    }
    expect([...types.keys()].some((name) => name.startsWith('nodejs_heap'))).toBe(true);
    for (const sample of samples) expect(familyOf(sample.name, types), `${sample.name} has a TYPE`).toBeDefined();
  });

  it('keeps the labels and values it had: commands, requests, liveness; histograms add up', async () => {
    const { samples } = parseExposition((await f.call('GET', '/metrics')).text);
    const find = (name: string, labels: Record<string, string> = {}) => samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(find('recdeck_commands_total', { action: 'rec-start', result: 'ok' })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(find('recdeck_recorder_request_seconds_count', { recorder: 'main', method: 'GET', outcome: 'ok' })[0]?.value).toBeGreaterThan(0);
    // Live and up say how the last reads went (this fixture polls on real time): on a busy machine one may
    // just have timed out, and the next answers.
    const liveAndUp = (text: string) => /^recdeck_recorder_live\{recorder="main"\} 1$/m.test(text) && /^recdeck_recorder_up\{recorder="main"\} 1$/m.test(text);
    await until(async () => liveAndUp((await f.call('GET', '/metrics')).text), 'recdeck_recorder_live and recdeck_recorder_up 1');
    expect(find('recdeck_surfaces')[0]?.value).toBe(3);
    expect(find('recdeck_renders_total')[0]?.value).toBeGreaterThan(0);
    expect(find('process_resident_memory_bytes')[0]?.value).toBeGreaterThan(1e6);

    const buckets = find('recdeck_press_to_request_seconds_bucket');
    const counts = buckets.map((b) => b.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(buckets.at(-1)?.labels.le).toBe('+Inf');
    expect(buckets.at(-1)?.value).toBe(find('recdeck_press_to_request_seconds_count')[0]?.value);
  });
});
