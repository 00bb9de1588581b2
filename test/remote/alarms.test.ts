// Alarms end to end, on virtual time, against a recorder that is not the project's simulator
// (test/support/scripted-recorder.ts): the real bridge polls it over HTTP, the alarm engine judges, and
// the deliveries are real: webhooks POSTed to a receiver on loopback, GET /alarms and POST /alarms/{id}/ack
// on the real remote server, the audit records. The issue's "done when", as tests.
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { AlarmList, AlarmWebhookPayload, type AlarmAuditRecord } from '../../src/engine/alarms/alarm.js';
import { AlarmSettings, type AlarmSettingsInput } from '../../src/engine/alarms/alarm-settings.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { Logger } from '../../src/engine/log.js';
import { keyGrid } from '../../src/engine/surface.js';
import { signatureOf } from '../../src/remote/alarm-webhooks.js';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { startAlarms, type RunningAlarms } from '../../src/cli/alarm-setup.js';
import { parseTestProfile } from '../support/bridge.js';
import { startScriptedRecorder, type ScriptedRecorder } from '../support/scripted-recorder.js';
import { RequestCounter, VirtualTime, untilWithIo } from '../support/virtual-time.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const POLL = 100;
const RAISE_POLLS = 3;
const SECRET = 'webhook-secret-for-tests';
const PROFILE = `name: alarms\nmatch: { kind: memory }\npages:\n  - name: main\n    controls:\n      key0: { press: { action: rec-stop, channel: 2 } }\n`;

interface Fixture {
  time: VirtualTime;
  recorder: ScriptedRecorder;
  receiver: WebhookReceiver;
  bridge: Bridge;
  surface: MemorySurface;
  alarms: RunningAlarms;
  remote: RunningRemoteServer;
  audit: AlarmAuditRecord[];
  client: RecorderClient;
  requests: RequestCounter;
  /** Moves virtual time on until the check holds (at most `ms` of it); returns the virtual time it took. */
  until: (check: () => boolean, what: string, ms?: number) => Promise<number>;
  /** The webhook payloads received, parsed by their schema. */
  payloads: () => AlarmWebhookPayload[];
}

let f: Fixture;

