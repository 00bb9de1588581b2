// A recorder seen through the state bus: its state is what the lease holder last published (retained,
// signed), as old as the holder's reads; its calls go to the holder as signed commands and come back as
// signed replies. It holds no URL and no token, and believes only what a poller the facility allows for
// this recorder signed. When no renewal of the lease arrives for its TTL, the holder's last will says it
// is gone, or this panel loses the broker, the state stops being renewed: parts age into stale, and
// after a few intervals without a poller the recorder counts as offline.
//
// A command is sent only while this panel is connected and the recorder is not offline; it carries its
// lease term and a deadline on the poller's clock, and an answer not back by the time it can no longer
// start counts as failed, with what is known: it did not start after then.
import { randomUUID, type KeyObject } from 'node:crypto';
import type { IPublishPacket, MqttClient } from 'mqtt';
import { BehaviorSubject, Subscription, timer, type Observable } from 'rxjs';
import * as z from 'zod';
import { messageOf } from '../api/errors.js';
import { operations } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';
import type { EngineTime } from '../engine/engine-time.js';
import type { Logger } from '../engine/log.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { CallResult, RecorderLink } from '../engine/recorder-link.js';
import { FAST_PARTS, SLOW_PARTS, freshnessOf, initialRecorderState, offlineReason, oldestReadAt, type RecorderState, type StatePart } from '../engine/recorder-state.js';
import { commandArgsOf } from './command-args.js';
import { openEnvelope, type OpenResult, type Opened } from './envelope.js';
import { ClockOffset } from './clock-offset.js';
import type { BusAuthority } from './facility.js';
import { isNewer } from './lease.js';
import { COMMAND_DEADLINE_MS, LEASE_TTL_POLLS, MAX_PAYLOAD_BYTES, RECORDER_REQUEST_LIMIT_MS, REPLY_MARGIN_MS } from './limits.js';
import { describeAck } from './bus-alarm-ack.js';
import { AnyReply, HealthMessage, LeaseMessage, PART_MESSAGES, describeCommand, parseBody, topicsOf, type AlarmAckMessage, type AlarmAckReply, type CommandMessage } from './topics.js';
import { NewestOnly } from './newest-only.js';

export interface BusRecorderOptions {
  /** Who this panel is, how it signs and whose messages it believes. */
  authority: BusAuthority;
  /** Until the poller's health says otherwise; default 250 ms. */
  pollMs?: number;
  /** How long after sending a command may still start at the poller; default COMMAND_DEADLINE_MS. */
  deadlineMs?: number;
  time: EngineTime;
  /** "sent" lines (info) and bad bus input (warn, a few per window). */
  log?: Logger;
  /** Signature checks shared with the other panels of this process (SharedChecks); each message is checked by this link alone without. */
  sharedChecks?: SharedChecks;
}

const PARTS: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];
const NO_READS: Record<StatePart, number> = { channels: 0, sync: 0, dialog: 0, sources: 0, resources: 0, schedule: 0, conversion: 0 };
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A command that did not succeed. notRun: it was not sent, or the poller refused it, so it did not run
 * and never will; otherwise it may have run (the recorder refused it, or no answer came in time).
 */
export class BusCallError extends Error {
  constructor(
    message: string,
    readonly notRun: boolean,
    readonly serviceMessage?: string,
  ) {
    super(message);
  }
}

type Settle = (reply: AnyReply | null) => void;

/** The recent checks kept per topic: 4 s of the busiest topic (a part, 4 a second at the default poll). */
const CHECKS_KEPT_PER_TOPIC = 16;

interface Checked {
  payload: Buffer;
  maxBytes: number;
  /** The key the sender's signature was checked with. */
  key: KeyObject;
  message: Opened;
}

