// Alarms on the state bus, end to end. e2e because the parts are real processes' parts on a real
// Mosquitto: the poller polls the simulator over HTTP, its alarm engine judges and publishes (retained,
// signed) what the panel, which knows only `main@mqtt`, shows on its alarms key and lists on its real
// GET /alarms; the panel's acknowledgements (its POST /alarms/{id}/ack, its alarm-ack key) travel to the
// poller's engine as signed commands; and what is forged or replayed is published on the broker by a bare
// client. Real time (the broker and the simulator's HTTP are real), so every wait is a bounded until().
import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecorderClient } from '../../src/api/client.js';
import { realClock } from '../../src/api/clock.js';
import { BusPoller, newInstance, pollerWill, recorderIdentity } from '../../src/bus/bus-poller.js';
import { BusRecorder } from '../../src/bus/bus-recorder.js';
import { busClientOptions, sendWithoutDelay } from '../../src/bus/connection.js';
import type { BusAuthority } from '../../src/bus/facility.js';
import { AlarmsMessage, AnyReply, LeaseMessage, topicsOf, type AlarmAckMessage } from '../../src/bus/topics.js';
import { startBusAlarms } from '../../src/cli/alarm-bus.js';
import { startAlarms, type RunningAlarms } from '../../src/cli/alarm-setup.js';
import { AlarmList, type AlarmAuditRecord } from '../../src/engine/alarms/alarm.js';
import { AlarmSettings } from '../../src/engine/alarms/alarm-settings.js';
import { Bridge } from '../../src/engine/bridge.js';
import type { CommandRecord } from '../../src/engine/log.js';
import { realTime } from '../../src/engine/engine-time.js';
import type { RecorderLink } from '../../src/engine/recorder-link.js';
import { freshnessOf } from '../../src/engine/recorder-state.js';
import type { AlarmsPicture } from '../../src/engine/picture.js';
import { pollingLink } from '../../src/engine/recorder-link.js';
import { RecorderPoller } from '../../src/engine/recorder-poller.js';
import { keyGrid } from '../../src/engine/surface.js';
import { startRemoteServer, type RunningRemoteServer } from '../../src/remote/server.js';
import { pictureRenderer } from '../../src/render/picture-renderer.js';
import { decodeThumbnail } from '../../src/render/thumbnail.js';
import { MemorySurface } from '../../src/surfaces/memory/memory-surface.js';
import { parseTestProfile } from '../support/bridge.js';
import { connect, generatedFacility, handLeaseOver, keptLog, nextCommandOf, startSimulator, until } from '../support/facility.js';
import { LAPSED, OFFLINE_NOT_SENT } from '../support/lease-stalls.js';
import { startBroker, type Broker } from '../support/mosquitto.js';
import type { SimulatorFixture } from '../support/simulator.js';

/**
 * The poller's and the panel's poll, which no test here is about: every wait is a number of polls (a
 * raise, a clear, a command's settle), so a shorter poll ends each sooner. Not shorter: the data goes
 * stale after 3 polls (450 ms here), which a late poll on this busy machine already reaches now and then.
 */
const POLL_MS = 150;
/** A lease of 2 s: a stall of this busy machine must not hand it over (there is no standby here). */
const TTL_MS = 2000;
/** Raised and cleared after 2 polls: the tests wait for a few polls, never for a time. */
const SETTINGS = AlarmSettings.parse({ raisePolls: 2, clearPolls: 2, commandSettlePolls: 2 });
/** Bounds on waiting (this machine is busy), not timings under test. */
const WAIT_MS = 15_000;

const PANEL_PROFILE = `name: alarm panel
match: { kind: memory }
pages:
  - name: main
    controls:
      key0: { press: { action: alarm-ack } }
      key1: { show: alarms }
      key2: { press: { action: rec-start, channel: 3 } }
      key3: { press: { action: rec-stop, channel: 3 } }
`;

interface Member {
  bridge: Bridge;
  mqtt: MqttClient;
  alarms: RunningAlarms;
  audit: AlarmAuditRecord[];
  log: ReturnType<typeof keptLog>;
  stop: () => Promise<void>;
}

