// The poller's end of the state bus for one recorder. A lease (lease.ts) says which of the pollers
// started for it polls: the holder reads the recorder, publishes each part and its health (retained,
// signed), renews the lease every poll, and runs the commands panels send. The others stand by, showing
// the recorder as the bus does, and claim the lease when its renewals stop.
//
// A command runs only if a panel the facility allows that operation on this recorder signed it on its
// own command topic, under this holder's lease term, before its deadline on this poller's clock (checked
// immediately before the request leaves), within the panel's rate, and once per id. Every command is
// answered on the sender's reply topic and audited: run or refused, by whom, with what result. A panel's
// acknowledgement of alarms is such a command too, run in this process's alarm engine (bus-alarm-ack.ts).
//
// For its own bridge it is a RecorderLink: the polling one while it holds the lease, the bus view
// while it stands by.
import { createHash, randomUUID } from 'node:crypto';
import type { IClientOptions, IPublishPacket, MqttClient } from 'mqtt';
import { BehaviorSubject, Subscription, switchMap, timer, type Observable } from 'rxjs';
import * as z from 'zod';
import type { RequestRecord } from '../api/client.js';
import { messageOf } from '../api/errors.js';
import { operations } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { CommandRecord, Logger } from '../engine/log.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { CallResult, RecorderLink } from '../engine/recorder-link.js';
import { FAST_PARTS, SLOW_PARTS, type RecorderState, type StatePart } from '../engine/recorder-state.js';
import { BusRecorder, SharedChecks } from './bus-recorder.js';
import type { BusAuthority } from './facility.js';
import { holdsAt, initialLease, leaseTransition, leaseWakeAt, type LeaseEffect, type LeaseEvent, type LeaseSettings, type LeaseState } from './lease.js';
import { admit, admitAck, MemberRates, type Refusal } from './admission.js';
import { acknowledgeFromBus, describeAck, describeAcks, type AckableAlarms } from './bus-alarm-ack.js';
import { COOL_DOWN_MS, LEASE_TTL_POLLS, MAX_PAYLOAD_BYTES, REFRESH_RATE, REFUSAL_SUMMARY_MS } from './limits.js';
import { RefusalReport, type RefusalDetail } from './refusal-report.js';
import { MemberLines } from './member-lines.js';
import { RecentCommands } from './recent-commands.js';
import { TokenBucket } from './token-bucket.js';
import { WorkSlices } from './work-slices.js';
import { AlarmAckMessage, CommandMessage, HEALTH_HEARTBEAT_MS, LeaseMessage, PART_VALUES, RefreshMessage, checkedTopic, commandSender, describeCommand, parseBody, topicsOf, type AnyReply, type HealthMessage, type RecorderIdentity, type ReplyMessage } from './topics.js';

const PARTS: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];
/** An acknowledgement of alarms as the audit and the refusal report name it (next to the operations' names). */
const ALARM_ACK = 'alarmAck';

/** Whether a command topic's body is an acknowledgement of alarms (AlarmAckMessage) rather than a call. */
const isAck = (body: unknown): boolean => typeof body === 'object' && body !== null && 'ack' in body;
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface BusPollerOptions {
  /** This poller's id, key and facility. */
  authority: BusAuthority;
  /** The recorder it polls (URL and token hash), so another recorder under the same name is refused. */
  identity: RecorderIdentity;
  pollMs: number;
  /** A lease not renewed for this long expires; default LEASE_TTL_POLLS polls. */
  ttlMs?: number;
  /** This process's random id (its health and last will carry it). */
  instance: string;
  time: EngineTime;
  log?: Logger;
  /** Every command run or refused, as `recdeck run --audit-file` records the bridge's own. */
  audit?: (record: CommandRecord) => void;
  /**
   * The lease's own connection (same login, a client id of its own, nothing else subscribed on it): its
   * renewals and their echoes travel on it, never behind what panels send on the main one (commands
   * queued for this poller by the broker, a flood of them included). The main connection when absent.
   * A renewal goes out only while both are connected: a poller that cannot publish what it reads or
   * hear commands must not hold the lease.
   */
  leaseConnection?: MqttClient;
}

/** A new process instance id. */
export const newInstance = (): string => randomUUID();

/** Which recorder a URL and token reach, as the lease names it (never the token itself). */
export function recorderIdentity(url: string, token: string): RecorderIdentity {
  return { url: new URL(url).origin, tokenSha256Prefix: createHash('sha256').update(token).digest('hex').slice(0, 12) };
}

/** The connection option of a process that polls one recorder: its signed last will says, retained on the health topic, that it is gone. */
export function pollerWill(authority: BusAuthority, recorder: string, instance: string, at: number): Pick<IClientOptions, 'will'> {
  const topic = topicsOf(recorder).health;
  const gone: HealthMessage = { online: false, instance };
  return { will: { topic, payload: authority.seal(topic, at, gone), qos: 1, retain: true } };
}