/**
 * The state messages lately checked on each topic, shared by the links of one process that runs several
 * panels (the facility bench's panels' processes, 20 panels each): the 5 following one recorder receive
 * the same bytes once each, and each checked the signature and parsed the body again (the Ed25519
 * checks were 29 % of such a process's CPU, 0.2-0.4 ms each on this machine, and 100 panels never came
 * live). Made once where the process wires its panels and given to each link
 * (BusRecorderOptions.sharedChecks); a panel alone needs none.
 *
 * The last few per topic, not only the last: a busy process reads a connection's backlog in one go, so
 * its first panel has checked several messages of a topic before the next panel reads the first of them
 * (with only the last kept, 41 % of a 20-panel process's CPU was still Ed25519 at a load of 20). A check
 * is reused only for the same topic, the same bytes, the same size limit and, in the reader's own
 * facility, the same key for its sender; anything else is checked as before. Replies (one panel's own)
 * are never kept.
 */
export class SharedChecks {
  private readonly recent = new Map<string, Checked[]>();
  /** Payloads this process sealed itself, the last few per topic (sealedHere). */
  private readonly sealed = new Map<string, Buffer[]>();
  /** What opened messages were parsed to, by the message the checks gave every link (entries go with it). */
  private readonly parsedOf = new WeakMap<Opened, Map<z.ZodType, ReturnType<typeof parseBody>>>();

  /** The message opened by `authority` (size, form, signature), or the same check made for another link moments ago. */
  open(authority: BusAuthority, topic: string, payload: Buffer, maxBytes: number): OpenResult {
    const kept = this.recent.get(topic) ?? [];
    const same = kept.find((c) => c.maxBytes === maxBytes && c.payload.equals(payload) && authority.publicKeyOf(c.message.from) === c.key);
    if (same !== undefined) return { ok: true, message: same.message };
    // Its own bytes, heard back: size and form are checked, the signature is known to be this process's.
    const own = this.sealed.get(topic)?.some((sealed) => sealed.equals(payload)) === true;
    const opened = own ? openEnvelope(topic, payload, maxBytes, null) : authority.open(topic, payload, maxBytes);
    // Only what a facility's key vouches for: on an insecure bus nothing is checked, so nothing is saved.
    const key = opened.ok && authority.secure ? authority.publicKeyOf(opened.message.from) : null;
    if (!opened.ok || key === null) return opened;
    // A copy: the payload mqtt.js hands over may be a view of a whole socket read, kept alive 16 times a topic otherwise.
    kept.push({ payload: Buffer.from(payload), maxBytes, key, message: opened.message });
    if (kept.length > CHECKS_KEPT_PER_TOPIC) kept.shift();
    this.recent.set(topic, kept);
    this.parsedOf.set(opened.message, new Map());
    return opened;
  }

  /**
   * A payload this process has just sealed with its own key and is publishing. When the broker hands it
   * back (a poller's own state, health and lease, heard by its view and its lease), open() does not
   * check its signature again: the same bytes, byte for byte, can only be the ones it signed (checking
   * each echo was about a quarter of a poller's CPU, measured under the insiders flood). Anything else on
   * the topic, a copy altered by one byte included, is checked as before.
   */
  sealedHere(topic: string, payload: Buffer): void {
    const kept = this.sealed.get(topic) ?? [];
    kept.push(payload);
    if (kept.length > CHECKS_KEPT_PER_TOPIC) kept.shift();
    this.sealed.set(topic, kept);
  }

  /**
   * The body of a message read by `schema`, once for all the links given the same message by open():
   * the value is shared, as every state value is (never changed, only replaced).
   */
  parse<S extends z.ZodType>(schema: S, topic: string, message: Opened): ReturnType<typeof parseBody<S>> {
    const memo = this.parsedOf.get(message);
    const known = memo?.get(schema) as ReturnType<typeof parseBody<S>> | undefined;
    if (known !== undefined) return known;
    const result = parseBody(schema, topic, message.body);
    memo?.set(schema, result);
    return result;
  }
}