/** A recdeck as `run` wires it: the bridge over the link, its alarm engine, and the alarms' bus ends. */
async function member(broker: Broker, authority: BusAuthority, link: (mqtt: MqttClient, log: Member['log']) => RecorderLink, options: { will?: (instance: string) => object; surface?: boolean }): Promise<Member & { surface: MemorySurface | null }> {
  const instance = newInstance();
  const mqtt = sendWithoutDelay(await connect(broker.url, { ...busClientOptions(authority.id), ...options.will?.(instance), reconnectPeriod: 200 }));
  const log = keptLog();
  const recorder = link(mqtt, log);
  const bridge = new Bridge({ recorders: [{ name: 'main', link: recorder }], renderer: (thumbnails) => pictureRenderer({ thumbnails }), decodeThumbnail, log, pollMs: POLL_MS, time: realTime });
  bridge.start();
  const audit: AlarmAuditRecord[] = [];
  const alarms = startAlarms(bridge, { settings: SETTINGS, webhooks: [], secret: null }, log, { write: (record) => audit.push(record) });
  bridge.attachAlarms(alarms.monitor);
  const stopBus = startBusAlarms({ recorders: [{ name: 'main', link: recorder }], connection: mqtt, authority }, bridge, alarms.monitor, log);
  let surface: MemorySurface | null = null;
  if (options.surface) {
    surface = new MemorySurface({ id: `memory:${authority.id}`, model: 'test-15', controls: keyGrid(3, 5, 72), time: realTime });
    bridge.setProfiles([parseTestProfile(PANEL_PROFILE)]);
    bridge.addSurface(surface);
  }
  return {
    bridge,
    mqtt,
    alarms,
    audit,
    log,
    surface,
    stop: async () => {
      alarms.stop();
      stopBus();
      await bridge.stop();
      await mqtt.endAsync(true);
    },
  };
}

let broker: Broker;
let sim: SimulatorFixture;
/** poller-handover hands the lease to poller-a as it starts (handLeaseOver), so that it need not wait out a TTL. */
/** gallery may only read: it may not acknowledge. */
const members = generatedFacility('main', ['poller-a', 'poller-handover'], ['panel-a', 'gallery'], { gallery: ['read'] });
let poller: Member & { client: RecorderClient; link: BusPoller };
let panel: Member & { surface: MemorySurface; remote: RunningRemoteServer };
let raw: MqttClient;
/** Every alarms message the poller published, as it arrived. */
const published: Buffer[] = [];
/** Every command the poller ran or refused (its --audit-file records). */
const pollerCommands: CommandRecord[] = [];
const MAIN = topicsOf('main');
/** What the bare client heard: the lease as last renewed, the poller's answers by id, and panel-a's commands. */
let lease: LeaseMessage | null = null;
const replies = new Map<string, AnyReply>();
const panelCommands: Buffer[] = [];

beforeAll(async () => {
  // Side by side: each waits on a process or a socket, not on the other (each kept for afterAll as it
  // starts, so that it is closed also when the other failed).
  const starting = [startBroker().then((started) => (broker = started)), startSimulator().then((started) => (sim = started))] as const;
  await Promise.allSettled(starting);
  await Promise.all(starting);
  await handLeaseOver(broker, sim, POLL_MS, { authority: members.authority('poller-handover') });
  const client = new RecorderClient({ url: sim.sim.url, token: sim.sim.token, clock: realClock });
  const pollerAuthority = members.authority('poller-a');
  let busPoller: BusPoller | null = null;
  const p = await member(
    broker,
    pollerAuthority,
    (mqtt, log) => {
      const polling = pollingLink(new RecorderPoller('main', client, { pollMs: POLL_MS, slowMs: 1000, time: realTime }));
      busPoller = new BusPoller('main', polling, mqtt, { authority: pollerAuthority, identity: recorderIdentity(sim.sim.url, sim.sim.token), instance: newInstance(), pollMs: POLL_MS, ttlMs: TTL_MS, time: realTime, log, audit: (record) => pollerCommands.push(record) });
      return busPoller;
    },
    { will: (instance) => pollerWill(pollerAuthority, 'main', instance, Date.now()) },
  );
  poller = { ...p, client, link: busPoller as unknown as BusPoller };
  const panelAuthority = members.authority('panel-a');
  const q = await member(broker, panelAuthority, (mqtt) => new BusRecorder('main', mqtt, { authority: panelAuthority, pollMs: POLL_MS, time: realTime }), { surface: true });
  const remote = await startRemoteServer({ time: realTime, bridge: q.bridge, log: q.log, port: 0, alarms: q.alarms.monitor });
  panel = { ...q, surface: q.surface as MemorySurface, remote };
  raw = await connect(broker.url);
  raw.on('message', (topic, payload) => {
    const body = () => (JSON.parse(payload.toString()) as { body: unknown }).body;
    if (topic === MAIN.alarms) published.push(payload);
    else if (topic === MAIN.lease) lease = LeaseMessage.parse(body());
    else if (topic === MAIN.cmd('panel-a')) panelCommands.push(payload);
    else if (topic.startsWith(`${MAIN.base}/reply/`)) {
      const reply = AnyReply.parse(body());
      replies.set(reply.id, reply);
    }
  });
  await raw.subscribeAsync([MAIN.alarms, MAIN.lease, MAIN.cmd('panel-a'), MAIN.reply('+')], { qos: 1 });
  // The lease is claimed as soon as the poller sees it handed over; then the panel sees the state and the alarms.
  await until(() => shown().freshness === 'live' && shown().count === 0, 'the panel showing the alarms, none', WAIT_MS);
}, 60_000);