/**
 * Every lease message goes at QoS 1, renewals too: Mosquitto 2.0 drops a QoS 0 message to a client that
 * has more than its Receive Maximum plus max_queued_messages (1000) waiting (2.0.11: messages queued or
 * in flight; later 2.0s: packets not yet written), so a flood queued for the poller made the broker drop
 * the poller's own renewals on their way back to it (measured: "none of its renewals came back for
 * 1078 ms" at a 750 ms lease, at the flood's start); at QoS 1 they wait behind it instead. An
 * acknowledgement per renewal (four a second at the default poll) is nothing.
 */
const LEASE_QOS = 1;

/**
 * The poller takes commands from the broker at QoS 0 (panels publish them at QoS 1, so the broker has
 * them), so that they take none of its window of unacknowledged QoS 1 messages (Receive Maximum), which
 * its lease renewals need, and are not acknowledged one by one. QoS 1 on this leg bought nothing a command needs: the session is clean, so nothing unacknowledged is
 * sent again after a reconnect either way, and on one connection TCP loses nothing; a command lost with
 * a connection fails at its panel by its deadline as before, and is never run late or twice (deadline,
 * de-duplication by id). And no acknowledgement is written per command (one writev each: 350 ms of a
 * 3 s flood in the profile).
 */
const COMMAND_QOS = 0;

/**
 * A poller's own lease terms remembered (BusPoller.ownTerms): a claim is made at most once a TTL, so these
 * span many TTLs, far longer than any command may wait (its deadline is at most MAX_DEADLINE_AHEAD_MS ahead).
 */
const OWN_TERMS_KEPT = 16;

/** Refresh buckets are kept per sender; on an insecure bus (anyone is anyone) the map is cut back at this size. */
const MAX_RATED_MEMBERS = 1000;

export class BusPoller implements RecorderLink {
  readonly address: string;
  private readonly topics: ReturnType<typeof topicsOf>;
  private readonly view: BusRecorder;
  /** What this poller published, so that its view and its lease do not check their own echoes' signatures (SharedChecks.sealedHere). */
  private readonly ownEchoes = new SharedChecks();
  /** Where the lease is renewed and heard (options.leaseConnection, else the main connection). */
  private readonly leaseMqtt: MqttClient;
  private readonly active = new BehaviorSubject(false);
  private readonly recent = new RecentCommands<Promise<AnyReply>>();
  /** Each member's reads, and its writes, run one after another (member-lines.ts). */
  private readonly lines = new MemberLines();
  private readonly refreshBuckets = new Map<string, TokenBucket>();
  private readonly rates = new MemberRates(MAX_RATED_MEMBERS);
  private readonly refusals: RefusalReport;
  /** Refreshes and commands past their arrival checks, read and run in slices after the lease (work-slices.ts). */
  private readonly work: WorkSlices;
  private readonly time: EngineTime;
  private readonly log: Logger;
  private readonly bad: LogLimiter;
  private readonly settings: LeaseSettings;
  private lease: LeaseState;
  /**
   * The terms of this poller's last claims (OWN_TERMS_KEPT, newest last), held or not, kept after they are
   * lost: a command sent under one of them is this poller's to answer (readCommand), never left to another.
   */
  private readonly ownTerms: string[] = [];
  private wake: Subscription | null = null;
  private summaries: Subscription | null = null;
  private publishing: Subscription | null = null;
  /** Members whose command topic is unsubscribed for a cool-down: when it is subscribed again. */
  private readonly resubscribing = new Map<string, Subscription>();
  private published: Partial<Record<StatePart, number>> = {};
  /** The health last published (its JSON), when (publish()), and one waiting for the next millisecond (sendHealth()). */
  private lastHealth = '';
  private healthSentAt = 0;
  private healthLater: Subscription | null = null;
  private started = false;
  /** Issue 36: the link panels' commands run through (the bridge's, which counts recdeck's own commands for the alarm engine); the polling one until given. */
  private commandLink: RecorderLink | null = null;
  /** The alarm engine that judges this recorder while this poller holds its lease: panels' acknowledgements run in it (bus-alarm-ack.ts); none until given. */
  private alarms: AckableAlarms | null = null;

  constructor(
    readonly name: string,
    private readonly polling: RecorderLink,
    private readonly mqtt: MqttClient,
    private readonly options: BusPollerOptions,
  ) {
    this.topics = topicsOf(name);
    this.address = polling.address;
    this.leaseMqtt = options.leaseConnection ?? mqtt;
    this.time = options.time;
    this.log = options.log ?? silent;
    this.bad = new LogLimiter((message) => this.log.warn(message), () => this.time.now());
    this.work = new WorkSlices(this.time, (error) => this.log.error(`recorder "${name}": reading a message failed: ${messageOf(error)}`));
    this.refusals = new RefusalReport(name, (line) => this.log.warn(line), options.audit, REFUSAL_SUMMARY_MS);
    this.settings = { recorder: name, me: options.authority.id, identity: options.identity, renewMs: options.pollMs, ttlMs: options.ttlMs ?? LEASE_TTL_POLLS * options.pollMs };
    this.lease = initialLease(this.time.now());
    this.view = new BusRecorder(name, mqtt, { authority: options.authority, pollMs: options.pollMs, time: this.time, log: this.log, sharedChecks: this.ownEchoes });
  }

