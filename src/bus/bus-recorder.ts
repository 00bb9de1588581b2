// A recorder seen through the state bus: its state is what the poller last published (retained), as
// old as the poller's reads; its calls go to the poller as commands and come back as replies. It
// holds no URL and no token. When the poller's last will says it is gone (or this panel loses the
// broker), the state stops being renewed: parts age into stale, and after a few intervals without a
// poller the recorder counts as offline, as a poller that cannot reach it would show it.
import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { BehaviorSubject, Subscription, timer, type Observable } from 'rxjs';
import * as z from 'zod';
import { operations } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';
import { realTime, type EngineTime } from '../engine/engine-time.js';
import type { CallResult, RecorderLink } from '../engine/recorder-link.js';
import { FAST_PARTS, SLOW_PARTS, initialRecorderState, type RecorderState, type StatePart } from '../engine/recorder-state.js';
import { HealthMessage, PART_VALUES, ReplyMessage, partMessage, parseMessage, topicsOf, type CommandMessage } from './topics.js';

export interface BusRecorderOptions {
  /** Until the poller's health says otherwise; default 250 ms. */
  pollMs?: number;
  /** How long a command waits for its reply before it counts as failed (never retried); default 5000 ms. */
  replyTimeoutMs?: number;
  time?: EngineTime;
  /** Messages that do not parse, said once each. */
  warn?: (message: string) => void;
}

const PARTS: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];

/** A command's reply could not be had, or the recorder refused it; `serviceMessage` is the recorder's own word. */
export class BusCallError extends Error {
  constructor(
    message: string,
    readonly serviceMessage?: string,
  ) {
    super(message);
  }
}

export class BusRecorder implements RecorderLink {
  readonly address: string;
  private readonly subject: BehaviorSubject<RecorderState>;
  private readonly topics: ReturnType<typeof topicsOf>;
  private readonly replyTopic: string;
  private readonly pending = new Map<string, (reply: ReplyMessage | null) => void>();
  private readonly readsAfter: Record<StatePart, number> = { channels: 0, sync: 0, dialog: 0, sources: 0, resources: 0, schedule: 0, conversion: 0 };
  private readonly time: EngineTime;
  private readonly replyTimeoutMs: number;
  private readonly subscription = new Subscription();
  /** The poller whose health we last saw online: only its last will counts. */
  private poller: string | null = null;
  /** Counts intervals without a poller, as failures, until it is back. */
  private gone: Subscription | null = null;
  private started = false;

  constructor(
    readonly name: string,
    private readonly mqtt: MqttClient,
    private readonly options: BusRecorderOptions = {},
  ) {
    this.topics = topicsOf(name);
    this.address = `mqtt ${this.topics.all}`;
    this.replyTopic = this.topics.replies(randomUUID());
    this.time = options.time ?? realTime;
    this.replyTimeoutMs = options.replyTimeoutMs ?? 5000;
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
    this.mqtt.on('message', this.onMessage);
    this.mqtt.on('close', this.onBrokerLost);
    void this.mqtt.subscribeAsync([...PARTS.map((part) => this.topics.part(part)), this.topics.health, this.replyTopic], { qos: 1 }).catch((error: unknown) => this.options.warn?.(`${this.address}: could not subscribe: ${String(error)}`));
  }

  stop(): void {
    this.started = false;
    this.mqtt.off('message', this.onMessage);
    this.mqtt.off('close', this.onBrokerLost);
    this.gone?.unsubscribe();
    this.subscription.unsubscribe();
    for (const settle of this.pending.values()) settle(null);
  }

  refresh(slow = false): void {
    void this.mqtt.publishAsync(this.topics.refresh, JSON.stringify({ slow }), { qos: 0 }).catch(() => undefined);
  }

  nextReadNumber(part: StatePart): number {
    return Math.max(this.readsAfter[part], this.state.readNumber[part] + 1);
  }

  observe(): () => void {
    // This link makes no request to the recorder itself; the poller does, and counts them.
    return () => undefined;
  }

  async call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    const id = randomUUID();
    const command: CommandMessage = { id, call: { method: call.method, args: call.args as CommandMessage['call']['args'] }, replyTo: this.replyTopic };
    const reply = new Promise<ReplyMessage | null>((resolve) => {
      const timeout = timer(this.replyTimeoutMs, this.time.scheduler).subscribe(() => settle(null));
      const settle = (value: ReplyMessage | null) => {
        timeout.unsubscribe();
        this.pending.delete(id);
        resolve(value);
      };
      this.pending.set(id, settle);
    });
    await this.mqtt.publishAsync(this.topics.cmd, JSON.stringify(command), { qos: 1 });
    const answer = await reply;
    if (answer === null) throw new BusCallError(`no answer from the poller of "${this.name}" within ${this.replyTimeoutMs} ms (not retried; it may or may not have run)`);
    if (!answer.ok) throw new BusCallError(answer.error, answer.serviceMessage);
    for (const part of PARTS) this.readsAfter[part] = Math.max(this.readsAfter[part], answer.readsAfter[part]);
    const response: z.ZodType = operations[call.method].response;
    const parsed = response.safeParse(answer.value);
    if (!parsed.success) throw new BusCallError(`the poller's answer to ${call.method} is not what the recorder answers: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data as CallResult<C>;
  }

  private readonly onMessage = (topic: string, payload: Buffer): void => {
    if (topic === this.replyTopic) return this.onReply(payload);
    if (topic === this.topics.health) return this.onHealth(payload);
    const part = PARTS.find((p) => this.topics.part(p) === topic);
    if (part) this.onPart(part, payload);
  };

  private onReply(payload: Buffer): void {
    const reply = parseMessage(ReplyMessage, this.replyTopic, payload);
    if (!reply.ok) return this.options.warn?.(reply.error);
    this.pending.get(reply.value.id)?.(reply.value);
  }

  private onPart(part: StatePart, payload: Buffer): void {
    const message = parseMessage(partMessage(PART_VALUES[part]), this.topics.part(part), payload);
    if (!message.ok) return this.options.warn?.(message.error);
    const { value, readAt, readNumber } = message.value;
    const state = this.state;
    this.subject.next({ ...state, [part]: value, readAt: { ...state.readAt, [part]: readAt }, readNumber: { ...state.readNumber, [part]: readNumber } });
  }

  private onHealth(payload: Buffer): void {
    const message = parseMessage(HealthMessage, this.topics.health, payload);
    if (!message.ok) return this.options.warn?.(message.error);
    const health = message.value;
    if (!health.online) {
      // Only the poller we follow (or, before any, whoever it was) being gone counts; a standby's will does not.
      if (this.poller === null || this.poller === health.poller) this.pollerGone(`the poller "${health.poller}" is gone`);
      return;
    }
    if (this.poller !== health.poller) {
      // A new poller numbers its reads from 1: forget the old numbers so its reads count.
      const none = { channels: 0, sync: 0, dialog: 0, sources: 0, resources: 0, schedule: 0, conversion: 0 };
      this.subject.next({ ...this.state, readNumber: none });
      Object.assign(this.readsAfter, none);
    }
    this.poller = health.poller;
    this.gone?.unsubscribe();
    this.gone = null;
    const { pollMs, slowMs, lastGoodAt, failures, lastError, unreachable } = health;
    this.subject.next({ ...this.state, pollMs, slowMs, lastGoodAt, failures, lastError, unreachable });
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
