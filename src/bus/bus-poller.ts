// The poller's end of the state bus for one recorder. A lease (retained on the bus) says which of the
// pollers started for it polls: the holder reads the recorder, publishes each part and its health
// (retained), and runs the commands panels send, each id once. The others stand by, showing the
// recorder as the bus does, and claim the lease as soon as the holder's last will says it is gone.
// For its own bridge it is a RecorderLink: the polling one while it holds the lease, the bus view
// while it stands by.
import { randomUUID } from 'node:crypto';
import type { IClientOptions, MqttClient } from 'mqtt';
import { BehaviorSubject, Subscription, switchMap, timer, type Observable } from 'rxjs';
import * as z from 'zod';
import type { RequestRecord } from '../api/client.js';
import { operations } from '../api/operations.js';
import type { ClientCall } from '../engine/command-plan.js';
import { realTime, type EngineTime } from '../engine/engine-time.js';
import type { CallResult, RecorderLink } from '../engine/recorder-link.js';
import { FAST_PARTS, SLOW_PARTS, type RecorderState, type StatePart } from '../engine/recorder-state.js';
import { BusRecorder } from './bus-recorder.js';
import { RecentCommands } from './recent-commands.js';
import { CommandMessage, HealthMessage, LeaseMessage, PART_VALUES, RefreshMessage, parseMessage, topicsOf, type ReplyMessage } from './topics.js';

const PARTS: readonly StatePart[] = [...FAST_PARTS, ...SLOW_PARTS];

export interface BusPollerOptions {
  /** This poller's id on the bus (in its lease and last will); a random one by default. */
  id: string;
  pollMs: number;
  time?: EngineTime;
  /** Commands remembered for duplicate deliveries; default 1000. */
  recentCommands?: number;
  warn?: (message: string) => void;
  info?: (message: string) => void;
}

/** A new poller id. */
export const newPollerId = (): string => `poller-${randomUUID()}`;

/** The connection options a poller must connect with: its last will says, retained on the health topic, that it is gone. */
export function pollerWill(recorder: string, id: string): Pick<IClientOptions, 'will'> {
  return { will: { topic: topicsOf(recorder).health, payload: Buffer.from(JSON.stringify({ online: false, poller: id })), qos: 1, retain: true } };
}

export class BusPoller implements RecorderLink {
  readonly address: string;
  private readonly topics: ReturnType<typeof topicsOf>;
  private readonly view: BusRecorder;
  private readonly active = new BehaviorSubject(false);
  private readonly recent: RecentCommands<Promise<ReplyMessage>>;
  private readonly time: EngineTime;
  private readonly subscription = new Subscription();
  private publishing: Subscription | null = null;
  private lease: LeaseMessage | null = null;
  /** Pollers whose last will was seen (and not taken back by their health since). */
  private readonly gone = new Set<string>();
  private published: Partial<Record<StatePart, number>> = {};
  private lastHealth = '';
  private started = false;

  constructor(
    readonly name: string,
    private readonly polling: RecorderLink,
    private readonly mqtt: MqttClient,
    private readonly options: BusPollerOptions,
  ) {
    this.topics = topicsOf(name);
    this.address = polling.address;
    this.time = options.time ?? realTime;
    this.recent = new RecentCommands(options.recentCommands ?? 1000);
    this.view = new BusRecorder(name, mqtt, { pollMs: options.pollMs, time: this.time, ...(options.warn ? { warn: options.warn } : {}) });
  }

  get id(): string {
    return this.options.id;
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
    this.mqtt.on('message', this.onMessage);
    void this.mqtt.subscribeAsync([this.topics.lease, this.topics.health, this.topics.cmd, this.topics.refresh], { qos: 1 }).catch((error: unknown) => this.options.warn?.(`${this.topics.all}: could not subscribe: ${String(error)}`));
    // A lease held by a live poller arrives (retained) at once; with none in two intervals, claim it.
    this.subscription.add(timer(2 * this.options.pollMs, this.time.scheduler).subscribe(() => this.lease === null && this.claim()));
  }

  stop(): void {
    // A clean disconnect sends no last will: say it here, so a standby takes over at once.
    if (this.active.value) this.send(this.topics.health, { online: false, poller: this.id }, 1);
    this.started = false;
    this.subscription.unsubscribe();
    this.mqtt.off('message', this.onMessage);
    this.standBy();
    this.view.stop();
  }

  refresh(slow = false): void {
    if (this.active.value) this.polling.refresh(slow);
    else this.view.refresh(slow);
  }

  nextReadNumber(part: StatePart): number {
    return this.active.value ? this.polling.nextReadNumber(part) : this.view.nextReadNumber(part);
  }

  call<C extends ClientCall>(call: C): Promise<CallResult<C>> {
    return this.active.value ? this.polling.call(call) : this.view.call(call);
  }

  observe(observer: (record: RequestRecord) => void): () => void {
    return this.polling.observe(observer);
  }

  private readonly onMessage = (topic: string, payload: Buffer): void => {
    if (topic === this.topics.lease) return this.onLease(payload);
    if (topic === this.topics.health) return this.onHealth(payload);
    if (topic === this.topics.cmd) return void this.onCommand(payload);
    if (topic === this.topics.refresh && this.active.value) {
      const message = parseMessage(RefreshMessage, topic, payload);
      if (message.ok) this.polling.refresh(message.value.slow);
      else this.options.warn?.(message.error);
    }
  };

