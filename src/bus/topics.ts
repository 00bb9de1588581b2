// What travels on the state bus, as zod schemas: the single source of the messages both ends check
// and of the JSON Schemas published for other tools (Node-RED, Companion, dashboards). Every value is
// in the recorder's own wire form (what its REST interface answers), so a subscriber needs no recdeck.
// Each message is the `body` of a signed envelope (envelope.ts) that says who sent it and when.
import * as z from 'zod';
import { Dialog, ResourcesWire, Schedule, SyncState } from '../api/app.js';
import { ChannelList } from '../api/channel.js';
import { ConversionConfig } from '../api/conversion.js';
import { operations } from '../api/operations.js';
import { SourceList } from '../api/source.js';
import { describeCall } from '../engine/command-plan.js';
import { AlarmWire } from '../engine/alarms/alarm.js'; // alarms on the bus (issue 36)
import type { StatePart } from '../engine/recorder-state.js';
import { CommandArgs, isClientCall, type UncheckedCall } from './command-args.js';
import { BusId, RecorderName } from './names.js';

// Defined in names.ts (which loads nothing else of the bus: run's flags check them) and part of the topics' words.
export { BusId, RecorderName };

export const topicsOf = (recorder: string) => {
  const base = `recdeck/${recorder}`;
  return {
    base,
    part: (part: StatePart) => `${base}/${part}`,
    health: `${base}/health`,
    lease: `${base}/lease`,
    /** Where a panel publishes its commands: the last level is its id, which the broker's ACL ties to its login. */
    cmd: (panel: string) => `${base}/cmd/${panel}`,
    /** Every panel's commands (the poller's subscription). */
    cmds: `${base}/cmd/+`,
    refresh: `${base}/refresh`,
    /** The lease holder's alarms of this recorder (issue 36; bus-alarms.ts). */
    alarms: `${base}/alarms`,
    /** Where the poller answers a panel: derived from the sender's id, never named by a message. */
    reply: (panel: string) => `${base}/reply/${panel}`,
    all: `${base}/#`,
  };
};

/** The panel a command topic is from (its last level), or null when the topic is no command topic of this recorder. */
export function commandSender(recorder: string, topic: string): string | null {
  const prefix = `recdeck/${recorder}/cmd/`;
  if (!topic.startsWith(prefix)) return null;
  const level = topic.slice(prefix.length);
  return level === '' || level.includes('/') ? null : level;
}

/** Topic names MQTT forbids, or that a poller of this recorder has no business publishing on. */
export class BusTopicError extends Error {}

/**
 * Every topic a poller publishes on goes through here first: a topic name with a wildcard, a NUL, a lone
 * surrogate (not UTF-8) or more than 65535 bytes is a protocol error that makes the broker drop the
 * connection, and anything outside the recorder's own tree is not the poller's to write.
 */
