// What an alarm is, on the wire and in the engine: one zod schema for GET /alarms, the webhook's JSON,
// the audit lines and the tests, so the README's payload and what is sent cannot drift apart.
import * as z from 'zod';

/** Every kind the alarm engine raises (alarm-conditions.ts says when each one holds). */
export const ALARM_KINDS = [
  'channel-fault',
  'drops-rising',
  'buffer-growing',
  'unexpected-stop',
  'recorder-offline',
  'recorder-stale',
  'disk-time',
  'dialog-waiting',
  'sync-channel-idle',
  'group-disagree',
] as const;
export const AlarmKind = z.enum(ALARM_KINDS);
export type AlarmKind = z.output<typeof AlarmKind>;

export const Severity = z.enum(['warning', 'critical']);
export type Severity = z.output<typeof Severity>;

/** raised: the condition held for the raise polls; acked: an operator saw it; cleared: it no longer holds (for the clear polls). */
export const AlarmState = z.enum(['raised', 'acked', 'cleared']);
export type AlarmState = z.output<typeof AlarmState>;

const time = z.iso.datetime();

/** One alarm as GET /alarms lists it and a webhook carries it. Times are ISO 8601 (UTC) on the engine's clock. */
export const AlarmWire = z.strictObject({
  /** Stable for as long as the condition lasts: kind, recorder, channel and disk. */
  id: z.string().min(1),
  kind: AlarmKind,
  /** The recorder's name (a group's name for group-disagree). */
  recorder: z.string().min(1),
  /** 1-based, as in profiles; null for an alarm about the whole recorder. */
  channel: z.number().int().min(1).nullable(),
  /** The recording disk of a disk-time alarm; null otherwise. */
  disk: z.string().nullable(),
  severity: Severity,
  state: AlarmState,
  /** What an operator reads: what is wrong, where, since when. */
  text: z.string().min(1),
  /** When the condition was first seen holding, and last seen holding. */
  firstSeen: time,
  lastSeen: time,
  raisedAt: time,
  ackedAt: time.nullable(),
  /** Who acknowledged it (a key, a pedal, an address of the API); null until then. */
  ackedBy: z.string().nullable(),
  clearedAt: time.nullable(),
});
export type AlarmWire = z.output<typeof AlarmWire>;

/** GET /alarms: the alarms active now (worst first) and the last cleared ones (newest first). */
export const AlarmList = z.strictObject({
  active: z.array(AlarmWire),
  cleared: z.array(AlarmWire),
});
export type AlarmList = z.output<typeof AlarmList>;

/** The JSON a webhook receives on every raise, ack and clear. */
export const AlarmWebhookPayload = z.strictObject({
  /** Which recdeck sent it (its host name), so one receiver can take several. */
  source: z.string(),
  /** When this event happened (ISO 8601). */
  at: time,
  alarm: AlarmWire,
});
export type AlarmWebhookPayload = z.output<typeof AlarmWebhookPayload>;

/** What an alarm is about and says: the condition that raises it, the alarm itself and its audit lines share it. */
export interface AlarmSubject {
  id: string;
  kind: AlarmKind;
  recorder: string;
  channel: number | null;
  disk: string | null;
  severity: Severity;
  text: string;
}

/** An alarm as the engine keeps it: times in ms on the engine's clock. */
export interface Alarm extends AlarmSubject {
  firstSeen: number;
  lastSeen: number;
  raisedAt: number;
  ackedAt: number | null;
  ackedBy: string | null;
  clearedAt: number | null;
}

/** A raise, an ack or a clear, as the deliveries (audit, webhooks, pages) receive it. */
export interface AlarmEvent {
  state: AlarmState;
  at: number;
  alarm: Alarm;
}

/** An alarm's one id: what it is about, never when. */
export function alarmId(kind: AlarmKind, recorder: string, channel: number | null, disk: string | null): string {
  return [kind, recorder, ...(channel === null ? [] : [`ch${channel}`]), ...(disk === null ? [] : [disk])].join(':');
}

export function stateOf(alarm: Alarm): AlarmState {
  return alarm.clearedAt !== null ? 'cleared' : alarm.ackedAt !== null ? 'acked' : 'raised';
}

const iso = (ms: number) => new Date(ms).toISOString();

export function alarmWire(alarm: Alarm): AlarmWire {
  return {
    id: alarm.id,
    kind: alarm.kind,
    recorder: alarm.recorder,
    channel: alarm.channel,
    disk: alarm.disk,
    severity: alarm.severity,
    state: stateOf(alarm),
    text: alarm.text,
    firstSeen: iso(alarm.firstSeen),
    lastSeen: iso(alarm.lastSeen),
    raisedAt: iso(alarm.raisedAt),
    ackedAt: alarm.ackedAt === null ? null : iso(alarm.ackedAt),
    ackedBy: alarm.ackedBy,
    clearedAt: alarm.clearedAt === null ? null : iso(alarm.clearedAt),
  };
}

/** Worst first: critical before warning, unacknowledged before acknowledged, then the oldest raise. */
export function worstFirst(a: Alarm, b: Alarm): number {
  const rank = (x: Alarm) => (x.severity === 'critical' ? 0 : 2) + (x.ackedAt === null ? 0 : 1);
  return rank(a) - rank(b) || a.raisedAt - b.raisedAt || a.id.localeCompare(b.id);
}

/** An alarm's raise, ack or clear as one audit line. */
export interface AlarmAuditRecord extends AlarmSubject {
  at: number;
  alarm: AlarmState;
  /** Who acknowledged it (acks only). */
  by: string | null;
}

export function alarmAuditRecord(event: AlarmEvent): AlarmAuditRecord {
  const { id, kind, recorder, channel, disk, severity, text, ackedBy } = event.alarm;
  return { at: event.at, alarm: event.state, id, kind, recorder, channel, disk, severity, text, by: event.state === 'acked' ? ackedBy : null };
}