  get id(): string {
    return this.options.authority.id;
  }

  /** Whether this poller holds the lease but its renewals come back so late that it is one renewal from losing it (also in its log). */
  get fallingBehind(): boolean {
    return this.lease.behind;
  }

  /** Whether this poller holds the lease (polls and publishes). */
  get holding$(): Observable<boolean> {
    return this.active.asObservable();
  }

  get state$(): Observable<RecorderState> {
    return this.active.pipe(switchMap((active) => (active ? this.polling.state$ : this.view.state$)));
  }

  get state(): RecorderState {
    return this.active.value ? this.polling.state : this.view.state;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.view.start();
    this.lease = initialLease(this.time.now());
    this.mqtt.on('message', this.onMessage);
    if (this.leaseMqtt !== this.mqtt) this.leaseMqtt.on('message', this.onLeaseMessage);
    this.summaries = timer(REFUSAL_SUMMARY_MS, REFUSAL_SUMMARY_MS, this.time.scheduler).subscribe(() => this.refusals.flush(this.time.now()));
    const failed = (error: unknown) => this.log.warn(`${this.topics.all}: could not subscribe: ${messageOf(error)}`);
    if (this.leaseMqtt !== this.mqtt) void this.leaseMqtt.subscribeAsync(this.topics.lease, { qos: 1 }).catch(failed);
    void this.mqtt.subscribeAsync(this.leaseMqtt === this.mqtt ? [this.topics.lease, this.topics.refresh] : this.topics.refresh, { qos: 1 }).catch(failed);
    void this.mqtt.subscribeAsync(this.commandTopics(), { qos: COMMAND_QOS }).catch(failed);
    this.schedule();
  }

  stop(): void {
    if (this.active.value) {
      // Handed over at once: a last renewal that expires now, and the health a lost connection's will would say.
      const own = this.lease.own;
      if (own) this.send(this.topics.lease, { recorder: this.name, identity: this.settings.identity, holder: this.id, term: own.term, epoch: own.epoch, renewedAt: this.time.now(), ttlMs: 1 } satisfies LeaseMessage, 1, true);
      this.send(this.topics.health, { online: false, instance: this.options.instance } satisfies HealthMessage, 1, true);
    }
    this.started = false;
    this.wake?.unsubscribe();
    this.summaries?.unsubscribe();
    this.summaries = null;
    // What was only counted so far is audited now, not lost with the process (refusal-report.ts). Messages
    // still waiting to be read are dropped unread, as if still on the wire (their panels say "no answer"
    // by their deadlines): not read, they have no id or sender to audit, so their number is logged.
    this.refusals.flush(this.time.now(), true);
    const unread = this.work.clear();
    if (unread > 0) this.log.warn(`recorder "${this.name}": ${unread} message${unread === 1 ? '' : 's'} not yet read dropped as this poller stops (each panel says "no answer" by its command's deadline)`);
    for (const resubscribe of this.resubscribing.values()) resubscribe.unsubscribe();
    this.resubscribing.clear();
    this.mqtt.off('message', this.onMessage);
    this.leaseMqtt.off('message', this.onLeaseMessage);
    this.standBy();
    this.view.stop();
  }

  refresh(slow = false): void {
    if (this.holds()) this.polling.refresh(slow);
    else this.view.refresh(slow);
  }

  nextReadNumber(part: StatePart): number {
    return this.active.value ? this.polling.nextReadNumber(part) : this.view.nextReadNumber(part);
  }