afterAll(async () => {
  await raw?.endAsync(true);
  await panel?.remote.close();
  await panel?.stop();
  await poller?.stop();
  await poller?.client.close();
  await sim?.close();
  await broker?.close();
}, 60_000);

/** The panel's alarms key. */
function shown(): AlarmsPicture {
  const picture = panel.bridge.session(panel.surface.id)?.describeControls().find((c) => c.control.id === 'key1')?.picture;
  if (picture?.kind !== 'alarms') throw new Error(`key1 shows ${picture?.kind ?? 'nothing'}, not the alarms`);
  return picture;
}

async function panelApi(method: 'GET' | 'POST', path: string): Promise<{ status: number; json: unknown }> {
  const answer = await request(`${panel.remote.url}${path}`, { method });
  return { status: answer.statusCode, json: (await answer.body.json()) as unknown };
}

const panelList = async () => AlarmList.parse((await panelApi('GET', '/alarms')).json);

/**
 * Presses a panel key until its command runs: again when it was not run for a lapse of the bus lease (the
 * panel's view of it, or the holder's) or for the recorder offline in the panel's view (once it is live again):
 * nothing reached the recorder, an operator presses again; at most 4 presses; at once a failure naming
 * the record on anything else. A CI run (2026-11-29, alone) waited 15 s for "channel 3 recording" after
 * one unchecked press and said nothing of what the press met.
 */
async function press(control: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const outcome = nextCommandOf(panel.bridge, control, WAIT_MS);
    panel.surface.press(control);
    const record = await outcome;
    if (record.result === 'ok') return;
    const message = record.message ?? '';
    if (attempt === 4 || !(LAPSED.test(message) || OFFLINE_NOT_SENT.test(message))) throw new Error(`press ${attempt} of ${control} on the panel: ${record.result}: ${message || 'no message'}`);
    // Offline in the panel's view: pressed again once a poll has answered (as an operator would, seeing the key live again).
    if (OFFLINE_NOT_SENT.test(message)) {
      const live = () => {
        const state = panel.bridge.recorderStates()[0];
        return state !== undefined && freshnessOf(state, realTime.now()) === 'live';
      };
      await until(live, 'the recorder live again on the panel', WAIT_MS);
    }
  }
}
const channel3 = (member: Member) => member.bridge.recorderStates()[0]?.channels?.[2];

async function markWrong(wrong: boolean): Promise<void> {
  const answer = await sim.raw('POST', '/_sim/channels/2/wrong', { body: JSON.stringify({ wrong }) });
  expect(answer.status).toBe(200);
}

/**
 * Where each test starts: no fault, no take, no alarm on the poller nor the panel. Takes are started and
 * ended through the poller's own link (recdeck's commands, so no unexpected-stop of ours); a channel
 * with an unexpected stop records again (seen by a poll) and is stopped, which clears it.
 */
