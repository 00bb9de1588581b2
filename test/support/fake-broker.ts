// A broker in memory on virtual time, a fake at the transport for tests of the poller and panels on
// virtual time (the real BusPoller and BusRecorder above it): delivery by topic filter, each publication
// 1 ms (virtual) after it is made, retained copies kept. What the poller and a panel use of an MqttClient.
import { EventEmitter } from 'node:events';
import type { VirtualTime } from './virtual-time.js';

/** Whether an MQTT topic filter (with "+" and "#") matches a topic. */
export function matches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length || (f[i] !== '+' && f[i] !== t[i])) return false;
  }
  return f.length === t.length;
}

/** A broker in memory: each publication reaches every client subscribed to it 1 ms later (virtual), retained ones are kept. */
export class FakeBroker {
  readonly clients: FakeClient[] = [];
  readonly retained = new Map<string, Buffer>();
  /** Every publication, with when it was made. */
  readonly log: Array<{ topic: string; at: number; body: unknown }> = [];
  constructor(readonly time: VirtualTime) {}

  publish(topic: string, payload: Buffer, retain: boolean): void {
    this.log.push({ topic, at: this.time.now(), body: (JSON.parse(payload.toString()) as { body: unknown }).body });
    if (retain) this.retained.set(topic, payload);
    this.time.scheduler.schedule(() => {
      for (const client of this.clients) if (client.filters.some((f) => matches(f, topic))) client.emit('message', topic, payload, { retain: false });
    }, 1);
  }
}

/** What the poller and the panel use of an MqttClient. */
export class FakeClient extends EventEmitter {
  connected = true;
  disconnecting = false;
  readonly outgoing = {};
  readonly filters: string[] = [];
  constructor(private readonly broker: FakeBroker) {
    super();
    broker.clients.push(this);
  }
  subscribeAsync = async (topics: string | string[]) => {
    const added = Array.isArray(topics) ? topics : [topics];
    this.filters.push(...added);
    for (const [topic, payload] of this.broker.retained) if (added.some((f) => matches(f, topic))) this.emit('message', topic, payload, { retain: true });
    return [];
  };
  unsubscribeAsync = async () => undefined;
  publishAsync = async (topic: string, payload: Buffer, options: { retain?: boolean }) => this.broker.publish(topic, payload, options.retain === true);
  publish(topic: string, payload: Buffer, options: { retain?: boolean }): void {
    this.broker.publish(topic, payload, options.retain === true);
  }
}