export function checkedTopic(recorder: string, topic: string): string {
  if (topic === '') throw new BusTopicError('an empty topic');
  if (/[+#\u0000]/.test(topic)) throw new BusTopicError(`${JSON.stringify(topic)}: a topic name may not hold "+", "#" or NUL`);
  if (/\p{Cs}/u.test(topic)) throw new BusTopicError(`${JSON.stringify(topic)}: not valid UTF-8`);
  if (Buffer.byteLength(topic) > 65535) throw new BusTopicError(`a topic of ${Buffer.byteLength(topic)} bytes (at most 65535)`);
  if (!topic.startsWith(`${topicsOf(recorder).base}/`)) throw new BusTopicError(`${JSON.stringify(topic)} is outside recdeck/${recorder}/`);
  return topic;
}

/** Each state part's value, as the recorder's interface answers it. */
export const PART_VALUES = {
  channels: ChannelList,
  sync: SyncState,
  dialog: Dialog,
  sources: SourceList,
  resources: ResourcesWire,
  schedule: Schedule,
  conversion: ConversionConfig,
} as const satisfies Record<StatePart, z.ZodType>;

const when = z.number().int().nonnegative();

/** One part (retained): its last good value, when the answer that brought it came (poller's clock, ms since the epoch), and the read's number. */
const partMessage = <S extends z.ZodType>(value: S) =>
  z.strictObject({
    value: value.nullable(),
    readAt: when.nullable(),
    readNumber: z.number().int().nonnegative(),
  });

/** Each part's message, made once: a panel checks a dozen a second. */
export const PART_MESSAGES: Readonly<Record<StatePart, z.ZodType<{ value: unknown; readAt: number | null; readNumber: number }>>> = {
  channels: partMessage(PART_VALUES.channels),
  sync: partMessage(PART_VALUES.sync),
  dialog: partMessage(PART_VALUES.dialog),
  sources: partMessage(PART_VALUES.sources),
  resources: partMessage(PART_VALUES.resources),
  schedule: partMessage(PART_VALUES.schedule),
  conversion: partMessage(PART_VALUES.conversion),
};

/** A poller process's random id: its last will names it, so an old will cannot be taken for a live poller's. */
const Instance = z.string().min(8).max(64);

/**
 * The poller publishes its health when it changes and at least this often while it polls (bus-poller.ts
 * publish()): one message every 20 polls at the default 250 ms, instead of three a poll.
 */
export const HEALTH_HEARTBEAT_MS = 5000;

/**
 * The polling poller's word on the recorder (retained), or its last will: it is gone. The poller is the
 * envelope's sender. It says how the recorder answers, not how old anything is: each part carries its
 * own readAt (a panel's lastGoodAt is derived from them), so it is published only when it changes and as
 * a heartbeat (bus-poller.ts publish()).
 */
export const HealthMessage = z.discriminatedUnion('online', [
  z.strictObject({
    online: z.literal(true),
    instance: Instance,
    pollMs: z.number().positive(),
    slowMs: z.number().positive(),
    failures: z.number().int().nonnegative(),
    lastError: z.string().nullable(),
    unreachable: z.boolean(),
  }),
  z.strictObject({ online: z.literal(false), instance: Instance }),
]);
export type HealthMessage = z.output<typeof HealthMessage>;

/** Which recorder a poller polls, without its token: two recorders under one name are told apart by it. */
export const RecorderIdentity = z.strictObject({
  /** The recorder's origin (scheme, host, port). */
  url: z.string().min(1).max(300),
  /** The first 12 hex digits of the SHA-256 of its token: enough to tell two tokens apart, far too few to guess one. */
  tokenSha256Prefix: z.string().regex(/^[0-9a-f]{12}$/),
});
export type RecorderIdentity = z.output<typeof RecorderIdentity>;

/** Which poller polls (retained), renewed every poll; it expires ttlMs after the last renewal a poller saw arrive. */
export const LeaseMessage = z.strictObject({
  recorder: RecorderName,
  identity: RecorderIdentity,
  /** The holder (the envelope's sender). */
  holder: BusId,
  /** Random for each claim: commands carry the term they were sent under, and only that term's holder runs them. */
  term: z.string().min(8).max(64),
  /** One more than the newest lease its claimer had seen: a lease of a lower epoch is an old holder's, and ignored. */
  epoch: z.number().int().positive(),
  /** When the holder sent this renewal (its clock). */
  renewedAt: when,
  ttlMs: z.number().int().positive(),
});
export type LeaseMessage = z.output<typeof LeaseMessage>;

/** Operations a panel may ask the poller to call: every operation of the client, by name. */
const Method = z.enum(Object.keys(operations) as [keyof typeof operations, ...Array<keyof typeof operations>]);

/** A command (QoS 1, on recdeck/<recorder>/cmd/<panel>): run at most once, and only before its deadline; the answer goes to reply/<panel>. */
export const CommandMessage = z.strictObject({
  id: z.string().min(8).max(100),
  call: z.strictObject({
    method: Method,
    args: CommandArgs,
  }),
  /** The lease term the panel sent it under: another term's poller does not run it. */
  term: z.string().min(8).max(64),
  /** When it was sent and the moment it may no longer start, both on the poller's clock (the panel measures the offset). */
  sentAt: when,
  deadline: when,
});
export type CommandMessage = z.output<typeof CommandMessage>;

/** The request a command's call makes ("PUT /api/channels/0/rec-start"), or its method when its arguments do not fit its operation. */
export function describeCommand(call: UncheckedCall): string {
  if (isClientCall(call)) return describeCall(call);
  return `${call.method} (${call.args.length} argument${call.args.length === 1 ? '' : 's'})`;
}

const ReadNumbers = z.strictObject(Object.fromEntries(Object.keys(PART_VALUES).map((part) => [part, z.number().int().nonnegative()])) as Record<StatePart, z.ZodNumber>);

export const ReplyMessage = z.discriminatedUnion('ok', [
  z.strictObject({
    id: z.string(),
    ok: z.literal(true),
    /** The answer in the recorder's wire form (absent for writes). */
    value: z.unknown().optional(),
    /** The numbers the poller's next reads will have, taken as the answer came: reads at least these show the command's effect. */
    readsAfter: ReadNumbers,
  }),
  z.strictObject({
    id: z.string(),
    ok: z.literal(false),
    /** Whether the request went to the recorder: false means the command did not run and never will. */
    sent: z.boolean(),
    error: z.string(),
    /** The recorder's own message, when it refused. */
    serviceMessage: z.string().optional(),
  }),
]);
export type ReplyMessage = z.output<typeof ReplyMessage>;

/** A panel asks for the state to be read again now (after a command). */
export const RefreshMessage = z.strictObject({ slow: z.boolean() });

// Alarms on the bus (issue 36): what the lease holder's alarm engine judges of this recorder.
/** At most this many alarms in one message: more than a recorder of 64 channels can have of every kind at once. */
export const MAX_BUS_ALARMS = 500;

/** The lease holder's active alarms of this recorder, worst first (retained; an empty list when there are none). */
export const AlarmsMessage = z.strictObject({
  active: z.array(AlarmWire).max(MAX_BUS_ALARMS),
  /** How often the poller judges them (its fastest poll): a panel ages them by it. */
  judgeEveryMs: z.number().int().positive(),
});
export type AlarmsMessage = z.output<typeof AlarmsMessage>;

// Acknowledging a followed alarm from a panel (bus-alarm-ack.ts): a command of its own on the panel's
// command topic (so the broker's ACL and the poller's admission take it as they take the others), run by
// the lease holder's alarm engine, the one owner of the alarm, and answered on the panel's reply topic.
/** At most this many alarms in one acknowledgement (a panel's alarm-ack key sends the worst waiting ones of a recorder): 50 of the longest ids fit a command (MAX_PAYLOAD_BYTES.cmd). */
export const MAX_ACKED_ALARMS = 50;

/** An alarm's id (alarm.ts: alarmId: kind, recorder, channel, disk). */
const AlarmIdOnBus = z.string().min(1).max(200);

/** Who acknowledged at the panel, as its alarm engine names them (a key, "memory:desk-1 key0"; the web API's client): no control characters, so a log line stays one line. */
export const AcknowledgedBy = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, { error: 'who acknowledged is named without control characters' });

/** A panel's acknowledgement (QoS 1, on recdeck/<recorder>/cmd/<panel>): run at most once, only under the lease term it names and only before its deadline. */
export const AlarmAckMessage = z.strictObject({
  id: z.string().min(8).max(100),
  ack: z.strictObject({
    /** Each alarm with the raise the panel showed (raisedAt, the poller's clock): one raised again since is not acknowledged unseen. */
    alarms: z
      .array(z.strictObject({ id: AlarmIdOnBus, raisedAt: when }))
      .min(1)
      .max(MAX_ACKED_ALARMS),
    /** Who at the panel (the panel itself is the envelope's signer). */
    by: AcknowledgedBy,
  }),
  term: z.string().min(8).max(64),
  sentAt: when,
  deadline: when,
});
export type AlarmAckMessage = z.output<typeof AlarmAckMessage>;

/**
 * What the holder's alarm engine did with each alarm: acked now by this acknowledgement; already-acked
 * (by whoever its ackedBy names) or cleared: nothing more to do, the same answer as a second press; not
 * acknowledged: raised-again (it was raised again since the raise the panel showed: look again) or
 * not-active (the poller knows no such alarm of this recorder).
 */
export const AlarmAckOutcome = z.enum(['acked', 'already-acked', 'cleared', 'raised-again', 'not-active']);
export type AlarmAckOutcome = z.output<typeof AlarmAckOutcome>;

/** The holder's answer to an acknowledgement it ran (one it refused is answered as a refused command: ReplyMessage, ok false). */
export const AlarmAckReply = z.strictObject({
  id: z.string(),
  ok: z.literal(true),
  acks: z
    .array(
      z.strictObject({
        id: AlarmIdOnBus,
        outcome: AlarmAckOutcome,
        /** The alarm as the poller's engine holds it after this acknowledgement (null: not-active). */
        alarm: AlarmWire.nullable(),
      }),
    )
    .max(MAX_ACKED_ALARMS),
});
export type AlarmAckReply = z.output<typeof AlarmAckReply>;

/** Everything a poller answers on reply/<panel>. */
export const AnyReply = z.union([ReplyMessage, AlarmAckReply]);
export type AnyReply = z.output<typeof AnyReply>;

/** Checks a message body, naming what is wrong. */
export function parseBody<S extends z.ZodType>(schema: S, topic: string, body: unknown): { ok: true; value: z.output<S> } | { ok: false; error: string } {
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: `${topic}: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`).join('; ')}` };
}

/** Every message body on the bus with the file its JSON Schema is published in (under profiles/bus/) and what it is. */
export function busMessageSchemas(): Array<{ file: string; topic: string; description: string; schema: z.ZodType }> {
  const parts = (Object.keys(PART_VALUES) as StatePart[]).map((part) => ({
    file: `${part}.schema.json`,
    topic: `recdeck/<recorder>/${part}`,
    description: `Retained, signed by the lease holder: the recorder's ${part} as its interface answers it, when the poller's read of it was answered (ms since the epoch, the poller's clock) and the read's number.`,
    schema: PART_MESSAGES[part],
  }));
  return [
    ...parts,
    { file: 'health.schema.json', topic: 'recdeck/<recorder>/health', description: `Retained, signed by the lease holder: its word on how the recorder answers (online: true), published when it changes and at least every ${HEALTH_HEARTBEAT_MS / 1000} s while polling (each part carries its own age in readAt), or its last will (online: false).`, schema: HealthMessage },
    { file: 'lease.schema.json', topic: 'recdeck/<recorder>/lease', description: 'Retained, signed by the holder and renewed every poll: which poller polls the recorder, under which term and epoch, for which recorder identity.', schema: LeaseMessage },
    { file: 'cmd.schema.json', topic: 'recdeck/<recorder>/cmd/<panel>', description: "QoS 1, signed by the panel the topic names: a call on the recorder (a recdeck client method and its arguments), run at most once, only under the lease term it names and only before its deadline (the poller's clock).", schema: CommandMessage },
    { file: 'reply.schema.json', topic: 'recdeck/<recorder>/reply/<panel>', description: "QoS 1, signed by the lease holder: a command's answer: ok with the recorder's answer and the read numbers that show its effect, or not ok with why and whether the request was sent.", schema: ReplyMessage },
    { file: 'alarms.schema.json', topic: 'recdeck/<recorder>/alarms', description: "Retained, signed by the lease holder, sent at every raise, acknowledgement and clear and when it takes the lease: the recorder's active alarms as its alarm engine judges them (as GET /alarms lists them), and how often it judges; an empty list when there are none.", schema: AlarmsMessage }, // issue 36
    { file: 'alarm-ack.schema.json', topic: 'recdeck/<recorder>/cmd/<panel>', description: "QoS 1, signed by the panel the topic names: acknowledges alarms of the recorder in the lease holder's alarm engine (each with the raise the panel showed, and who at the panel), run at most once, only under the lease term it names and only before its deadline (the poller's clock); the facility file must let the panel call every control operation on the recorder.", schema: AlarmAckMessage },
    { file: 'alarm-ack-reply.schema.json', topic: 'recdeck/<recorder>/reply/<panel>', description: "QoS 1, signed by the lease holder: what its alarm engine did with each alarm of an acknowledgement it ran (a refused one is answered as reply.schema.json's not ok).", schema: AlarmAckReply },
    { file: 'refresh.schema.json', topic: 'recdeck/<recorder>/refresh', description: 'Signed by a panel: asks the poller to read the state again now (after a command; slow: the slow group too).', schema: RefreshMessage },
  ];
}