async function calm(): Promise<void> {
  await markWrong(false);
  const link = poller.bridge.commandLink('main') as RecorderLink;
  for (const alarm of poller.alarms.monitor.active()) {
    if (alarm.kind !== 'unexpected-stop' || alarm.channel === null) continue;
    const index = alarm.channel - 1;
    await link.call({ method: 'recStart', args: [index] });
    // Until the alarm engine has judged a poll that shows it recording (its alarm gone), not only the
    // bridge's state: stopped again before the engine saw it record, the channel is to the engine still
    // the one that stopped unasked, and the alarm stays (paired run 133 a: "still there: unexpected-stop").
    await until(() => !poller.alarms.monitor.active().some((active) => active.id === alarm.id), 'the stopped channel recording again, its alarm gone', WAIT_MS);
  }
  // The test's own read, not a poll under test: it waits for its answer as long as a wait on a socket may
  // (WAIT_MS), not the client's 2 s poll limit (it timed out so in an e2e run at load 20-25).
  for (const channel of await sim.client.listChannels({ timeoutMs: WAIT_MS })) if (channel.IsRecording) await link.call({ method: 'recStop', args: [channel.Index] });
  // What is still there when the wait fails (paired runs 97 and 106 failed here saying nothing more).
  const left = () => `poller: ${poller.alarms.monitor.active().map((alarm) => `${alarm.id} (${alarm.text})`).join(', ') || 'none'}; panel's key: ${JSON.stringify(shown())}`;
  await until(() => poller.alarms.monitor.active().length === 0 && shown().count === 0, 'no alarm on the poller nor the panel', WAIT_MS).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; still there: ${left()}`);
  });
}

const FAULT = 'channel-fault:main:ch3';

/** Channel 3 recording with a fault, until the panel shows its alarm. */
async function raiseFault(): Promise<void> {
  // Seen stopped first (calm() stops it): a recording seen from before would let the fault be marked
  // before the start arrives, and the simulator's start clears it.
  await until(() => channel3(poller)?.IsRecording === false, 'channel 3 seen stopped', WAIT_MS);
  await press('key2');
  await until(() => channel3(poller)?.IsRecording === true, 'channel 3 recording', WAIT_MS);
  await markWrong(true);
  await until(faultAloneShown, "the panel's alarms key to show the fault, alone", WAIT_MS);
}

/**
 * The panel's alarms key shows the fault and no other alarm: the fault itself, not a count of one. On a
 * loaded machine a late poll raises recorder-stale for a moment (the engine honest about its data's
 * age; it clears at the next poll in time), and a count of one was that alarm in an e2e run at load 25:
 * the tests then acknowledged a fault not yet raised (404, not the 503 or 200 they check).
 */
const faultAloneShown = () => {
  const picture = shown();
  return picture.count === 1 && picture.worst?.word === 'FAULT' && picture.worst.channel === 3;
};

/**
 * The panel's alarms key shows the fault acknowledged, and flashes only for what else waits: the fault is
 * critical, so it is the key's worst whatever else is active, and a recorder-stale that a late poll raises
 * meanwhile (a warning, unacknowledged) is what may still flash (paired runs 161 and 174, load 9-10: counts
 * of 2 where the checks asked for 1).
 */
const faultAckedShown = () => {
  const picture = shown();
  return picture.worst?.word === 'FAULT' && picture.worst.channel === 3 && picture.worst.acked && picture.count !== null && picture.count - picture.waiting === 1;
};

/** The fault as the poller's engine holds it. */
const pollerFault = () => poller.alarms.monitor.active().find((alarm) => alarm.id === FAULT);

/**
 * An acknowledgement as a panel sends it (AlarmAckMessage), from the bare client: signed by `panel` on its
 * command topic under the lease's term with a deadline 2 s ahead, unless `over` says otherwise; the
 * poller's answer (bounded wait).
 */
async function sendAck(panel: string, alarms: AlarmAckMessage['ack']['alarms'], over: Partial<AlarmAckMessage> = {}): Promise<AnyReply> {
  const topic = MAIN.cmd(panel);
  const now = Date.now();
  const body: AlarmAckMessage = { id: randomUUID(), ack: { alarms, by: 'a test' }, term: lease?.term ?? 'no lease heard', sentAt: now, deadline: now + 2000, ...over };
  await raw.publishAsync(topic, members.authority(panel).seal(topic, now, body), { qos: 1 });
  await until(() => replies.has(body.id), `the poller's answer to ${body.id}`, WAIT_MS);
  return replies.get(body.id) as AnyReply;
}