export class BusRecorder implements RecorderLink {
  readonly address: string;
  private readonly subject: BehaviorSubject<RecorderState>;
  private readonly topics: ReturnType<typeof topicsOf>;
  private readonly replyTopic: string;
  private readonly pending = new Map<string, Settle>();
  private readonly readsAfter: Record<StatePart, number> = { ...NO_READS };
  private readonly time: EngineTime;
  private readonly log: Logger;
  private readonly bad: LogLimiter;
  private readonly offset = new ClockOffset();
  private readonly subscription = new Subscription();
  /** The lease as last seen (its signature a poller's of this recorder), and when a renewal of it last arrived. */
  private lease: LeaseMessage | null = null;
  private renewalSeenAt: number;
  private expiry: Subscription | null = null;
  /** The holder's last word on the recorder, and whose (id and process) it was. */
  private health: Extract<HealthMessage, { online: true }> | null = null;
  private publisher: string | null = null;
  /** Only messages newer than the last believed from their sender (newest-only.ts). */
  private readonly newestOnly: NewestOnly;
  /** Counts intervals without a poller, as failures, until it is back. */
  private gone: Subscription | null = null;
  private started = false;

  constructor(
    readonly name: string,
    private readonly mqtt: MqttClient,
    private readonly options: BusRecorderOptions,
  ) {
    this.topics = topicsOf(name);
    this.address = `mqtt ${this.topics.all}`;
    this.replyTopic = this.topics.reply(options.authority.id);
    this.time = options.time;
    this.log = options.log ?? silent;
    this.bad = new LogLimiter((message) => this.log.warn(message), () => this.time.now());
    this.newestOnly = new NewestOnly((message) => this.bad.say(message));
    this.renewalSeenAt = this.time.now();
    this.subject = new BehaviorSubject(initialRecorderState(name, options.pollMs ?? 250));
  }

  get state$(): Observable<RecorderState> {
    return this.subject.asObservable();
  }

  get state(): RecorderState {
    return this.subject.value;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.renewalSeenAt = this.time.now();
    this.mqtt.on('message', this.onMessage);
    this.mqtt.on('close', this.onBrokerLost);
    this.expectRenewal();
    // The lease first: the retained states that follow are judged by who holds it.
    void this.mqtt.subscribeAsync([this.topics.lease, this.topics.health, ...PARTS.map((part) => this.topics.part(part)), this.replyTopic], { qos: 1 }).catch((error: unknown) => this.log.warn(`${this.address}: could not subscribe: ${messageOf(error)}`));
  }

  stop(): void {
    this.started = false;
    this.mqtt.off('message', this.onMessage);
    this.mqtt.off('close', this.onBrokerLost);
    this.gone?.unsubscribe();
    this.gone = null;
    this.expiry?.unsubscribe();
    this.subscription.unsubscribe();
    for (const settle of this.pending.values()) settle(null);
  }

  refresh(slow = false): void {
    if (!this.mqtt.connected) return; // never queued: a refresh is only worth something now
    const topic = this.topics.refresh;
    void this.mqtt.publishAsync(topic, this.options.authority.seal(topic, this.time.now(), { slow }), { qos: 0 }).catch(() => undefined);
  }

  nextReadNumber(part: StatePart): number {
    return Math.max(this.readsAfter[part], this.state.readNumber[part] + 1);
  }

  observe(): () => void {
    // This link makes no request to the recorder itself; the poller does, and counts them.
    return () => undefined;
  }

  // Alarms on the bus (issue 36): a panel believes the alarms only of the lease holder, and ages them by its renewals.
  /** The lease holder as last seen, and when a renewal of its lease last arrived (this panel's clock); null before any lease. */
  holderHeard(): { holder: string; at: number } | null {
    return this.lease === null ? null : { holder: this.lease.holder, at: this.renewalSeenAt };
  }

