// Alarms on the state bus (issue 36). The poller that holds a recorder's lease is the one that reads it
// and runs every command recdeck sends it (its own and its panels'), so its alarm engine is the one that
// can judge the recorder: it publishes that recorder's active alarms on recdeck/<recorder>/alarms,
// retained and signed like the state parts, at every raise, acknowledgement and clear, when it takes
// the lease and when it reconnects (an empty list when there are none: an empty MQTT payload, which
// deletes a retained message, cannot be signed and so says nothing).
//
// A panel that follows the recorder takes its alarms from there and never judges them again from its
// copy of the state (it cannot know which stops were recdeck's). It believes a message only if the
// facility lets its signer poll the recorder, the signer holds the lease, it is newer than the last from
// that signer (a replay is older; a retained copy no newer), and every alarm in it is about this recorder.
// The alarms are as old as the last renewal of the holder's lease: from a poller gone silent they go
// stale with their age (followed-alarms.ts), never a live calm.
//
// Acknowledging: an alarm is acknowledged where it is judged, once for everyone (the poller's monitor
// audits it, and every panel sees it acknowledged in the next message). A panel's acknowledgement (its
// POST /alarms/{id}/ack, its alarm-ack key) is sent to the lease holder as a signed command of its own
// (bus-alarm-ack.ts) and done there; this panel shows it when the holder's list comes back, never sooner.
import type { MqttClient } from 'mqtt';
import { Subject, Subscription, combineLatest, startWith, type Observable } from 'rxjs';
import type { Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import { alarmWire, type Alarm } from '../engine/alarms/alarm.js';
import type { AlarmReading } from '../engine/alarms/alarm-picture.js';
import { alarmFromWire, mergedReading, type FollowedAck, type FollowedAlarms } from '../engine/alarms/followed-alarms.js';
import { BusCallError } from './bus-recorder.js';
import type { Logger } from '../engine/log.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { BusPoller } from './bus-poller.js';
import type { BusRecorder } from './bus-recorder.js';
import { describeAcks } from './bus-alarm-ack.js';
import type { BusAuthority } from './facility.js';
import { MAX_PAYLOAD_BYTES } from './limits.js';
import { AlarmsMessage, MAX_ACKED_ALARMS, MAX_BUS_ALARMS, checkedTopic, parseBody, topicsOf, type AlarmAckReply } from './topics.js';
import { NewestOnly } from './newest-only.js';

/** An alarms message is at most as large as a state part (500 alarms of about 450 bytes fit). */
const MAX_ALARMS_BYTES = MAX_PAYLOAD_BYTES.part;
/** Cleared alarms a panel keeps per recorder it follows (GET /alarms lists the last ones). */
const CLEARED_KEPT = 100;

/** What the publisher reads of the poller's alarm engine (AlarmMonitor). */
export interface JudgedAlarms {
  activeJudgedHere(): Alarm[];
  readonly changed$: Observable<void>;
}

export interface BusAlarmOptions {
  authority: BusAuthority;
  clock: Clock;
  log: Logger;
}

/** The poller's end: each recorder's alarms published while this process holds its lease. */
export class BusAlarmPublisher {
  private readonly subscription = new Subscription();
  /** What was last published per recorder (its body as JSON); absent: nothing yet since it took the lease or came back. */
  private readonly published = new Map<string, string>();
  private readonly holding = new Set<string>();
  private readonly bad: LogLimiter;

  constructor(
    private readonly alarms: JudgedAlarms,
    private readonly pollers: readonly BusPoller[],
    private readonly mqtt: MqttClient,
    private readonly options: BusAlarmOptions,
  ) {
    this.bad = new LogLimiter((message) => options.log.warn(message), () => options.clock.now());
  }

  start(): void {
    for (const poller of this.pollers) {
      this.subscription.add(
        combineLatest([poller.holding$, this.alarms.changed$.pipe(startWith(undefined))]).subscribe(([holds]) => {
          if (!holds) {
            this.holding.delete(poller.name);
            this.published.delete(poller.name);
            return;
          }
          this.holding.add(poller.name);
          this.publish(poller);
        }),
      );
    }
    this.mqtt.on('connect', this.onConnect);
  }

  stop(): void {
    this.subscription.unsubscribe();
    this.mqtt.off('connect', this.onConnect);
  }

  /** Back on the broker: what it holds retained may be older than a change made while away. */
  private readonly onConnect = (): void => {
    this.published.clear();
    for (const poller of this.pollers) if (this.holding.has(poller.name)) this.publish(poller);
  };

  private publish(poller: BusPoller): void {
    const { name } = poller;
    const active = this.alarms.activeJudgedHere().filter((alarm) => alarm.recorder === name);
    if (active.length > MAX_BUS_ALARMS) this.bad.say(`recorder "${name}": ${active.length} alarms active; the bus carries the worst ${MAX_BUS_ALARMS}`);
    const body: AlarmsMessage = { active: active.slice(0, MAX_BUS_ALARMS).map(alarmWire), judgeEveryMs: poller.state.pollMs };
    const json = JSON.stringify(body);
    if (this.published.get(name) === json) return;
    // Not connected: published when it is (onConnect); nothing is queued, the list then is the one that counts.
    if (!this.mqtt.connected) return;
    let topic: string;
    try {
      topic = checkedTopic(name, topicsOf(name).alarms);
    } catch (error) {
      return this.options.log.error(`recorder "${name}": alarms not published: ${messageOf(error)}`);
    }
    this.published.set(name, json);
    void this.mqtt.publishAsync(topic, this.options.authority.seal(topic, this.options.clock.now(), body), { qos: 1, retain: true }).catch((error: unknown) => {
      this.published.delete(name);
      this.bad.say(`${topic}: could not publish: ${messageOf(error)}`);
    });
  }
}

interface Believed {
  /** The poller that signed it. */
  from: string;
  active: Alarm[];
  judgeEveryMs: number;
}

/** The panel's end: the alarms of the recorders it follows, as their lease holders publish them. */
export class BusAlarms implements FollowedAlarms {
  readonly recorders: ReadonlySet<string>;
  private readonly changes = new Subject<void>();
  private readonly byTopic: ReadonlyMap<string, BusRecorder>;
  private readonly believed = new Map<string, Believed>();
  /** Only messages newer than the last believed from their sender (newest-only.ts). */
  private readonly newestOnly: NewestOnly;
  private clearedList: Alarm[] = [];
  private readonly bad: LogLimiter;

  constructor(
    private readonly links: readonly BusRecorder[],
    private readonly mqtt: MqttClient,
    private readonly options: BusAlarmOptions,
  ) {
    this.recorders = new Set(links.map((link) => link.name));
    this.byTopic = new Map(links.map((link) => [topicsOf(link.name).alarms, link]));
    this.bad = new LogLimiter((message) => options.log.warn(message), () => options.clock.now());
    this.newestOnly = new NewestOnly((message) => this.bad.say(message));
  }

  get changed$(): Observable<void> {
    return this.changes.asObservable();
  }

  start(): void {
    this.mqtt.on('message', this.onMessage);
    if (this.byTopic.size === 0) return;
    void this.mqtt.subscribeAsync([...this.byTopic.keys()], { qos: 1 }).catch((error: unknown) => this.options.log.warn(`recdeck/…/alarms: could not subscribe: ${messageOf(error)}`));
  }

  stop(): void {
    this.mqtt.off('message', this.onMessage);
  }

  reading(): AlarmReading {
    return mergedReading(this.links.map((link) => this.readingOf(link)));
  }

  /** One recorder's: judged as of the last renewal of its holder's lease, and only when the holder signed them. */
  private readingOf(link: BusRecorder): AlarmReading {
    const believed = this.believed.get(link.name);
    const heard = link.holderHeard();
    if (believed === undefined || heard === null || heard.holder !== believed.from) return { active: believed?.active ?? [], judgedAt: null, judgeEveryMs: null };
    return { active: believed.active, judgedAt: heard.at, judgeEveryMs: Math.max(believed.judgeEveryMs, link.state.pollMs) };
  }

  cleared(): readonly Alarm[] {
    return this.clearedList;
  }

  /** Sent to the lease holder of the alarm's recorder (null: no recorder followed here lists it). */
  ack(id: string, by: string): Promise<FollowedAck> | FollowedAck | null {
    for (const link of this.links) {
      const alarm = this.believed.get(link.name)?.active.find((a) => a.id === id);
      if (alarm === undefined) continue;
      const refused = this.mayNotAck(link.name);
      if (refused !== null) return { ok: false, reason: `alarm ${id} not acknowledged: ${refused}`, refusal: 'not-allowed' };
      return link.ackAlarms([{ id, raisedAt: alarm.raisedAt }], by).then(
        ([done]) => ackOutcome(id, link.name, done),
        (error: unknown) => ({ ok: false, reason: `alarm ${id} not acknowledged: ${messageOf(error)}`, refusal: error instanceof BusCallError && error.notRun ? 'not-run' : 'no-answer' }),
      );
    }
    return null;
  }

  /**
   * The alarm-ack key: each followed recorder's alarms waiting for an acknowledgement (the worst
   * MAX_ACKED_ALARMS) sent to its lease holder in one command; how many were sent. What became of them
   * is logged when the holder answers, and shown when its list comes back.
   */
  ackAll(by: string): number {
    let sent = 0;
    for (const link of this.links) {
      const waiting = this.believed.get(link.name)?.active.filter((alarm) => alarm.ackedAt === null) ?? [];
      if (waiting.length === 0) continue;
      const what = `${waiting.length === 1 ? '1 alarm' : `${waiting.length} alarms`} of "${link.name}"`;
      const refused = this.mayNotAck(link.name);
      if (refused !== null) {
        this.options.log.warn(`${by}: ${what} not acknowledged: ${refused}`);
        continue;
      }
      const asked = waiting.slice(0, MAX_ACKED_ALARMS);
      if (asked.length < waiting.length) this.options.log.warn(`${by}: ${what} wait: the worst ${asked.length} are acknowledged now, the rest at the next press`);
      sent += asked.length;
      void link.ackAlarms(asked.map(({ id, raisedAt }) => ({ id, raisedAt })), by).then(
        (acks) => {
          const undone = acks.filter((a) => a.outcome === 'raised-again' || a.outcome === 'not-active');
          const line = `${by}: ${what}: ${describeAcks(acks)} (its poller's answer; shown when its list comes back)`;
          if (undone.length === 0) this.options.log.info(line);
          else this.options.log.warn(line);
        },
        (error: unknown) => this.options.log.warn(`${by}: ${what} not acknowledged: ${messageOf(error)}`),
      );
    }
    return sent;
  }

  /** Why this panel may not acknowledge a recorder's alarms (the facility's leave), or null. */
  private mayNotAck(recorder: string): string | null {
    const { authority } = this.options;
    return authority.mayAckAlarms(authority.id, recorder) ? null : `the facility file does not let "${authority.id}" acknowledge the alarms of "${recorder}" (it needs control there); acknowledge them at its poller or on a panel that may`;
  }

  private readonly onMessage = (topic: string, payload: Buffer): void => {
    const link = this.byTopic.get(topic);
    if (link === undefined) return;
    // A retained message deleted (an empty payload): it cannot be signed, so it says nothing.
    if (payload.length === 0) return;
    const opened = this.options.authority.open(topic, payload, MAX_ALARMS_BYTES);
    if (!opened.ok) return this.bad.say(`${opened.error}; ignored`);
    const { from, at, body } = opened.message;
    const { name } = link;
    if (!this.options.authority.mayPoll(from, name)) return this.bad.say(`${topic}: from "${from}", who is not a poller of "${name}"; ignored`);
    const heard = link.holderHeard();
    if (heard !== null && heard.holder !== from) return this.bad.say(`${topic}: from "${from}", who does not hold the lease ("${heard.holder}" does); ignored`);
    const message = parseBody(AlarmsMessage, topic, body);
    if (!message.ok) return this.bad.say(`${message.error}; ignored`);
    const stranger = message.value.active.find((alarm) => alarm.recorder !== name);
    if (stranger) return this.bad.say(`${topic}: an alarm about "${stranger.recorder}" on the topic of "${name}"; the message is ignored`);
    if (!this.newestOnly.believes(topic, from, at)) return;
    const active = message.value.active.map(alarmFromWire);
    this.clear(this.believed.get(name)?.active ?? [], active);
    this.believed.set(name, { from, active, judgeEveryMs: message.value.judgeEveryMs });
    this.changes.next();
  };


  /** Alarms gone from the list have cleared at the poller: kept as cleared now (this panel's clock; the poller's own list has its time). */
  private clear(before: readonly Alarm[], now: readonly Alarm[]): void {
    const still = new Set(now.map((alarm) => alarm.id));
    const at = this.options.clock.now();
    const ended = before.filter((alarm) => !still.has(alarm.id)).map((alarm) => ({ ...alarm, clearedAt: at }));
    if (ended.length > 0) this.clearedList = [...ended, ...this.clearedList].slice(0, CLEARED_KEPT);
  }
}

/** One alarm's outcome at the holder, as the panel's engine says it (the alarm as the holder holds it; ok when nothing more is to be done). */
function ackOutcome(id: string, recorder: string, done: AlarmAckReply['acks'][number] | undefined): FollowedAck {
  if (done === undefined || done.id !== id) return { ok: false, reason: `alarm ${id} not acknowledged: the poller of "${recorder}" answered for another alarm`, refusal: 'no-answer' };
  const { outcome, alarm } = done;
  if (alarm === null || outcome === 'not-active') return { ok: false, reason: `alarm ${id} not acknowledged: the poller of "${recorder}" has no such active alarm (it may have cleared before this panel heard)`, refusal: 'not-active' };
  if (outcome === 'raised-again') return { ok: false, reason: `alarm ${id} not acknowledged: it was raised again at ${alarm.raisedAt}, after the raise this panel showed; look again`, refusal: 'raised-again' };
  return { ok: true, alarm: alarmFromWire(alarm) };
}
