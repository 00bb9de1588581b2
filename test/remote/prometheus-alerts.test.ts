// e2e because the parts under test are real programs: Debian's promtool checks and unit-tests the
// shipped rules (deploy/prometheus/), amtool the example route, and a real Prometheus scrapes a running
// recdeck (its bridge, remote server and alarm engine in this process, the embedded simulator on real
// time), evaluates the shipped rules, and a real Alertmanager delivers the alert to a webhook on
// loopback once the simulator faults a channel. Every wait is bounded (until()).
// Time: Prometheus hands its first targets (recdeck to scrape, Alertmanager to notify) on from service
// discovery only at its first 5 s tick, which no flag shortens; the rest is the test's own configs
// (scrape and evaluate every 200 ms, Alertmanager's group wait 100 ms, Alertmanager without a cluster,
// whose notifications would wait for the cluster to settle). So both programs start before anything
// else in the file, and their 5 s pass while promtool runs and the alarm is raised.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/bench/broker.js';
import { startBridge, type RunningBridge } from '../../src/cli/run.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import type { Logger } from '../../src/engine/log.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const run = promisify(execFile);
const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const RULES = join(DEPLOY, 'prometheus/recdeck-alerts.yml');

let folder: string;
let bridge: RunningBridge;
let receiver: WebhookReceiver;
const processes: ChildProcess[] = [];
/** Where each program says it is ready (waited on in the test, while they start beside the rest). */
let ready: { prometheus: string; alertmanager: string };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recdeck-prometheus-'));
  receiver = await startWebhookReceiver();
  const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  bridge = await startBridge(
    {
      recorderFlags: [],
      tokenFlags: [],
      profilePaths: [],
      pollMs: 100,
      env: {},
      web: { host: '127.0.0.1', port: 0, password: null },
      surfaces: [],
      sources: [],
      alarms: { settings: AlarmSettings.parse({ raisePolls: 2 }), webhooks: [], secret: null },
    },
    quiet,
  );
  const [promPort, amPort] = [await freePort(), await freePort()];
  await writeFile(
    join(folder, 'alertmanager.yml'),
    `route:\n  receiver: test\n  group_by: [alertname, recorder, channel]\n  group_wait: 100ms\n  group_interval: 100ms\n  repeat_interval: 1h\nreceivers:\n  - name: test\n    webhook_configs:\n      - url: ${receiver.url}\n        send_resolved: true\n`,
  );
  const remote = new URL(bridge.remote?.url ?? '');
  await writeFile(
    join(folder, 'prometheus.yml'),
    `global:\n  scrape_interval: 200ms\n  evaluation_interval: 200ms\nrule_files:\n  - ${RULES}\nalerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['127.0.0.1:${amPort}']\nscrape_configs:\n  - job_name: recdeck\n    static_configs:\n      - targets: ['${remote.host}']\n`,
  );
  const start = (command: string, args: string[]) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.resume();
    processes.push(child);
  };
  start('prometheus-alertmanager', [`--config.file=${join(folder, 'alertmanager.yml')}`, `--storage.path=${join(folder, 'am')}`, `--web.listen-address=127.0.0.1:${amPort}`, '--cluster.listen-address=']);
  start('prometheus', [`--config.file=${join(folder, 'prometheus.yml')}`, `--storage.tsdb.path=${join(folder, 'tsdb')}`, `--web.listen-address=127.0.0.1:${promPort}`]);
  ready = { prometheus: `http://127.0.0.1:${promPort}/-/ready`, alertmanager: `http://127.0.0.1:${amPort}/-/ready` };
});

afterAll(async () => {
  for (const child of processes) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await bridge?.stop();
  await receiver?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the shipped rules and route', () => {
  it('promtool checks the rules and passes their unit tests; amtool accepts the example route', async () => {
    expect((await run('promtool', ['check', 'rules', RULES])).stdout).toContain('SUCCESS: 3 rules found');
    expect((await run('promtool', ['test', 'rules', join(DEPLOY, 'prometheus/recdeck-alerts.test.yml')])).stdout).toContain('SUCCESS');
    expect((await run('amtool', ['check-config', join(DEPLOY, 'alertmanager/recdeck-route.yml')])).stdout).toContain('SUCCESS');
  });
});

describe('Prometheus and Alertmanager on a running recdeck', () => {
  it('a faulted channel: recdeck raises the alarm, Prometheus fires RecdeckAlarm, Alertmanager delivers it to the webhook', async () => {
    const simulator = bridge.simulator;
    if (!simulator) throw new Error('expected the embedded simulator');
    const sim = (method: 'PUT' | 'POST', path: string, body?: string) => request(`${simulator.url}${path}`, { method, headers: { authorization: `Bearer ${simulator.token}`, 'content-type': 'application/json' }, ...(body ? { body } : {}) }).then((a) => a.body.dump());
    await sim('PUT', '/api/channels/4/rec-start');
    await sim('POST', '/_sim/channels/4/wrong', '{"wrong":true}');
    await until(() => bridge.alarms?.active().some((a) => a.id === 'channel-fault:main:ch5') === true, 'recdeck to raise the alarm');
    const metrics = await (await request(`${bridge.remote?.url}/metrics`)).body.text();
    expect(metrics).toContain('recdeck_alarm_active{kind="channel-fault",recorder="main",channel="5",severity="critical"} 1');
    // Every figure the shipped Grafana dashboard asks for is one recdeck exposes.
    const dashboard = JSON.parse(await readFile(join(DEPLOY, 'grafana/recdeck.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const asked = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/recdeck_[a-z_]+/g) ?? [])));
    expect(asked.size).toBeGreaterThanOrEqual(7);
    for (const name of asked) expect(metrics).toContain(`# TYPE ${name} `);
    const up = async (url: string) => {
      try {
        const answer = await request(url);
        await answer.body.dump();
        return answer.statusCode === 200;
      } catch {
        return false;
      }
    };
    // Both programs have been starting since the file began; a failure to start is named here.
    await until(() => up(ready.prometheus), 'Prometheus to be ready');
    await until(() => up(ready.alertmanager), 'Alertmanager to be ready');
    // The channel's fault among what Alertmanager delivers: on a loaded machine a late poll may also raise
    // recorder-stale (the engine honest about its data's age), which may come first.
    type Delivery = { status: string; alerts: Array<{ labels: Record<string, string> }> };
    const deliveries = () => receiver.posts.map((post) => JSON.parse(post.body) as Delivery);
    const faultIn = (delivery: Delivery) => delivery.alerts.find((alert) => alert.labels.kind === 'channel-fault');
    await until(() => deliveries().some((d) => faultIn(d) !== undefined), "Alertmanager to deliver the channel's alert", 45_000);
    const delivered = deliveries().find((d) => faultIn(d) !== undefined) as Delivery;
    expect(delivered.status).toBe('firing');
    expect(faultIn(delivered)?.labels).toMatchObject({ alertname: 'RecdeckAlarm', kind: 'channel-fault', recorder: 'main', channel: '5', severity: 'critical' });
  });
});