/** Waits for the poller's record of a command, by its id. */
async function pollerRecordOf(id: string): Promise<CommandRecord> {
  await until(() => pollerCommands.some((record) => record.control === `command ${id}`), `the poller's record of ${id}`, WAIT_MS);
  return pollerCommands.find((record) => record.control === `command ${id}`) as CommandRecord;
}

describe('alarms on the state bus', () => {
  beforeEach(() => calm(), 30_000);

  it("a fault at the recorder: the panel lists the poller's alarm and its key shows it; acknowledged from the panel's web API, the poller's engine acknowledges it, naming the panel and who, and the panel shows it only when the poller's list comes back; again, the same answer; cleared, cleared there too", async () => {
    const audited = poller.audit.length;
    const commandsBefore = pollerCommands.length;
    await raiseFault();
    expect(shown()).toMatchObject({ waiting: 1, flashing: true, freshness: 'live', worst: { word: 'FAULT', recorder: 'main', channel: 3, severity: 'critical', acked: false } });
    const listed = await panelList();
    // The fault, and nothing else but a recorder-stale that a late poll may have raised since the key showed
    // the fault alone (the engine honest about its data's age; a whole-suite run at load 10-15, 2026-11-29).
    expect(listed.active.filter((a) => a.kind !== 'recorder-stale').map((a) => [a.id, a.state])).toEqual([[FAULT, 'raised']]);
    // Judged once, by the poller: the panel's own engine raised nothing (its audit is empty).
    expect(panel.audit).toEqual([]);
    expect(poller.audit.slice(audited).filter((r) => r.id === FAULT).map((r) => `${r.alarm} ${r.id}`)).toEqual([`raised ${FAULT}`]);

    // Acknowledged from the panel: sent to the poller, done in its engine (the one owner), which names
    // the panel (its signature) and who at the panel (the web API's client).
    const acked = await panelApi('POST', `/alarms/${encodeURIComponent(FAULT)}/ack`);
    expect(acked.status).toBe(200);
    const by = pollerFault()?.ackedBy;
    expect(by).toMatch(/^bus:panel-a: \S+ \(remote API\)$/);
    expect(acked.json).toMatchObject({ ok: true, alarm: { id: FAULT, state: 'acked', ackedBy: by } });
    expect(poller.audit.slice(audited).filter((r) => r.id === FAULT).map((r) => `${r.alarm} ${r.id} ${r.by ?? ''}`)).toEqual([`raised ${FAULT} `, `acked ${FAULT} ${by}`]);
    expect(pollerCommands.slice(commandsBefore).filter((r) => r.action === 'alarmAck')).toMatchObject([{ surface: 'bus:panel-a', recorder: 'main', request: `acknowledge alarm ${FAULT}`, result: 'ok', message: `${FAULT} acked` }]);
    // Shown on the panel when the poller's list comes back: derived, the panel's engine set nothing.
    await until(faultAckedShown, 'the acknowledgement to reach the panel', WAIT_MS);
    // Nothing else waiting (no recorder-stale meanwhile), the key no longer flashes.
    if (shown().waiting === 0) expect(shown().flashing).toBe(false);
    expect((await panelList()).active.find((alarm) => alarm.id === FAULT)).toMatchObject({ id: FAULT, state: 'acked', ackedBy: by });
    expect(panel.audit).toEqual([]);

    // Again (a second click, another page): the same answer, and nothing more at the poller.
    const again = await panelApi('POST', `/alarms/${encodeURIComponent(FAULT)}/ack`);
    expect(again).toMatchObject({ status: 200, json: { ok: true, alarm: { id: FAULT, state: 'acked', ackedBy: by } } });
    expect(pollerCommands.slice(commandsBefore).filter((r) => r.action === 'alarmAck').map((r) => r.message)).toEqual([`${FAULT} acked`, `${FAULT} already-acked`]);

    await markWrong(false);
    await until(() => shown().count === 0, 'the clear to reach the panel', WAIT_MS);
    const after = await panelList();
    // The fault's entries (a recorder-stale raised by a late poll can be active by then: seen at load 20-25).
    expect(after.active.filter((alarm) => alarm.id === FAULT)).toEqual([]);
    expect(after.cleared.find((alarm) => alarm.id === FAULT)).toMatchObject({ id: FAULT, state: 'cleared' });
    // This alarm's records only: on a loaded machine a late poll may also raise and clear recorder-stale
    // (the engine being honest about its data's age), which is not what this test is about.
    expect(poller.audit.slice(audited).filter((r) => r.id === FAULT).map((r) => `${r.alarm} ${r.id}`)).toEqual([`raised ${FAULT}`, `acked ${FAULT}`, `cleared ${FAULT}`]);
  });

  it("the panel's alarm-ack key acknowledges at the poller, naming the key; the key stops flashing when the poller's list comes back", async () => {
    await raiseFault();
    // The alarm-ack key answers in the panel's log (below), not as a command record.
    panel.surface.press('key0');
    await until(faultAckedShown, "the key's acknowledgement to come back from the poller", WAIT_MS);
    // Nothing else waiting (no recorder-stale meanwhile), the key no longer flashes.
    if (shown().waiting === 0) expect(shown().flashing).toBe(false);
    expect(pollerFault()).toMatchObject({ ackedBy: 'bus:panel-a: memory:panel-a key0' });
    await until(() => panel.log.lines.some((line) => line.includes(`memory:panel-a key0: 1 alarm of "main": ${FAULT} acked`)), "the panel's log of the poller's answer", WAIT_MS);
    expect(panel.audit).toEqual([]);
  });

  it('an acknowledgement that cannot be done is refused with why, audited at the poller, and acknowledges nothing: another lease term, a panel without control, past its deadline, forged; a raise not shown is not acknowledged unseen', async () => {
    await raiseFault();
    const fault = pollerFault();
    if (fault === undefined) throw new Error('no fault at the poller');
    const alarms = [{ id: FAULT, raisedAt: fault.raisedAt }];
    const refusedWith = async (reply: AnyReply, why: RegExp) => {
      expect(reply).toMatchObject({ ok: false, sent: false });
      expect(!reply.ok && reply.error).toMatch(why);
      const record = await pollerRecordOf(reply.id);
      expect(record).toMatchObject({ action: 'alarmAck', result: 'refused' });
      expect(record.message).toMatch(why);
    };

    // The lease moved since the panel saw it: another term is never run.
    await refusedWith(await sendAck('panel-a', alarms, { term: 'another-term-0000' }), /sent under another poller's lease term/);
    // A panel the facility lets only read.
    await refusedWith(await sendAck('gallery', alarms), /does not let "gallery" acknowledge the alarms of "main" \(it needs control there\)/);
    // A copy that arrives after its deadline (held back, or replayed under a new id).
    const now = Date.now();
    await refusedWith(await sendAck('panel-a', alarms, { sentAt: now - 3000, deadline: now - 1000 }), /after its deadline/);
    // Raised again since the raise the panel showed: not acknowledged unseen. And an alarm the poller does not have.
    const unseen = await sendAck('panel-a', [{ id: FAULT, raisedAt: fault.raisedAt - 1 }, { id: 'channel-fault:main:ch9', raisedAt: fault.raisedAt }]);
    expect(unseen).toMatchObject({ ok: true, acks: [{ id: FAULT, outcome: 'raised-again', alarm: { state: 'raised' } }, { id: 'channel-fault:main:ch9', outcome: 'not-active', alarm: null }] });

    // Forged: signed by someone else on panel-a's topic, or not signed at all. Not run, not answered, logged.
    const topic = MAIN.cmd('panel-a');
    const forged: AlarmAckMessage = { id: randomUUID(), ack: { alarms, by: 'a forger' }, term: lease?.term ?? '', sentAt: Date.now(), deadline: Date.now() + 2000 };
    await raw.publishAsync(topic, members.authority('gallery').seal(topic, Date.now(), forged), { qos: 1 });
    await raw.publishAsync(topic, Buffer.from(JSON.stringify({ from: 'panel-a', at: Date.now(), body: { ...forged, id: randomUUID() } })), { qos: 1 });
    await until(() => poller.log.lines.some((line) => line.includes(`signed by "gallery" on "panel-a"'s command topic; not run`)), 'the forgery to be refused', WAIT_MS);
    await until(() => poller.log.lines.some((line) => line.includes('recdeck/main/cmd/panel-a: unsigned (said to be from "panel-a"); not run')), 'the unsigned one to be refused', WAIT_MS);

    // Nothing of it acknowledged anything, at the poller or on the panel.
    expect(pollerFault()).toMatchObject({ ackedAt: null, ackedBy: null });
    expect(replies.has(forged.id)).toBe(false);
    // The fault still waiting on the panel, unacknowledged; beside it at most a recorder-stale that a late
    // poll raised meanwhile (paired run 161 b, load 9-10: a count of 2), as the first test allows.
    expect(shown()).toMatchObject({ worst: { word: 'FAULT', channel: 3, acked: false } });
    expect(shown().waiting).toBe(shown().count);
    const listed = await panelList();
    expect(listed.active.filter((a) => a.kind !== 'recorder-stale').map((a) => [a.id, a.state])).toEqual([[FAULT, 'raised']]);
  });

  it('a genuine acknowledgement replayed after the alarm was raised again acknowledges nothing; one for an alarm cleared meanwhile is answered as done', async () => {
    await raiseFault();
    const from = panelCommands.length;
    expect((await panelApi('POST', `/alarms/${encodeURIComponent(FAULT)}/ack`)).status).toBe(200);
    const genuine = panelCommands.slice(from).find((payload) => 'ack' in ((JSON.parse(payload.toString()) as { body: object }).body));
    if (genuine === undefined) throw new Error("the panel's acknowledgement was not heard on its command topic");
    const firstRaise = pollerFault()?.raisedAt as number;

    // Cleared at the poller; an acknowledgement of that raise now (one the panel sent before it heard the clear): done, idempotent.
    await markWrong(false);
    await until(() => pollerFault() === undefined, 'the fault to clear at the poller', WAIT_MS);
    expect(await sendAck('panel-a', [{ id: FAULT, raisedAt: firstRaise }])).toMatchObject({ ok: true, acks: [{ id: FAULT, outcome: 'cleared', alarm: { state: 'cleared' } }] });

    // Raised again; the captured acknowledgement replayed, byte for byte.
    await markWrong(true);
    await until(() => faultAloneShown() && shown().waiting === 1, 'the fault raised again on the panel', WAIT_MS);
    const { id } = (JSON.parse(genuine.toString()) as { body: AlarmAckMessage }).body;
    const lines = poller.log.lines.length;
    await raw.publishAsync(MAIN.cmd('panel-a'), genuine, { qos: 1 });
    // Remembered until its deadline has passed (answered as before), then past its deadline (refused): never run again.
    await until(() => poller.log.lines.slice(lines).some((line) => line.includes(`command ${id} delivered again; answered as before, not run again`) || (line.includes(`(command ${id})`) && line.includes('refused'))), 'the replay to be turned away', WAIT_MS);
    expect(pollerFault()).toMatchObject({ ackedAt: null, ackedBy: null });
    expect(shown()).toMatchObject({ worst: { word: 'FAULT', channel: 3, acked: false } });
  });

  it('a stop pressed on the panel is recdeck’s own: no unexpected-stop on the poller; a take that stops by itself raises one, shown on the panel', async () => {
    const audited = poller.audit.length;
    /** Waits until the poller's engine has judged for `polls` more polls: longer than the settle time of a command before. */
    const judgedFor = async (polls: number) => {
      const from = poller.alarms.monitor.reading().judgedAt ?? 0;
      await until(() => (poller.alarms.monitor.reading().judgedAt ?? 0) >= from + polls * POLL_MS, `${polls} more judgements`, WAIT_MS);
    };
    await press('key2');
    await until(() => channel3(poller)?.IsRecording === true, 'channel 3 recording', WAIT_MS);
    // Past the start's settle time (2 polls): the stop is recdeck's only if the panel's stop itself counts.
    await judgedFor(4);
    await press('key3');
    await until(() => channel3(poller)?.IsRecording === false, 'channel 3 stopped by the panel', WAIT_MS);
    // Judged for longer than the raise takes (2 polls), plus a margin: nothing.
    await judgedFor(4);
    expect(poller.audit.slice(audited).filter((r) => r.kind === 'unexpected-stop')).toEqual([]);

    // The contrast, so the test can fail: the same take stopped by the recorder itself, past the start's settle time.
    await press('key2');
    await until(() => channel3(poller)?.IsRecording === true, 'channel 3 recording again', WAIT_MS);
    await judgedFor(4);
    expect((await sim.raw('POST', '/_sim/channels/2/stop')).status).toBe(200);
    await until(() => shown().worst?.word === 'STOPPED', 'the unexpected stop on the panel', WAIT_MS);
    expect(poller.audit.slice(audited).filter((r) => r.kind === 'unexpected-stop').map((r) => `${r.alarm} ${r.id}`)).toEqual(['raised unexpected-stop:main:ch3']);
  });

  it('the poller gone silent: its alarms are shown old, not as a live calm, and cannot be acknowledged from the panel', async () => {
    await raiseFault();
    await until(() => shown().freshness === 'live', 'the alarms live');
    // As the process stalling would: nothing more from it (its connection frozen is its silence).
    poller.link.stop();
    await until(() => shown().freshness !== 'live', 'the alarms key to say the alarms are old', WAIT_MS);
    expect(shown().freshness).toBe('stale');
    expect(shown().ageS).not.toBeNull();
    // Its alarm cannot be acknowledged from the panel meanwhile: not sent, said why, nothing done anywhere.
    const refused = await panelApi('POST', `/alarms/${encodeURIComponent(FAULT)}/ack`);
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.json)).toContain('not sent: no poller holds the lease of \\"main\\"');
    expect(pollerFault()?.ackedAt ?? null).toBeNull();
    expect(panel.audit).toEqual([]);
    // Back as a restarted process comes back: subscribed afresh to the lease, so the broker sends it the
    // lease it handed over on stopping and it claims at once. (On the same connection mqtt.js would not
    // send the same subscription again, nor the broker the retained lease: it would wait out its TTL, 2 s.)
    await poller.mqtt.unsubscribeAsync(topicsOf('main').lease);
    poller.link.start();
    await until(() => shown().freshness === 'live', 'the alarms live again with the poller', WAIT_MS);
  });

  it('forged and replayed alarm messages are refused: a panel cannot raise one, nor can an old list bring back a cleared alarm', async () => {
    const topic = topicsOf('main').alarms;
    // A genuine raise, captured as the poller published it, then cleared.
    const from = published.length;
    await press('key2');
    await until(() => channel3(poller)?.IsRecording === true, 'channel 3 recording', WAIT_MS);
    await markWrong(true);
    const raised = () => published.slice(from).find((payload) => AlarmsMessage.parse((JSON.parse(payload.toString()) as { body: unknown }).body).active.map((alarm) => alarm.id).join() === FAULT);
    // The panel and the bare client are two subscribers: under load either may hear the raise first.
    await until(() => faultAloneShown() && raised() !== undefined, 'the raise on the panel and on the bare client', WAIT_MS);
    const raise = raised() as Buffer;
    await calm();

    // Replayed (retained, as an attacker with the broker's ear would): older than the clear, so ignored.
    await raw.publishAsync(topic, raise, { qos: 1, retain: true });
    // Signed by a panel (a member of the facility, but no poller of "main").
    const body: AlarmsMessage = AlarmsMessage.parse((JSON.parse(raise.toString()) as { body: unknown }).body);
    await raw.publishAsync(topic, members.authority('panel-a').seal(topic, Date.now(), body), { qos: 1, retain: true });
    // Unsigned, said to be from the poller.
    await raw.publishAsync(topic, Buffer.from(JSON.stringify({ from: 'poller-a', at: Date.now(), body })), { qos: 1, retain: true });
    await until(() => panel.log.lines.some((line) => /who is not a poller of "main"/.test(line)), 'the forgery to be refused');
    await until(() => panel.log.lines.some((line) => /recdeck\/main\/alarms: unsigned \(said to be from "poller-a"\)/.test(line)), 'the unsigned one to be refused');
    expect(panel.log.lines.some((line) => /recdeck\/main\/alarms: older than the last message from "poller-a" \(a replay\?\)/.test(line))).toBe(true);
    // Nothing of the forgeries on the panel: no fault on its key nor in its list; at most a recorder-stale
    // that a late poll raised meanwhile (paired run 174 b, load 9: one in the list), as the tests above allow.
    expect(shown().worst?.word).not.toBe('FAULT');
    expect((await panelList()).active.filter((alarm) => alarm.kind !== 'recorder-stale')).toEqual([]);
    // The forgeries did not poison the panel: a genuine list, published after them, still counts. (Last,
    // so that no test after it need wait for this raise to clear.)
    await press('key2');
    await until(() => channel3(poller)?.IsRecording === true, 'channel 3 recording again', WAIT_MS);
    await markWrong(true);
    await until(faultAloneShown, 'a genuine raise again', WAIT_MS);
  });
});