  private claim(): void {
    if (!this.started) return;
    const lease: LeaseMessage = { holder: this.id, since: this.time.now() };
    void this.mqtt.publishAsync(this.topics.lease, JSON.stringify(lease), { qos: 1, retain: true }).catch((error: unknown) => this.options.warn?.(`${this.topics.lease}: could not claim the lease: ${String(error)}`));
  }

  /** The broker orders the lease's publications: whoever the last one names polls, everyone else stands by. */
  private onLease(payload: Buffer): void {
    const message = parseMessage(LeaseMessage, this.topics.lease, payload);
    if (!message.ok) return this.options.warn?.(message.error);
    this.lease = message.value;
    if (this.lease.holder === this.id) this.takeOver();
    else {
      this.standBy();
      if (this.gone.has(this.lease.holder)) this.claim(); // a lease left by a poller already gone
    }
  }

  /** The holder's last will: claim the lease (a standby polls within moments). */
  private onHealth(payload: Buffer): void {
    const message = parseMessage(HealthMessage, this.topics.health, payload);
    if (!message.ok) return; // the view says what is wrong with it
    const health = message.value;
    if (health.online) this.gone.delete(health.poller);
    else this.gone.add(health.poller);
    if (!health.online && this.lease !== null && health.poller === this.lease.holder && health.poller !== this.id) {
      this.options.info?.(`${this.topics.lease}: "${health.poller}" is gone; taking over`);
      this.claim();
    }
  }

  private takeOver(): void {
    if (this.active.value || !this.started) return;
    this.active.next(true);
    this.published = {};
    this.lastHealth = '';
    this.polling.start();
    this.publishing = this.polling.state$.subscribe((state) => this.publish(state));
    this.options.info?.(`${this.topics.lease}: "${this.id}" polls`);
  }

  private standBy(): void {
    if (!this.active.value) return;
    this.publishing?.unsubscribe();
    this.publishing = null;
    this.polling.stop();
    this.active.next(false);
  }

  /** Health first (a new poller's numbering starts with it), then each part read since the last publication. */
  private publish(state: RecorderState): void {
    const health: HealthMessage = { online: true, poller: this.id, pollMs: state.pollMs, slowMs: state.slowMs, at: this.time.now(), lastGoodAt: state.lastGoodAt, failures: state.failures, lastError: state.lastError, unreachable: state.unreachable };
    const { at: _at, ...judged } = health;
    const key = JSON.stringify(judged);
    if (key !== this.lastHealth) {
      this.lastHealth = key;
      this.send(this.topics.health, health, 1);
    }
    for (const part of PARTS) {
      if (this.published[part] === state.readNumber[part] && this.published[part] !== undefined) continue;
      this.published[part] = state.readNumber[part];
      const value = state[part];
      const schema: z.ZodType = PART_VALUES[part];
      this.send(this.topics.part(part), { value: value === null ? null : z.encode(schema, value), readAt: state.readAt[part], readNumber: state.readNumber[part] }, 0);
    }
  }

  private send(topic: string, message: unknown, qos: 0 | 1): void {
    void this.mqtt.publishAsync(topic, JSON.stringify(message), { qos, retain: true }).catch((error: unknown) => this.options.warn?.(`${topic}: could not publish: ${String(error)}`));
  }

  /** Runs a command once per id (a duplicate delivery gets the first answer) and replies where it asks. */
  private async onCommand(payload: Buffer): Promise<void> {
    if (!this.active.value) return; // the lease holder answers
    const message = parseMessage(CommandMessage, this.topics.cmd, payload);
    if (!message.ok) return this.options.warn?.(`${message.error} (not run)`);
    const { id, call, replyTo } = message.value;
    const { result, duplicate } = this.recent.once(id, () => this.run(id, call));
    if (duplicate) this.options.info?.(`${this.topics.cmd}: command ${id} delivered again; answering as before, not running it again`);
    const reply = await result;
    await this.mqtt.publishAsync(replyTo, JSON.stringify(reply), { qos: 1 }).catch((error: unknown) => this.options.warn?.(`${replyTo}: could not reply to ${id}: ${String(error)}`));
  }

  private async run(id: string, call: CommandMessage['call']): Promise<ReplyMessage> {
    const operation = operations[call.method];
    const expected = [...operation.path.matchAll(/\{[a-z_]+\}/g)].length + (operation.request ? 1 : 0);
    if (call.args.length !== expected) return { id, ok: false, error: `${call.method} takes ${expected} argument${expected === 1 ? '' : 's'}, got ${call.args.length}` };
    try {
      const value: unknown = await this.polling.call(call as ClientCall);
      const readsAfter = Object.fromEntries(PARTS.map((part) => [part, this.polling.nextReadNumber(part)])) as Record<StatePart, number>;
      const response: z.ZodType = operation.response;
      return { id, ok: true, ...(value === undefined ? {} : { value: z.encode(response, value) }), readsAfter };
    } catch (error) {
      const serviceMessage = (error as { serviceMessage?: string }).serviceMessage;
      return { id, ok: false, error: (error as Error).message, ...(serviceMessage === undefined ? {} : { serviceMessage }) };
    }
  }
}