  async call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    const what = `${describeCommand(call)} on "${this.name}"`;
    const notSent = (why: string) => new BusCallError(`not sent: ${why}; ${what} did not run`, true);
    if (!this.mqtt.connected) throw notSent('this panel is not connected to the state bus');
    if (freshnessOf(this.state, this.time.now()) === 'offline') throw notSent(`the recorder is offline (${offlineReason(this.state)})`);
    const wire = commandArgsOf(call);
    if (!wire.ok) throw notSent(wire.error);
    const answer = await this.send(what, (fields) => ({ ...fields, call: { method: call.method, args: wire.args } }));
    if (!answer.ok) throw new BusCallError(answer.sent ? answer.error : `${answer.error}; ${what} did not run`, !answer.sent, answer.serviceMessage);
    if ('acks' in answer) throw new BusCallError(`the poller answered ${call.method} as an acknowledgement of alarms`, false);
    for (const part of PARTS) this.readsAfter[part] = Math.max(this.readsAfter[part], answer.readsAfter[part]);
    const response: z.ZodType = operations[call.method].response;
    const parsed = response.safeParse(answer.value);
    if (!parsed.success) throw new BusCallError(`the poller's answer to ${call.method} is not what the recorder answers: ${parsed.error.issues[0]?.message ?? 'invalid'}`, false);
    return parsed.data as CallResult<C>;
  }

  /**
   * Acknowledges alarms of this recorder in its lease holder's alarm engine (bus-alarm-ack.ts): each with
   * the raise this panel showed, `by` who at this panel. What became of each, as the holder answers; a
   * BusCallError when it did not run (notRun) or no answer came. Sent whether the recorder answers its
   * poller or not (its alarms matter most then); only a lease holder heard from can take it.
   */
  async ackAlarms(alarms: AlarmAckMessage['ack']['alarms'], by: string): Promise<AlarmAckReply['acks']> {
    const ack = { alarms, by };
    const what = `${describeAck(ack)} on "${this.name}"`;
    if (!this.mqtt.connected) throw new BusCallError(`not sent: this panel is not connected to the state bus; ${what} was not done`, true);
    const answer = await this.send(what, (fields) => ({ ...fields, ack }));
    if (!answer.ok) throw new BusCallError(`${answer.error}; ${what} was not done`, true);
    if (!('acks' in answer)) throw new BusCallError(`the poller answered ${what} as a call on the recorder`, false);
    return answer.acks;
  }

  /**
   * Sends a command (a call or an acknowledgement) to the lease holder under its term, with a deadline on
   * its clock, and waits for its answer; throws a BusCallError when no holder is heard (not sent) or no
   * answer comes by the time it can no longer start.
   */
  private async send(what: string, body: (fields: Pick<CommandMessage, 'id' | 'term' | 'sentAt' | 'deadline'>) => CommandMessage | AlarmAckMessage): Promise<AnyReply> {
    const lease = this.lease;
    if (lease === null || this.gone !== null) throw new BusCallError(`not sent: no poller holds the lease of "${this.name}"; ${what} did not run`, true);
    const now = this.time.now();
    const id = randomUUID();
    const deadlineMs = this.options.deadlineMs ?? COMMAND_DEADLINE_MS;
    // On the poller's clock: ours less the measured offset.
    const sentAt = now - this.offset.ms;
    const command = body({ id, term: lease.term, sentAt, deadline: sentAt + deadlineMs });
    // The latest moment it can start, on our clock: its deadline, then the recorder client's own limit.
    const lastStart = command.deadline + this.offset.ms + RECORDER_REQUEST_LIMIT_MS;
    const topic = this.topics.cmd(this.options.authority.id);
    const published = (error?: Error) => {
      // The broker's refusal (an MQTT 5 reason code) or a client already closing: it reached nobody.
      if (error && (typeof (error as { code?: unknown }).code === 'number' || this.mqtt.disconnecting)) this.pending.get(id)?.({ id, ok: false, sent: false, error: `the broker did not take it (${error.message})` });
    };
    const reply = new Promise<AnyReply | null>((resolve) => {
      const timeout = timer(lastStart - now + REPLY_MARGIN_MS, this.time.scheduler).subscribe(() => settle(null));
      const settle: Settle = (value) => {
        timeout.unsubscribe();
        this.pending.delete(id);
        // Given up: take it out of the client's store, so a reconnect does not send it again (the poller would refuse it: past its deadline).
        if (value === null) this.forget(published);
        resolve(value);
      };
      this.pending.set(id, settle);
    });
    this.log.info(`${this.topics.base}: sent ${what} (command ${id}, term ${lease.term.slice(0, 8)}, may start until ${clockTime(lastStart)})`);
    this.mqtt.publish(topic, this.options.authority.seal(topic, sentAt, command), { qos: 1, properties: { messageExpiryInterval: Math.ceil(deadlineMs / 1000) } }, published);
    const answer = await reply;
    if (answer === null) throw new BusCallError(`no answer by its deadline: it did not start after ${clockTime(lastStart)}; check the state (${what})`, false);
    return answer;
  }

  /** Removes a publication from the client's store of those waiting for the broker's acknowledgement. */
  private forget(callback: (error?: Error) => void): void {
    for (const [messageId, entry] of Object.entries(this.mqtt.outgoing)) {
      if (entry.cb === callback) this.mqtt.removeOutgoingMessage(Number(messageId));
    }
  }

  private readonly onMessage = (topic: string, payload: Buffer, packet: IPublishPacket): void => {
    const kind = topic === this.replyTopic ? 'reply' : topic === this.topics.lease ? 'lease' : topic === this.topics.health ? 'health' : PARTS.find((p) => this.topics.part(p) === topic);
    if (kind === undefined) return;
    if (kind === 'reply' && packet.retain) return this.bad.say(`${topic}: a retained reply (replies are never retained); ignored`);
    const maxBytes = kind === 'reply' || kind === 'lease' || kind === 'health' ? MAX_PAYLOAD_BYTES[kind] : MAX_PAYLOAD_BYTES.part;
    const shared = kind === 'reply' ? undefined : this.options.sharedChecks;
    const opened = shared === undefined ? this.options.authority.open(topic, payload, maxBytes) : shared.open(this.options.authority, topic, payload, maxBytes);
    if (!opened.ok) return this.bad.say(`${opened.error}; ignored`);
    const { from, at } = opened.message;
    if (!this.options.authority.mayPoll(from, this.name)) return this.bad.say(`${topic}: from "${from}", who is not a poller of "${this.name}"; ignored`);
    // A lease too is believed only if newer than the last from its holder: once a dead holder's lease has
    // expired, its last renewals replayed would otherwise count as renewals again.
    if (kind === 'lease') return this.newestOnly.believes(topic, from, at) ? this.onLease(topic, from, opened.message, packet.retain) : undefined;
    if (this.lease !== null && from !== this.lease.holder) return this.bad.say(`${topic}: from "${from}", who does not hold the lease ("${this.lease.holder}" does); ignored`);
    if (!packet.retain) this.offset.sample(this.time.now(), at);
    if (kind === 'reply') return this.onReply(topic, opened.message.body);
    if (kind === 'health') return this.onHealth(topic, from, at, opened.message, packet.retain);
    if (!this.newestOnly.believes(topic, from, at)) return;
    this.onPart(kind, topic, opened.message);
  };

  /** A state message's body read by its schema (once for the process's panels with SharedChecks). */
  private parse<S extends z.ZodType>(schema: S, topic: string, message: Opened): ReturnType<typeof parseBody<S>> {
    return this.options.sharedChecks?.parse(schema, topic, message) ?? parseBody(schema, topic, message.body);
  }


  private onLease(topic: string, from: string, opened: Opened, retained: boolean): void {
    const message = this.parse(LeaseMessage, topic, opened);
    if (!message.ok) return this.bad.say(message.error);
    const lease = message.value;
    if (lease.holder !== from || lease.recorder !== this.name) return this.bad.say(`${topic}: a lease for "${lease.recorder}" held by "${lease.holder}", signed by "${from}"; ignored`);
    // An old holder's, a replay, or a copy, while the lease seen is live. Once it has expired it orders
    // nothing: a fresh poller that never saw it (a forged retained lease hid it) claims epoch 1, and
    // must not be ignored by a panel that still remembers the dead holder's higher epoch.
    if (!isNewer(lease, this.lease) && !this.leaseExpired()) return;
    if (lease.holder !== this.lease?.holder || lease.term !== this.lease.term) this.log.debug?.(`${this.topics.base}: the lease is "${lease.holder}"'s now (term ${lease.term.slice(0, 8)}, epoch ${lease.epoch})`);
    this.lease = lease;
    if (retained) return;
    this.offset.sample(this.time.now(), lease.renewedAt);
    this.renewalSeenAt = this.time.now();
    this.expectRenewal();
    this.pollerBack();
  }

  /** Whether no renewal of the lease seen has arrived for its TTL. */
  private leaseExpired(): boolean {
    return this.lease !== null && this.time.now() - this.renewalSeenAt >= this.lease.ttlMs;
  }

  /** Without a renewal for the lease's TTL, the poller counts as gone. */
  private expectRenewal(): void {
    this.expiry?.unsubscribe();
    const ttlMs = this.lease?.ttlMs ?? LEASE_TTL_POLLS * this.state.pollMs;
    this.expiry = timer(Math.max(0, this.renewalSeenAt + ttlMs - this.time.now()), this.time.scheduler).subscribe(() =>
      this.pollerGone(this.lease === null ? `no poller has published "${this.name}"` : `the poller "${this.lease.holder}" has not renewed its lease for ${this.time.now() - this.renewalSeenAt} ms`),
    );
  }

  private onReply(topic: string, body: unknown): void {
    const reply = parseBody(AnyReply, topic, body);
    if (!reply.ok) return this.bad.say(reply.error);
    this.pending.get(reply.value.id)?.(reply.value);
  }

  private onPart(part: StatePart, topic: string, opened: Opened): void {
    const message = this.parse(PART_MESSAGES[part], topic, opened);
    if (!message.ok) return this.bad.say(message.error);
    const { value, readAt, readNumber } = message.value;
    const state = this.state;
    const next: RecorderState = { ...state, [part]: value, readAt: { ...state.readAt, [part]: readAt }, readNumber: { ...state.readNumber, [part]: readNumber } };
    // lastGoodAt as the poller has it (it reads every part): the oldest of the state polls' good answers,
    // here those this panel holds. Derived, never taken from the health: every part carries its age.
    next.lastGoodAt = oldestReadAt(next, FAST_PARTS);
    this.subject.next(next);
  }

  private onHealth(topic: string, from: string, at: number, opened: Opened, retained: boolean): void {
    const message = this.parse(HealthMessage, topic, opened);
    if (!message.ok) return this.bad.say(message.error);
    const health = message.value;
    if (!health.online) {
      // Only the will of the process we follow counts (an old one, replayed, names another). A will is
      // signed when its poller connects, so it is older than that poller's healths: not ordered by time.
      if (this.health === null || this.health.instance === health.instance) this.pollerGone(`the poller "${from}" is gone`);
      return;
    }
    if (!this.newestOnly.believes(topic, from, at)) return;
    const publisher = `${from}/${health.instance}`;
    if (this.publisher !== publisher) {
      // A new poller numbers its reads from 1: forget the old numbers so its reads count.
      this.subject.next({ ...this.state, readNumber: { ...NO_READS } });
      Object.assign(this.readsAfter, NO_READS);
      this.publisher = publisher;
    }
    this.health = health;
    if (!retained) this.pollerBack();
    if (this.gone === null) this.applyHealth();
  }

  private applyHealth(): void {
    if (this.health === null) return;
    const { pollMs, slowMs, failures, lastError, unreachable } = this.health;
    this.subject.next({ ...this.state, pollMs, slowMs, failures, lastError, unreachable });
  }

  /** A live word from the poller: it is not gone, and its own account of the recorder holds again. */
  private pollerBack(): void {
    if (this.gone === null) return;
    this.gone.unsubscribe();
    this.gone = null;
    this.applyHealth();
  }

  private readonly onBrokerLost = (): void => this.pollerGone('the state bus cannot be reached');

  /** No poller: one failure now and one more every two intervals, unreachable, so the keys go stale, then offline. */
  private pollerGone(reason: string): void {
    if (this.gone) return;
    const fail = () => this.subject.next({ ...this.state, failures: this.state.failures + 1, unreachable: true, lastError: reason });
    fail();
    this.gone = timer(2 * this.state.pollMs, 2 * this.state.pollMs, this.time.scheduler).subscribe(fail);
  }
}

/** A moment on this machine's clock as HH:MM:SS.mmm (local time, as the log shows it). */
function clockTime(ms: number): string {
  const at = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}