async function start(settings: AlarmSettingsInput = {}): Promise<Fixture> {
  const time = new VirtualTime();
  const recorder = await startScriptedRecorder();
  const receiver = await startWebhookReceiver();
  const client = new RecorderClient({ url: recorder.url, token: recorder.token, clock: time });
  const requests = new RequestCounter(client, time);
  const log: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const bridge = new Bridge({ recorders: [{ name: 'studio-a', client }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: POLL, slowMs: 1000, time });
  const surface = new MemorySurface({ id: 'memory:alarms', model: 'test-15', controls: keyGrid(3, 5, 96), time });
  bridge.start();
  bridge.setProfiles([parseTestProfile(PROFILE)]);
  bridge.addSurface(surface);
  const audit: AlarmAuditRecord[] = [];
  const alarmSettings = AlarmSettings.parse({ raisePolls: RAISE_POLLS, clearPolls: 3, ...settings });
  const alarms = startAlarms(bridge, { settings: alarmSettings, webhooks: [receiver.url], secret: SECRET }, log, { write: (record) => audit.push(record) });
  const remote = await startRemoteServer({ time, bridge, log, port: 0, alarms: alarms.monitor });
  const quiet = () => requests.quiet() && bridge.surfaceSessions().every((s) => s.idle);
  return {
    time,
    recorder,
    receiver,
    bridge,
    surface,
    alarms,
    remote,
    audit,
    client,
    requests,
    until: async (check, what, ms = 5000) => {
      const from = time.now();
      await untilWithIo(time, quiet, check, what, ms);
      return time.now() - from;
    },
    payloads: () => receiver.posts.map((p) => AlarmWebhookPayload.parse(JSON.parse(p.body))),
  };
}

async function stop(fixture: Fixture): Promise<void> {
  fixture.alarms.stop();
  await fixture.remote.close();
  await fixture.bridge.stop();
  await fixture.client.close();
  await fixture.recorder.close().catch(() => undefined);
  await fixture.receiver.close();
}

const states = () => f.payloads().map((p) => `${p.alarm.state} ${p.alarm.kind} ${p.alarm.recorder} ${p.alarm.channel ?? '-'}`);

async function api(method: 'GET' | 'POST', path: string) {
  const answer = await request(`${f.remote.url}${path}`, { method });
  return { status: answer.statusCode, json: (await answer.body.json()) as unknown };
}

describe('alarms against a recorder that is not the simulator', () => {
  beforeEach(async () => {
    f = await start();
    await f.until(() => f.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
  });
  afterEach(() => stop(f));

  it('a recording channel set to IsSomethingWrong: a signed webhook POST naming recorder and channel within 3 polls plus the hold; GET /alarms lists it; the ack is posted and audited; clearing posts a clear', async () => {
    (f.recorder.channels[2] as { IsRecording: boolean }).IsRecording = true;
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.[2]?.IsRecording === true, 'the take to be read');
    (f.recorder.channels[2] as { IsSomethingWrong: boolean }).IsSomethingWrong = true;
    const took = await f.until(() => f.receiver.posts.length >= 1, 'the raise webhook');
    expect(took).toBeLessThanOrEqual((3 + RAISE_POLLS) * POLL);
    const [raised] = f.payloads();
    expect(raised?.alarm).toMatchObject({ kind: 'channel-fault', recorder: 'studio-a', channel: 3, severity: 'critical', state: 'raised' });
    expect(raised?.alarm.text).toContain('channel 3 (Camera 3)');
    const post = f.receiver.posts[0];
    expect(post?.headers['x-recdeck-signature']).toBe(signatureOf(post?.body ?? '', SECRET));
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.body).not.toContain(f.recorder.token.slice(5));

    const listed = await api('GET', '/alarms');
    expect(listed.status).toBe(200);
    const list = AlarmList.parse(listed.json);
    expect(list.active.map((a) => a.id)).toEqual(['channel-fault:studio-a:ch3']);

    const acked = await api('POST', `/alarms/${encodeURIComponent('channel-fault:studio-a:ch3')}/ack`);
    expect(acked.status).toBe(200);
    await f.until(() => f.receiver.posts.length >= 2, 'the ack webhook');
    expect(f.payloads()[1]?.alarm).toMatchObject({ state: 'acked', ackedBy: '127.0.0.1 (remote API)' });
    expect(f.audit.map((r) => `${r.alarm} ${r.id}${r.by ? ` by ${r.by}` : ''}`)).toEqual(['raised channel-fault:studio-a:ch3', 'acked channel-fault:studio-a:ch3 by 127.0.0.1 (remote API)']);

    (f.recorder.channels[2] as { IsSomethingWrong: boolean }).IsSomethingWrong = false;
    await f.until(() => f.receiver.posts.length >= 3, 'the clear webhook');
    expect(states()).toEqual(['raised channel-fault studio-a 3', 'acked channel-fault studio-a 3', 'cleared channel-fault studio-a 3']);
    expect(f.audit.at(-1)?.alarm).toBe('cleared');
    expect(AlarmList.parse((await api('GET', '/alarms')).json)).toMatchObject({ active: [], cleared: [{ id: 'channel-fault:studio-a:ch3', state: 'cleared' }] });
  });

  it('an ack of an alarm that is not active is refused with the reason; another site may not ack', async () => {
    const missing = await api('POST', '/alarms/channel-fault%3Astudio-a%3Ach9/ack');
    expect(missing).toEqual({ status: 404, json: { error: 'no active alarm channel-fault:studio-a:ch9' } });
    const foreign = await request(`${f.remote.url}/alarms/x/ack`, { method: 'POST', headers: { origin: 'http://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    await foreign.body.dump();
    expect((await api('POST', '/alarms')).status).toBe(405);
  });

  it('the recorder going away raises the offline alarm', async () => {
    await f.recorder.close();
    await f.until(() => states().includes('raised recorder-offline studio-a -'), 'the offline webhook', 30_000);
    expect(f.alarms.monitor.active().map((a) => a.id)).toContain('recorder-offline:studio-a');
  });

  it('a take stopped at the recorder by someone else raises unexpected-stop; a stop pressed on a key does not', async () => {
    for (const index of [1, 3]) (f.recorder.channels[index] as { IsRecording: boolean }).IsRecording = true;
    await f.until(() => f.bridge.recorderStates()[0]?.channels?.filter((c) => c.IsRecording).length === 2, 'both takes to be read');
    // key0 stops channel 2 (index 1) through recdeck.
    f.surface.press('key0');
    await f.until(() => f.recorder.writes.includes('PUT /api/channels/1/rec-stop'), 'the key’s stop');
    // Someone at the recorder stops channel 4 (index 3).
    (f.recorder.channels[3] as { IsRecording: boolean }).IsRecording = false;
    await f.until(() => f.receiver.posts.length >= 1, 'the unexpected-stop webhook');
    // Well past the hold: the key's stop raised nothing.
    await f.until(() => false, 'nothing', 20 * POLL).catch(() => undefined);
    expect(states()).toEqual(['raised unexpected-stop studio-a 4']);
    expect(f.payloads()[0]?.alarm.text).toContain('stopped without a command from recdeck');
  });
});

describe('alarm webhooks', () => {
  afterEach(() => stop(f));

  it('a receiver answering 500 is tried again with a doubling back-off, the same signed body each time', async () => {
    f = await start({ webhook: { backoffMs: 200 } });
    f.receiver.statuses.push(500, 500);
    await f.until(() => f.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    (f.recorder.channels[0] as { IsRecording: boolean }).IsRecording = true;
    (f.recorder.channels[0] as { IsSomethingWrong: boolean }).IsSomethingWrong = true;
    await f.until(() => f.receiver.posts.length >= 1, 'the first attempt');
    const first = f.time.now();
    await f.until(() => f.receiver.posts.length >= 2, 'the second attempt');
    const second = f.time.now();
    await f.until(() => f.receiver.posts.length >= 3, 'the third attempt');
    expect(second - first).toBeGreaterThanOrEqual(200);
    expect(f.time.now() - second).toBeGreaterThanOrEqual(400);
    const bodies = new Set(f.receiver.posts.map((p) => p.body));
    expect(bodies.size).toBe(1);
    for (const post of f.receiver.posts) expect(post.headers['x-recdeck-signature']).toBe(signatureOf(post.body, SECRET));
    // Taken on the third: no fourth.
    await f.until(() => false, 'nothing', 2000).catch(() => undefined);
    expect(f.receiver.posts).toHaveLength(3);
  });

  it('a receiver that hangs does not slow presses or polls: the key’s stop goes out and is confirmed while the webhook waits', async () => {
    f = await start({ webhook: { timeoutMs: 60_000 } });
    f.receiver.hang = true;
    await f.until(() => f.bridge.recorderStates()[0]?.lastGoodAt !== null, 'the first poll');
    for (const index of [0, 1]) (f.recorder.channels[index] as { IsRecording: boolean }).IsRecording = true;
    (f.recorder.channels[0] as { IsSomethingWrong: boolean }).IsSomethingWrong = true;
    await f.until(() => f.receiver.held() === 1, 'the webhook to hang');
    const pressedAt = f.time.now();
    f.surface.press('key0');
    await f.until(() => f.recorder.writes.includes('PUT /api/channels/1/rec-stop') && f.bridge.recorderStates()[0]?.channels?.[1]?.IsRecording === false, 'the stop to go out and be read');
    expect(f.time.now() - pressedAt).toBeLessThanOrEqual(2 * POLL);
    expect(f.receiver.held()).toBe(1);
    // The alarm engine goes on too: the fault clears while the first webhook still hangs.
    (f.recorder.channels[0] as { IsSomethingWrong: boolean }).IsSomethingWrong = false;
    await f.until(() => f.alarms.monitor.active().length === 0, 'the fault to clear');
    expect(f.alarms.webhooks.pending()).toBe(2);
  });
});
