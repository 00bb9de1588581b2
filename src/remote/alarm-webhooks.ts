// Alarm webhooks (`--alarm-webhook URL`, repeatable): every raise, ack and clear POSTed as JSON
// (AlarmWebhookPayload, src/engine/alarms/alarm.ts), signed with HMAC-SHA256 of the body in
// X-Recdeck-Signature when a secret is given. Each URL has its own bounded queue and one sender: events
// arrive in order, a receiver that fails is retried with a doubling back-off on the engine's clock, one
// that hangs is given up on at the time limit, and none of it is ever waited on by a poll or a press
// (deliver() only queues). The payload carries the alarm, never a token or a password.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type * as Undici from 'undici';
import { delay, type Clock } from '../api/clock.js';
import { messageOf } from '../api/errors.js';
import { alarmWire, type AlarmEvent, type AlarmWebhookPayload } from '../engine/alarms/alarm.js';
import type { AlarmSettings } from '../engine/alarms/alarm-settings.js';
import { LogLimiter } from '../engine/log-limit.js';
import type { Logger } from '../engine/log.js';

/**
 * undici's request(), required at the first webhook sent: the package's index is all of undici (110
 * files, and Node's own copy compiled through globalThis.Headers: 190-240 ms of CPU), which the recorder
 * client does not need (undici-pool.ts) and a bridge with no webhook never should load.
 */
const undiciRequest = (): typeof Undici.request => (createRequire(import.meta.url)('undici') as typeof Undici).request;

export const SIGNATURE_HEADER = 'x-recdeck-signature';

export interface AlarmWebhookOptions {
  urls: readonly string[];
  /** The HMAC-SHA256 key (--alarm-webhook-secret-file); null: unsigned. */
  secret: string | null;
  settings: AlarmSettings['webhook'];
  clock: Clock;
  log: Logger;
  /** Names this recdeck in the payload (default: the host name). */
  source?: string;
}

/** The signature of a body as sent in X-Recdeck-Signature: `sha256=` and the hex HMAC. */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface Outbox {
  url: string;
  bodies: string[];
  sending: boolean;
}

export class AlarmWebhooks {
  private readonly outboxes: Outbox[];
  private readonly warnings: LogLimiter;
  private readonly source: string;
  private closed = false;
  /** Requests under way, aborted on close. */
  private readonly underWay = new Set<AbortController>();

  constructor(private readonly options: AlarmWebhookOptions) {
    this.outboxes = options.urls.map((url) => ({ url, bodies: [], sending: false }));
    this.warnings = new LogLimiter((message) => options.log.warn(message), () => options.clock.now());
    this.source = options.source ?? hostname();
  }

  /** Queues the event for every URL and returns at once; a full queue drops its oldest event, and says so. */
  deliver(event: AlarmEvent): void {
    if (this.closed || this.outboxes.length === 0) return;
    const payload: AlarmWebhookPayload = { source: this.source, at: new Date(event.at).toISOString(), alarm: alarmWire(event.alarm) };
    const body = JSON.stringify(payload);
    for (const outbox of this.outboxes) {
      if (outbox.bodies.length >= this.options.settings.queue) {
        outbox.bodies.shift();
        this.warnings.say(`alarm webhook ${outbox.url}: ${this.options.settings.queue} events are waiting, the most it queues: the oldest was dropped`);
      }
      outbox.bodies.push(body);
      if (!outbox.sending) void this.drain(outbox);
    }
  }

  /** Events waiting (or being sent) per URL. */
  pending(): number {
    return this.outboxes.reduce((sum, o) => sum + o.bodies.length, 0);
  }

  /** Stops sending: requests under way are aborted, what waits is dropped. */
  close(): void {
    this.closed = true;
    for (const controller of this.underWay) controller.abort();
    for (const outbox of this.outboxes) outbox.bodies.length = 0;
  }

  private async drain(outbox: Outbox): Promise<void> {
    outbox.sending = true;
    while (!this.closed && outbox.bodies.length > 0) {
      const body = outbox.bodies[0] as string;
      await this.sendWithRetries(outbox.url, body);
      // The queue may have dropped it (full) or been emptied (closed) meanwhile: remove only this one.
      if (outbox.bodies[0] === body) outbox.bodies.shift();
    }
    outbox.sending = false;
  }

  private async sendWithRetries(url: string, body: string): Promise<void> {
    const { attempts, backoffMs, maxBackoffMs } = this.options.settings;
    for (let attempt = 1; attempt <= attempts && !this.closed; attempt++) {
      const failure = await this.send(url, body);
      if (failure === null) return;
      if (attempt === attempts) {
        this.warnings.say(`alarm webhook ${url}: gave up after ${attempts} attempts (${failure}); the event is dropped`);
        return;
      }
      const wait = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
      this.options.log.debug?.(`alarm webhook ${url}: ${failure}; trying again in ${wait} ms`);
      await delay(this.options.clock, wait);
    }
  }

  /** One POST; null when the receiver took it (2xx), else why not. */
  private async send(url: string, body: string): Promise<string | null> {
    const controller = new AbortController();
    this.underWay.add(controller);
    const limit = this.options.clock.scheduler.schedule(() => controller.abort(), this.options.settings.timeoutMs);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'recdeck-alarms' };
    if (this.options.secret !== null) headers[SIGNATURE_HEADER] = signatureOf(body, this.options.secret);
    try {
      const answer = await undiciRequest()(url, { method: 'POST', body, headers, signal: controller.signal });
      await answer.body.dump();
      return answer.statusCode >= 200 && answer.statusCode < 300 ? null : `answered ${answer.statusCode}`;
    } catch (error) {
      return controller.signal.aborted && !this.closed ? `no answer within ${this.options.settings.timeoutMs} ms` : messageOf(error);
    } finally {
      limit.unsubscribe();
      this.underWay.delete(controller);
    }
  }
}