  call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    return this.holds() ? this.polling.call(call) : this.view.call(call);
  }

  observe(observer: (record: RequestRecord) => void): () => void {
    return this.polling.observe(observer);
  }

  /**
   * Issue 36: runs the panels' commands through `link` (the bridge's link to this poller): a stop a panel
   * commands is recdeck's own, counted where the bridge counts its own, so no unexpected-stop alarm.
   */
  runCommandsThrough(link: RecorderLink): void {
    this.commandLink = link;
  }

  /** Panels' acknowledgements of this recorder's alarms are run in `alarms` (this process's alarm engine, which judges it while this poller holds the lease). */
  ackAlarmsIn(alarms: AckableAlarms): void {
    this.alarms = alarms;
  }

  /**
   * The command topics this poller subscribes to: on a secure bus one per panel the facility lets call
   * anything here, so that the broker drops, unsent, the commands of a panel in a cool-down (its topic
   * unsubscribed: coolDown) and of anyone the facility does not list; on an insecure bus every panel's.
   */
  private commandTopics(): string[] {
    const panels = this.options.authority.panelsOf(this.name);
    return panels === null ? [this.topics.cmds] : panels.map((panel) => this.topics.cmd(panel));
  }

  /**
   * A member over its rate again and again: its command topic is unsubscribed until the cool-down ends, so
   * the broker drops its flood instead of sending it here (each message costs the poller a parse and an
   * acknowledgement even when dropped unread). What the broker had queued for this poller before still
   * arrives, and is dropped unread (onCommand). On an insecure bus (one subscription for all) the messages
   * still arrive and are dropped unread.
   */
  private coolDown(member: string, until: number): void {
    if (this.options.authority.panelsOf(this.name) === null || this.resubscribing.has(member)) return;
    const topic = this.topics.cmd(member);
    const failed = (what: string) => (error: unknown) => this.bad.say(`${topic}: could not ${what}: ${messageOf(error)}`);
    void this.mqtt.unsubscribeAsync(topic).catch(failed('unsubscribe during its cool-down'));
    const resubscribe = timer(Math.max(0, until - this.time.now()), this.time.scheduler).subscribe(() => {
      this.resubscribing.delete(member);
      if (this.started) void this.mqtt.subscribeAsync(topic, { qos: COMMAND_QOS }).catch(failed('subscribe again after its cool-down'));
    });
    this.resubscribing.set(member, resubscribe);
  }

  private holds(): boolean {
    return holdsAt(this.lease, this.settings, this.time.now());
  }

  /**
   * The receive path (mqtt.js's, ahead of every timer): the lease is handled here at once; a refresh or
   * a command only gets its checks that cost microseconds, and the rest of its work is queued for the
   * slices (work-slices.ts), so that no flood holds a renewal or its echo behind it.
   */
  private readonly onMessage = (topic: string, payload: Buffer, packet: IPublishPacket): void => {
    // On the main connection too when the view follows the recorder there; only the lease's own counts then.
    if (topic === this.topics.lease) return this.leaseMqtt === this.mqtt ? this.onLease(payload, packet.retain) : undefined;
    if (topic === this.topics.refresh) {
      if (!this.work.add(() => this.onRefresh(payload, packet.retain))) this.bad.say(`${topic}: ${this.work.maxQueued} messages wait to be read already; this refresh is ignored`);
      return;
    }
    const sender = commandSender(this.name, topic);
    if (sender !== null) this.onCommand(topic, sender, payload, packet.retain);
  };

  /** The lease's own connection (options.leaseConnection): nothing but the lease is read there. */
  private readonly onLeaseMessage = (topic: string, payload: Buffer, packet: IPublishPacket): void => {
    if (topic === this.topics.lease) this.onLease(payload, packet.retain);
  };

  private onLease(payload: Buffer, retained: boolean): void {
    const opened = this.ownEchoes.open(this.options.authority, this.topics.lease, payload, MAX_PAYLOAD_BYTES.lease);
    if (!opened.ok) return this.bad.say(`${opened.error}; this lease is ignored`);
    const { from, body } = opened.message;
    if (!this.options.authority.mayPoll(from, this.name)) return this.bad.say(`${this.topics.lease}: signed by "${from}", who is not a poller of "${this.name}"; this lease is ignored`);
    const message = parseBody(LeaseMessage, this.topics.lease, body);
    if (!message.ok) return this.bad.say(`${message.error}; this lease is ignored`);
    const lease = message.value;
    if (lease.holder !== from || lease.recorder !== this.name) return this.bad.say(`${this.topics.lease}: a lease for "${lease.recorder}" held by "${lease.holder}", signed by "${from}"; ignored`);
    this.step({ kind: 'lease', lease, retained, now: this.time.now() });
  }

  private step(event: LeaseEvent): void {
    const { state, effects } = leaseTransition(this.lease, event, this.settings, randomUUID);
    if (state.holding !== this.lease.holding) this.log.debug?.(`recorder "${this.name}": ${state.holding ? 'this poller holds the lease now' : 'this poller no longer holds the lease'}`);
    this.lease = state;
    for (const effect of effects) this.apply(effect);
    this.schedule();
  }

  private apply(effect: LeaseEffect): void {
    switch (effect.kind) {
      case 'publish':
        if (effect.claim) this.claimed(effect.lease.term);
        return this.send(this.topics.lease, effect.lease, LEASE_QOS, true);
      case 'hold':
        return this.takeOver();
      case 'release':
        return this.standBy();
      case 'log':
        return this.log[effect.level](effect.message);
    }
  }

  /** Remembers a term this poller claims (see ownTerms), forgetting the oldest beyond OWN_TERMS_KEPT. */
  private claimed(term: string): void {
    this.ownTerms.push(term);
    if (this.ownTerms.length > OWN_TERMS_KEPT) this.ownTerms.shift();
  }

  /** Ticks the lease when its next renewal, lapse or expiry is due. */
  private schedule(): void {
    if (!this.started) return;
    this.wake?.unsubscribe();
    const delay = Math.max(0, leaseWakeAt(this.lease, this.settings) - this.time.now());
    this.wake = timer(delay, this.time.scheduler).subscribe(() => this.step({ kind: 'tick', now: this.time.now() }));
  }

  private takeOver(): void {
    if (this.active.value || !this.started) return;
    this.active.next(true);
    this.published = {};
    this.lastHealth = '';
    this.polling.start();
    this.publishing = this.polling.state$.subscribe((state) => this.publish(state));
  }

  private standBy(): void {
    if (!this.active.value) return;
    this.publishing?.unsubscribe();
    this.publishing = null;
    this.healthLater?.unsubscribe();
    this.healthLater = null;
    this.polling.stop();
    this.active.next(false);
  }

  /**
   * Health first (a new poller's numbering starts with it), then each part read since the last
   * publication. Health goes out when what it says changes, and at least every HEALTH_HEARTBEAT_MS while
   * the state moves: it says nothing about age (each part carries its own readAt, and a panel derives
   * lastGoodAt from them), so it does not move with every read (it went out 3 times a poll, 43 % of what
   * every panel checked). The heartbeat makes good a change lost while the broker was away (send()
   * queues nothing); liveness is the lease's renewals, every poll.
   */
  private publish(state: RecorderState): void {
    if (!this.holds()) return;
    const health = this.healthOf(state);
    const key = JSON.stringify(health);
    if (key !== this.lastHealth || this.time.now() - this.healthSentAt >= HEALTH_HEARTBEAT_MS) {
      this.lastHealth = key;
      this.sendHealth();
    }
    for (const part of PARTS) {
      if (this.published[part] === state.readNumber[part] && this.published[part] !== undefined) continue;
      this.published[part] = state.readNumber[part];
      const value = state[part];
      const schema: z.ZodType = PART_VALUES[part];
      this.send(this.topics.part(part), { value: value === null ? null : z.encode(schema, value), readAt: state.readAt[part], readNumber: state.readNumber[part] }, 0, true);
    }
  }

  private healthOf(state: RecorderState): HealthMessage {
    return { online: true, instance: this.options.instance, pollMs: state.pollMs, slowMs: state.slowMs, failures: state.failures, lastError: state.lastError, unreachable: state.unreachable };
  }

  /**
   * The health as it is now, at most one a millisecond: a panel believes a message only if it was sent
   * later than the last on its topic (newest-only.ts), and two reads answered in one millisecond (a
   * failure, then a recovery) gave two healths of one time, the second ignored until the next change or
   * heartbeat. A second one in the same millisecond goes 1 ms later, saying what holds then.
   */
  private sendHealth(): void {
    const now = this.time.now();
    if (now > this.healthSentAt) {
      this.healthSentAt = now;
      return this.send(this.topics.health, this.healthOf(this.polling.state), 1, true);
    }
    this.healthLater ??= timer(1, this.time.scheduler).subscribe(() => {
      this.healthLater = null;
      if (this.holds()) this.sendHealth();
    });
  }

  /**
   * Everything this poller publishes goes through here: the topic checked against MQTT's rules and this
   * recorder's tree (a bad one would make the broker drop the connection), the message signed. Nothing is
   * queued while the broker is away: a newer state, renewal or answer supersedes it.
   */
  private send(topic: string, body: unknown, qos: 0 | 1, retain: boolean): void {
    let checked: string;
    try {
      checked = checkedTopic(this.name, topic);
    } catch (error) {
      return this.log.error(`recorder "${this.name}": not published: ${messageOf(error)}`);
    }
    // The lease on its own connection, and only while the main one is up too (leaseConnection).
    const connection = checked === this.topics.lease ? this.leaseMqtt : this.mqtt;
    if (!this.mqtt.connected || !connection.connected) return;
    const payload = this.options.authority.seal(checked, this.time.now(), body);
    this.ownEchoes.sealedHere(checked, payload);
    void connection.publishAsync(checked, payload, { qos, retain }).catch((error: unknown) => this.bad.say(`${checked}: could not publish: ${messageOf(error)}`));
  }

  private onRefresh(payload: Buffer, retained: boolean): void {
    const topic = this.topics.refresh;
    if (retained) return this.bad.say(`${topic}: a retained refresh; ignored`);
    const opened = this.options.authority.open(topic, payload, MAX_PAYLOAD_BYTES.refresh);
    if (!opened.ok) return this.bad.say(`${opened.error}; ignored`);
    const { from, body } = opened.message;
    if (!this.options.authority.mayCallAnything(from, this.name)) return this.bad.say(`${topic}: from "${from}", who may call nothing on "${this.name}"; ignored`);
    if (!this.holds()) return;
    const message = parseBody(RefreshMessage, topic, body);
    if (!message.ok) return this.bad.say(`${message.error}; ignored`);
    if (!this.refreshBucketOf(from).take(this.time.now())) return this.bad.say(`${topic}: "${from}" asks for reads more than ${REFRESH_RATE.perS} times a second; this one is ignored`);
    this.polling.refresh(message.value.slow);
  }

  private refreshBucketOf(panel: string): TokenBucket {
    let bucket = this.refreshBuckets.get(panel);
    if (!bucket) {
      if (this.refreshBuckets.size >= MAX_RATED_MEMBERS) this.refreshBuckets.clear(); // an insecure bus: anyone is anyone
      bucket = new TokenBucket(REFRESH_RATE.perS, REFRESH_RATE.burst, this.time.now());
      this.refreshBuckets.set(panel, bucket);
    }
    return bucket;
  }

  /**
   * Admits a command or refuses it, cheaply and before anything is kept for it (admission.ts); runs an
   * admitted one once per id and answers on the sender's reply topic. Refusals are answered too (but not
   * during a cool-down), and logged and audited through the refusal report (a first line, then a count).
   */
  private onCommand(topic: string, sender: string, payload: Buffer, retained: boolean): void {
    if (retained) return this.bad.say(`${topic}: a retained command (commands are never retained; it may be days old); not run`);
    const now = this.time.now();
    // Dropped unread: the topic's last level is the sender's login (the broker's ACL), and it is cooling down.
    if (this.rates.coolingDown(sender, now)) return this.refusals.counted(sender, 'ignored in a cool-down', now);
    // Counted against the topic's member before its signature is checked (admission.ts): over its rate, not even read.
    const arrival = this.rates.arrive(sender, now);
    if (arrival?.verdict === 'refuse') return this.refusals.refused(sender, arrival.refusal, { id: null, method: null, request: 'a message' }, now);
    if (arrival?.verdict === 'cool-down') return this.startCoolDown(sender, arrival.refusal, arrival.until, now);
    // Past the bound of what waits to be read (a flood of all members together): dropped unread, so with
    // no id to answer or audit it under; counted for its member, summed up in the audit (refusal-report.ts).
    if (!this.work.add(() => this.readCommand(topic, sender, payload, now))) this.refusals.counted(sender, `dropped unread: ${this.work.maxQueued} messages wait to be read already`, now);
  }

  /**
   * A command that passed its arrival checks, read in a slice: its signature, body and admission. Its
   * member's rate is judged at `arrivedAt`, when it reached this poller: judged when read, a loaded
   * poller that reads slower than the bucket refills would never find a flood over its rate.
   */
  private readCommand(topic: string, sender: string, payload: Buffer, arrivedAt: number): void {
    const now = this.time.now();
    // It may have been queued before its member's cool-down started: dropped unread as the later ones are.
    if (this.rates.coolingDown(sender, now)) return this.refusals.counted(sender, 'ignored in a cool-down', now);
    const opened = this.options.authority.open(topic, payload, MAX_PAYLOAD_BYTES.cmd);
    if (!opened.ok) return this.bad.say(`${opened.error}; not run`);
    const { from, body } = opened.message;
    if (from !== sender) return this.bad.say(`${topic}: signed by "${from}" on "${sender}"'s command topic; not run`);
    // An acknowledgement of alarms is told from a call by its one member: `ack` (bus-alarm-ack.ts).
    const message = isAck(body) ? parseBody(AlarmAckMessage, topic, body) : parseBody(CommandMessage, topic, body);
    if (!message.ok) {
      this.refusals.refused(from, { kind: 'not a command', why: message.error }, { id: null, method: null, request: 'a message' }, now);
      return;
    }
    const command = message.value;
    // The holder answers (and refuses a term that is not its own: a panel's stale one). A poller that
    // lost the lease still answers what was sent under any term it claimed (ownTerms: only it could run
    // such a command, terms are drawn at random per claim, so its refusal races no other answer); it was
    // the last term it held only, and a command under an earlier one read while it held no lease was
    // dropped unanswered and unaudited (issue 31: a frozen link, a lapse, a claim and a lost claim, then
    // the thaw; test/bus/answered-or-audited.test.ts). A command under a term this poller never claimed, while it
    // does not hold the lease, is left to that term's holder, unanswered and unaudited here by design: an
    // old holder woken from a stall counts itself active until it hears of the new one, and its "not run"
    // could reach the panel before the holder's answer that it ran; and a standby receives every command
    // its holder runs (an audit line each would fill its audit). If that holder is gone, the panel says so
    // at the command's deadline ("no answer by its deadline", bus-recorder.ts send).
    const underMine = this.ownTerms.includes(command.term);
    if (!underMine && !(this.active.value && holdsAt(this.lease, this.settings, now))) return;
    const known = this.recent.get(command.id);
    if (known !== undefined) {
      this.log.info(`${topic}: command ${command.id} delivered again; answered as before, not run again`);
      return this.answer(topic, from, command.id, known);
    }
    if ('ack' in command) return this.admitAck(topic, from, command, arrivedAt, now);
    const admission = admit(from, command, { recorder: this.name, mayCall: (member, method) => this.options.authority.mayCall(member, this.name, method), rates: this.rates, now: arrivedAt });
    const detail = { id: command.id, method: command.call.method, request: describeCommand(command.call) };
    if (admission.verdict === 'cool-down') return this.startCoolDown(from, admission.refusal, admission.until, now);
    if (admission.verdict === 'refuse') return this.refuse(topic, from, admission.refusal, detail, now);
    const arrived = { wall: now, precise: this.time.precise() };
    const taken = this.recent.once(command.id, command.deadline, now, () => this.run(from, command, admission.call, arrived));
    if (taken === null) return this.refuse(topic, from, { kind: 'too many commands in flight', why: `it has ${this.recent.size} commands in flight (at most ${this.recent.maxEntries})` }, detail, now);
    this.answer(topic, from, command.id, taken.result);
  }

  /** An acknowledgement of alarms: admitted as a write (admission.ts: admitAck), run once per id. */
  private admitAck(topic: string, from: string, command: AlarmAckMessage, arrivedAt: number, now: number): void {
    const admission = admitAck(from, command, { recorder: this.name, mayAck: (member) => this.options.authority.mayAckAlarms(member, this.name), rates: this.rates, now: arrivedAt });
    const detail = { id: command.id, method: ALARM_ACK, request: describeAck(command.ack) };
    if (admission.verdict === 'cool-down') return this.startCoolDown(from, admission.refusal, admission.until, now);
    if (admission.verdict === 'refuse') return this.refuse(topic, from, admission.refusal, detail, now);
    const arrived = { wall: now, precise: this.time.precise() };
    const taken = this.recent.once(command.id, command.deadline, now, () => Promise.resolve(this.runAck(from, command, arrived)));
    if (taken === null) return this.refuse(topic, from, { kind: 'too many commands in flight', why: `it has ${this.recent.size} commands in flight (at most ${this.recent.maxEntries})` }, detail, now);
    this.answer(topic, from, command.id, taken.result);
  }

  /**
   * An admitted acknowledgement, run in the alarm engine in this turn: the lease it was sent under, the
   * lease and its deadline on the clock read now, then every alarm at once (nothing awaited in between,
   * so none is acknowledged by a poller that no longer holds the lease, and none is half done). It waits
   * in no member's line: it does not reach the recorder, so a slow or offline recorder (when alarms matter
   * most) does not hold it.
   */
  private runAck(from: string, command: AlarmAckMessage, arrived: { wall: number; precise: number }): AnyReply {
    const { id } = command;
    const request = describeAck(command.ack);
    const finish = (reply: AnyReply, result: CommandRecord['result'], message: string): AnyReply => {
      const latencyMs = this.time.precise() - arrived.precise;
      this.options.audit?.({ at: arrived.wall, surface: `bus:${from}`, control: `command ${id}`, action: ALARM_ACK, recorder: this.name, request: result === 'ok' ? request : null, result, message, requestAfterMs: null, latencyMs });
      const line = `recorder "${this.name}": ${request} for "${from}" (${command.ack.by}; command ${id}): ${result}: ${message}`;
      if (result === 'ok') this.log.info(line);
      else this.log.warn(line);
      return reply;
    };
    const refuse = (why: string) => finish({ id, ok: false, sent: false, error: `"${this.id}" refused it: ${why}` }, 'refused', why);
    const now = this.time.now();
    const notUnder = this.notUnderLease(command.term, now);
    if (notUnder !== null) return refuse(notUnder);
    if (now >= command.deadline) return refuse(arrived.wall >= command.deadline ? `it arrived ${arrived.wall - command.deadline} ms after its deadline` : `it was read ${now - command.deadline} ms after its deadline`);
    if (this.alarms === null) return refuse('this poller runs no alarm engine');
    const acks = acknowledgeFromBus(this.alarms, this.name, from, command.ack);
    return finish({ id, ok: true, acks }, 'ok', describeAcks(acks));
  }

  /** Why a command sent under lease `term` may not run here at `now` (this poller no longer holds that lease), or null. */
  private notUnderLease(term: string, now: number): string | null {
    if (!holdsAt(this.lease, this.settings, now)) return `it no longer holds the lease it was sent under (${this.lease.seen?.holder === this.id ? 'no renewal came back in time' : `"${this.lease.seen?.holder ?? '?'}" holds it now`})`;
    if (term !== this.lease.own?.term) return this.ownTerms.includes(term) ? 'it was sent under an earlier lease term of this poller, which it lost (the lease changed since)' : "it was sent under another poller's lease term (the poller changed since)";
    return null;
  }

  private startCoolDown(member: string, refusal: Refusal, until: number, now: number): void {
    this.log.warn(`recorder "${this.name}": ${refusal.why}, refused ones included: its commands are dropped unanswered for ${COOL_DOWN_MS / 1000} s`);
    this.coolDown(member, until);
    this.refusals.counted(member, refusal.kind, now);
  }

  /**
   * Answers on the sender's reply topic once the result is known (it is audited by then). While the bus is
   * not connected the answer is not queued (send()): said here, so the log tells why the panel heard
   * nothing (it says "no answer" by the command's deadline, as for a command lost on the way).
   */
  private answer(topic: string, from: string, id: string, result: Promise<AnyReply>): void {
    void result.then(
      (reply) => {
        if (!this.mqtt.connected) return this.bad.say(`${topic}: the answer to command ${id} was not sent: the state bus is not connected`);
        this.send(this.topics.reply(from), reply, 1, false);
      },
      (error: unknown) => this.log.error(`${topic}: command ${id}: ${messageOf(error)}`),
    );
  }

  private refuse(topic: string, from: string, refusal: Refusal, detail: RefusalDetail & { id: string }, now: number): void {
    this.refusals.refused(from, refusal, detail, now);
    this.answer(topic, from, detail.id, Promise.resolve({ id: detail.id, ok: false, sent: false, error: `"${this.id}" refused it: ${refusal.why}` }));
  }

  /** An admitted command: the lease it was sent under, then the lease and the deadline again just before the request leaves. */
  private async run(from: string, command: CommandMessage, call: ClientCall, arrived: { wall: number; precise: number }): Promise<ReplyMessage> {
    const { id } = command;
    const operation = operations[call.method];
    const request = describeCommand(call);
    let requestAfterMs: number | null = null;
    const finish = (reply: ReplyMessage, result: CommandRecord['result']): ReplyMessage => {
      const latencyMs = this.time.precise() - arrived.precise;
      const message = reply.ok ? null : (reply.serviceMessage ?? reply.error);
      this.options.audit?.({ at: arrived.wall, surface: `bus:${from}`, control: `command ${id}`, action: call.method, recorder: this.name, request: requestAfterMs === null ? null : request, result, message, requestAfterMs, latencyMs });
      const line = `recorder "${this.name}": ${request} for "${from}" (command ${id}): ${result}${message === null ? '' : `: ${message}`} (${Math.round(latencyMs)} ms)`;
      if (result === 'ok') this.log.info(line);
      else this.log.warn(line);
      return reply;
    };
    // Refused here, after admission: as many as the member's rate lets through, so each is audited (a copy sent again after a failover, a lapse).
    const refuse = (why: string) => finish({ id, ok: false, sent: false, error: `"${this.id}" refused it: ${why}` }, 'refused');
    // Its turn in the member's line for its kind (member-lines.ts): another member's commands never wait
    // behind this member's burst, and its own run in the order admitted. Everything below is checked at the turn.
    return this.lines.inTurn(from, operation.method === 'GET' ? 'reads' : 'writes', async () => {
      const notUnder = this.notUnderLease(command.term, this.time.now());
      if (notUnder !== null) return refuse(notUnder);
      // The lease and the deadline last, on the clock read now: nothing is awaited from here until the
      // request is handed to the recorder client (which sends it within its own time limit, or never).
      const sendAt = this.time.now();
      if (!holdsAt(this.lease, this.settings, sendAt)) return refuse('its lease has lapsed (no renewal came back in time)');
      if (sendAt >= command.deadline) {
        // Past it when read (a loaded poller reads late), or only after waiting in the member's line.
        const late = arrived.wall >= command.deadline ? `it arrived ${arrived.wall - command.deadline} ms after its deadline` : `its turn came ${sendAt - command.deadline} ms after its deadline (it waited ${sendAt - arrived.wall} ms behind ${from}'s earlier ${operation.method === 'GET' ? 'reads' : 'writes'})`;
        return refuse(late);
      }
      requestAfterMs = this.time.precise() - arrived.precise;
      try {
        const value: unknown = await (this.commandLink ?? this.polling).call(call); // issue 36: commandLink
        const readsAfter = Object.fromEntries(PARTS.map((part) => [part, this.polling.nextReadNumber(part)])) as Record<StatePart, number>;
        const response: z.ZodType = operation.response;
        return finish({ id, ok: true, ...(value === undefined ? {} : { value: z.encode(response, value) }), readsAfter }, 'ok');
      } catch (error) {
        const serviceMessage = (error as { serviceMessage?: string }).serviceMessage;
        return finish({ id, ok: false, sent: true, error: messageOf(error), ...(serviceMessage === undefined ? {} : { serviceMessage }) }, 'failed');
      }
    });
  }
}
